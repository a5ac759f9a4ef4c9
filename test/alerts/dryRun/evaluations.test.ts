/**
 * The dry-run's history readers against the as-of reads: every daily
 * evaluation's matches equal the compiled query over `snapshotAsOf` of that
 * day (within the scope), for random conditions, windows and scopes; the
 * replay over them is the state machine's; `pinnedTickers` finds the tickers
 * a rule is pinned to.
 */
import { Either } from "effect"
import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import { dailyEvaluations } from "../../../src/alerts/dryRun/dailyEvaluations.js"
import { minuteEvaluations } from "../../../src/alerts/dryRun/minuteEvaluations.js"
import { type Evaluation, forwardReturns, Replay } from "../../../src/alerts/dryRun/replay.js"
import { DEFAULT_FIRING } from "../../../src/alerts/firing/options.js"
import { CATALOG } from "../../../src/market/catalog.js"
import { MarketData } from "../../../src/market/engine/MarketData.js"
import { DAY_MS, isoDate } from "../../../src/market/indicators/days.js"
import { loadTickers } from "../../../src/market/tickers/index.js"
import { type CompiledQuery, columnsOf, compileQuery } from "../../../src/query/index.js"
import { pinnedTickers } from "../../../src/query/pinned.js"

const PICK = new Set(["AAPL", "MSFT", "SPY", "NVDA", "BTC-USD", "ETH-USD", "F", "KO"])
const tickers = loadTickers().filter((t, i) => PICK.has(t.ticker) || i % 300 === 0)
/** Friday 2026-11-20, 13:30 New York: the session is open */
const FRIDAY_MIDDAY = Date.UTC(2026, 10, 20, 18, 30)
const TODAY = Math.floor(FRIDAY_MIDDAY / DAY_MS)

const compile = (q: string): CompiledQuery => {
  const c = compileQuery(q, {
    columns: columnsOf(CATALOG),
    tickers: (s) => tickers.find((t) => t.ticker === s.toUpperCase())?.ticker,
    mode: "query"
  })
  if (Either.isLeft(c)) throw new Error(c.left.message)
  return c.right
}

const drain = (gen: Generator<Evaluation | undefined, void>, visit: (e: Evaluation) => void) => {
  for (let s = gen.next(); !s.done; s = gen.next()) if (s.value !== undefined) visit(s.value)
}

const QUERIES = [
  (x: number) => `rsi_14 < ${20 + x * 60}`,
  (x: number) => `price > ${x * 200} AND day_change_pct < ${x * 4 - 2}`,
  (x: number) => `sector = 'Information Technology' OR relative_volume > ${x * 3}`,
  (x: number) => `ticker IN ('AAPL', 'BTC-USD') AND rsi_14 > ${x * 80}`,
  (x: number) => `price > SPY.price * ${x}`,
  (x: number) => `pe_ratio < ${x * 40} OR news_volume > 0`,
  (x: number) => `market_cap > ${x * 1e11} AND rsi_14 < 60`,
  (x: number) => `(above_sma_20 AND NOT gap_down) OR (industry IS NULL AND rsi_14 > ${x * 100})`,
  // ranked within each sector: the partition's text column is laid out for the rank
  (x: number) => `pct_rank(rsi_14, sector) > ${x} AND zscore(volatility_20d, exchange) < ${x * 2}`
]

describe("dry-run history readers", () => {
  let md: MarketData
  beforeAll(() => {
    md = MarketData.build({ seed: 11, tickers, historyDays: 60, now: FRIDAY_MIDDAY })
  })

  it("each daily evaluation matches the compiled query over that day's as-of snapshot, within the scope", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: QUERIES.length - 1 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 0, max: 12 }),
        fc.option(fc.subarray([...Array(md.size).keys()], { minLength: 1 }), { nil: undefined }),
        (which, x, back, span, subset) => {
          const q = compile(QUERIES[which]!(x))
          const clear = compile(`rsi_14 > ${x * 100}`)
          const toDay = TODAY - back
          const fromDay = toDay - span
          const scopeSet = subset === undefined ? undefined : new Set(subset)
          const walked = new Set(subset ?? [...Array(md.size).keys()])
          for (const t of q.tickers) walked.add(md.index.get(t)!)
          const slots = [...walked].sort((a, b) => a - b)
          const days: Array<number> = []
          drain(dailyEvaluations(md, { slots, q, clear, fromDay, toDay, scope: () => scopeSet }), (e) => {
            const day = e.at / DAY_MS - 1
            days.push(day)
            const snap = md.snapshotAsOf(isoDate(day))
            // q among the scope's rows of the as-of snapshot (its ranks ranked among them)
            const scopeRows =
              scopeSet === undefined
                ? undefined
                : Int32Array.from(snap.tickers.flatMap((t, r) => (scopeSet.has(md.index.get(t)!) ? [r] : [])))
            const expected = q.matches(snap, scopeRows, scopeRows).map((t) => md.index.get(t)!)
            expect(Array.from(e.matched)).toEqual(expected.sort((a, b) => a - b))
            const expectedClear = clear
              .matches(snap)
              .map((t) => md.index.get(t)!)
              .filter((s) => walked.has(s))
            expect(Array.from(e.clear!)).toEqual(expectedClear.sort((a, b) => a - b))
            // the row's price and bar: the as-of row's
            for (const slot of e.matched) {
              const r = snap.index.get(md.tickers[slot]!.ticker)!
              const price = snap.columns.get("price")!
              expect(e.price(slot)).toBe(price.values[r])
              const s = md.series[slot]!
              expect(s.days[e.bar(slot)]).toBe((snap as any).rowDays[r])
            }
          })
          // one evaluation per day on which a ticker in scope has a bar
          const expectedDays: Array<number> = []
          for (let d = fromDay; d <= toDay; d++) {
            if (slots.some((k) => (scopeSet?.has(k) ?? true) && md.series[k]!.days.includes(d))) expectedDays.push(d)
          }
          expect(days).toEqual(expectedDays)
        }
      ),
      { numRuns: 25 }
    )
  }, 120_000)

  it("finds a row-local rule's matches off its kept bars exactly as off each day's laid-out rows", () => {
    const all = [...Array(md.size).keys()]
    let evaluations = 0
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: QUERIES.length - 1 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 0, max: 40 }),
        fc.option(fc.subarray(all, { minLength: 1 }), { nil: undefined }),
        fc.boolean(),
        (which, x, back, span, subset, withClear) => {
          const q = compile(QUERIES[which]!(x))
          const clear = withClear ? compile(`above_sma_50 OR sector = 'Energy' OR rsi_14 > ${x * 100}`) : undefined
          const toDay = TODAY - back
          const scopeSet = subset === undefined ? undefined : new Set(subset)
          const spec = { slots: all, q, clear, fromDay: toDay - span, toDay, scope: () => scopeSet }
          const read = (layout: "days" | "bars") => {
            const out: Array<{ at: number; matched: string; clear: string; rows: string }> = []
            drain(dailyEvaluations(md, { ...spec, layout }), (e) =>
              out.push({
                at: e.at,
                matched: Array.from(e.matched).join(),
                clear: e.clear === undefined ? "-" : Array.from(e.clear).join(),
                // every walked ticker's price and bar as the evaluation reads them (NaN / -1: no row)
                rows: all.map((id) => `${e.price(id)}@${e.bar(id)}`).join()
              })
            )
            return out
          }
          const bars = read("bars")
          expect(bars).toEqual(read("days"))
          evaluations += bars.length
        }
      ),
      { numRuns: 40 }
    )
    expect(evaluations).toBeGreaterThan(100)
  }, 120_000)

  it("replays the evaluator's state machine over the evaluations, and measures forward returns from the closes", () => {
    const q = compile("rsi_14 < 50")
    const slots = [...Array(md.size).keys()]
    const r = new Replay(DEFAULT_FIRING)
    let before = new Set<number>()
    let fired = 0
    const entries: Array<[number, number]> = []
    const returns: Array<number> = []
    drain(
      dailyEvaluations(md, {
        slots,
        q,
        clear: undefined,
        fromDay: TODAY - 40,
        toDay: TODAY - 1,
        scope: () => undefined
      }),
      (e) => {
        const events = r.step(e)
        const now = new Set(e.matched)
        const entered = [...now].filter((s) => !before.has(s))
        expect(events.flatMap((ev) => Array.from(ev.tickers))).toEqual(entered)
        fired += entered.length
        for (const slot of entered) entries.push([e.at, slot])
        before = now
        // recomputed by hand for the 1-day horizon: the entry's price to its next bar's close
        for (const slot of entered) {
          const bar = e.bar(slot)
          const s = md.series[slot]!
          if (bar >= 0 && bar + 1 < s.length && e.price(slot) > 0) returns.push(s.close[bar + 1]! / e.price(slot) - 1)
        }
      }
    )
    expect(r.signals.size).toBe(fired)
    // per ticker: its entries (fired on entry only: no cleared events), the first and the last
    const tallies = new Map<number, { fires: number; clears: number; firstAt: number; lastAt: number }>()
    for (const [at, slot] of entries) {
      const t = tallies.get(slot) ?? { fires: 0, clears: 0, firstAt: at, lastAt: at }
      t.fires++
      t.lastAt = at
      tallies.set(slot, t)
    }
    expect([...r.tallies()].sort((a, b) => a[0] - b[0])).toEqual([...tallies].sort((a, b) => a[0] - b[0]))
    expect(tallies.size).toBeGreaterThan(10)
    const fr = forwardReturns(r.signals)
    expect(fr["1d"].n).toBe(returns.length)
    expect(fr["1d"].mean).toBeCloseTo(returns.reduce((a, b) => a + b, 0) / returns.length, 5)
    expect(fr["1d"].hit_rate).toBeCloseTo(returns.filter((x) => x > 0).length / returns.length, 5)
  }, 60_000)

  it("evaluates at 1m on each ticker's latest minute row, the cadence deciding the minutes", () => {
    const q = compile("price > 0")
    const slots = ["AAPL", "BTC-USD"].map((t) => md.index.get(t)!).sort((a, b) => a - b)
    const fromMs = FRIDAY_MIDDAY - DAY_MS
    const minutes = (cadence: "realtime" | "hourly") =>
      minuteEvaluations(md, {
        slots,
        q,
        clear: undefined,
        fromMs,
        toMs: FRIDAY_MIDDAY,
        cadence,
        scope: () => undefined
      })
    const all: Array<Evaluation> = []
    const hourly: Array<number> = []
    const NIGHT = Date.UTC(2026, 10, 20, 5, 0)
    const aapl = md.index.get("AAPL")!
    let nightPrice = Number.NaN
    let lastPrice = Number.NaN
    drain(minutes("realtime"), (e) => {
      all.push(e)
      // a row's price is read while its evaluation is the current one
      if (e.at === NIGHT) nightPrice = e.price(aapl)
      lastPrice = e.price(aapl)
    })
    drain(minutes("hourly"), (e) => {
      hourly.push(e.at)
    })
    // crypto trades every minute: one evaluation a minute; the equity (open at `from`) keeps its last
    // minute row overnight
    expect(all.length).toBeGreaterThan(1400)
    expect(all.every((e, i) => i === 0 || e.at - all[i - 1]!.at === 60_000)).toBe(true)
    expect(all.every((e) => Array.from(e.matched).join() === slots.join())).toBe(true)
    const close = md.intradaySeries("AAPL", "price", "1m", fromMs, NIGHT, 1)[0]!
    expect(nightPrice).toBe(close.value)
    // the open session's last minute is the live row
    expect(all.at(-1)!.at).toBe(FRIDAY_MIDDAY)
    const live = md.latest
    expect(lastPrice).toBe((live.columns.get("price") as any).values[live.index.get("AAPL")!])
    expect(close.t).toBe(Date.UTC(2026, 10, 19, 21, 0))
    // hourly: the first minute at or after each hour (the minute ending on it) after `from`
    expect(hourly.length).toBe(24)
    for (const t of hourly) expect(t % 3_600_000).toBe(0)
  })

  it("finds the tickers a rule is pinned to", () => {
    const pinned = (q: string) => pinnedTickers(compile(q).ast)
    expect(pinned("ticker = 'AAPL' AND (price > 0)")).toEqual(["AAPL"])
    expect(pinned("price > 0 AND ticker IN ('AAPL', 'MSFT')")).toEqual(["AAPL", "MSFT"])
    expect(pinned("ticker IN ('AAPL', 'MSFT') AND ticker = 'MSFT'")).toEqual(["MSFT"])
    expect(pinned("ticker = 'AAPL' OR price > 0")).toBeUndefined()
    expect(pinned("ticker NOT IN ('AAPL')")).toBeUndefined()
    expect(pinned("ticker != 'AAPL'")).toBeUndefined()
    expect(pinned("price > 0")).toBeUndefined()
  })
})
