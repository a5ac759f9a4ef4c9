import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import { MarketData } from "../../src/market/engine/MarketData.js"
import { DAY_MS, isoDate } from "../../src/market/indicators/days.js"
import type { Column } from "../../src/market/snapshot.js"
import { loadTickers } from "../../src/market/tickers/index.js"
import type { CompiledQuery } from "../../src/query/index.js"
import { type BacktestPeriod, backtestPeriods } from "../../src/research/backtest/run.js"
import { EVERY, exitDay, rebalanceDays } from "../../src/research/backtest/schedule.js"
import { compileOn } from "../support/compileOn.js"

const PICK = new Set(["AAPL", "MSFT", "SPY", "NVDA", "BTC-USD", "ETH-USD", "F", "KO"])
const tickers = loadTickers().filter((t, i) => PICK.has(t.ticker) || i % 250 === 0)
const FRIDAY_MIDDAY = Date.UTC(2026, 10, 20, 18, 30)
const TODAY = Math.floor(FRIDAY_MIDDAY / DAY_MS)

const QUERIES = [
  (x: number) => `rsi_14 < ${20 + x * 60}`,
  (x: number) => `price > ${x * 200} AND day_change_pct < ${x * 4 - 2}`,
  (x: number) => `sector = 'Technology' OR relative_volume > ${x * 3}`,
  (x: number) => `price > SPY.price * ${x}`,
  (x: number) => `market_cap > ${x * 1e11} OR rsi_14 > 60`,
  // ranked within each sector: the partition's text column is laid out for the rank
  (x: number) => `pct_rank(rsi_14, sector) > ${x} AND zscore(volatility_20d, exchange) < ${x * 2}`
]
const ORDERS = ["day_change_pct", "market_cap", "rsi_14", "name", "price"]

describe("backtest periods", () => {
  let md: MarketData
  let compile: (q: string) => CompiledQuery
  beforeAll(() => {
    md = MarketData.build({ seed: 7, tickers, historyDays: 120, now: FRIDAY_MIDDAY })
    compile = compileOn(md)
  })

  const cellOf = (col: Column, r: number): number | string | null =>
    col.kind === "string" ? (col.values[r] ?? null) : col.valid[r] === 0 ? null : col.values[r]!
  const lastClose = (slot: number, day: number) => {
    const s = md.series[slot]!
    const j = s.indexAtOrBefore(day)
    return j < 0 ? Number.NaN : s.close[j]!
  }

  it("equals the as-of scans of each rebalance day, held to the exit day's closes", () => {
    let held = 0
    let limited = 0
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: QUERIES.length - 1 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(...EVERY),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 20, max: 150 }),
        // every match half the time (read off the kept bars for a row-local q), the top few otherwise
        fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined, freq: 2 }),
        fc.constantFrom(...ORDERS),
        fc.boolean(),
        fc.option(fc.subarray([...Array(md.size).keys()], { minLength: 1 }), { nil: undefined, freq: 3 }),
        fc.boolean(),
        (which, x, every, hold, back, limit, order, desc, subset, rotating) => {
          const q = compile(QUERIES[which]!(x))
          const toDay = TODAY - 1
          const fromDay = toDay - back
          const days = rebalanceDays(fromDay, toDay, every).filter((d) => exitDay(d, hold) < TODAY)
          const exits = days.map((d) => exitDay(d, hold))
          // a universe whose members change from day to day (as top_100's do), or the same every day
          const scopeOn = (day: number): ReadonlySet<number> | undefined =>
            subset === undefined
              ? undefined
              : new Set(rotating ? subset.filter((slot) => (slot + day) % 3 !== 0) : subset)
          const walked = new Set(subset ?? [...Array(md.size).keys()])
          for (const t of q.tickers) walked.add(md.index.get(t)!)
          const spy = md.index.get("SPY")!
          const periods = (layout: "days" | undefined) => {
            const out: Array<BacktestPeriod> = []
            const gen = backtestPeriods(md, {
              slots: [...walked].sort((a, b) => a - b),
              q,
              pick: { order, desc, limit },
              days,
              exits,
              scope: scopeOn,
              benchmark: spy,
              layout
            })
            for (let s = gen.next(); !s.done; s = gen.next()) if (s.value !== undefined) out.push(s.value)
            return out
          }
          const got = periods(undefined)
          expect(got.map((p) => p.day)).toEqual(days)
          // the days laid out one by one buy the same (every match of a row-local q is read off the kept bars)
          expect(got).toEqual(periods("days"))
          days.forEach((day, d) => {
            const snap = md.snapshotAsOf(isoDate(day))
            const col = snap.columns.get(order)!
            const scopeSet = scopeOn(day)
            // q among the universe's rows of the as-of snapshot (its ranks ranked among them)
            const scopeRows =
              scopeSet === undefined
                ? undefined
                : Int32Array.from(snap.tickers.flatMap((t, r) => (scopeSet.has(md.index.get(t)!) ? [r] : [])))
            let rows = Array.from(q.evaluate(snap, scopeRows, scopeRows))
            if (limit !== undefined) {
              rows.sort((a, b) => {
                const va = cellOf(col, a)
                const vb = cellOf(col, b)
                if (va !== vb) {
                  if (va === null) return 1
                  if (vb === null) return -1
                  return (va < vb ? -1 : 1) * (desc ? -1 : 1)
                }
                return snap.tickers[a]! < snap.tickers[b]! ? -1 : 1
              })
              rows = rows.slice(0, limit)
            }
            const price = snap.columns.get("price") as Extract<Column, { kind: "numeric" }>
            const returns = rows.flatMap((r) => {
              const entry = price.valid[r] === 1 ? price.values[r]! : Number.NaN
              const exit = lastClose(md.index.get(snap.tickers[r]!)!, exits[d]!)
              return entry > 0 ? [exit / entry - 1] : []
            })
            const p = got[d]!
            held += p.count
            if (limit !== undefined && p.count === limit) limited++
            expect(p.exitDay).toBe(exits[d])
            expect(p.count).toBe(returns.length)
            if (returns.length === 0) expect(p.return).toBeNull()
            else expect(p.return!).toBeCloseTo(returns.reduce((a, b) => a + b, 0) / returns.length, 12)
            expect(p.benchmark_return!).toBeCloseTo(lastClose(spy, exits[d]!) / lastClose(spy, day) - 1, 12)
          })
        }
      ),
      { numRuns: 40 }
    )
    // the runs held tickers, and cut some days to their limit
    expect(held).toBeGreaterThan(0)
    expect(limited).toBeGreaterThan(0)
  }, 120_000)
})
