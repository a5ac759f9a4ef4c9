/**
 * Column kernels (`indicators/kernels.ts`) write the kept columns the general walk writes, bit for bit
 * (values, nulls' zeros and validity): over the simulated market from states restored off its
 * checkpoints, and over made-up closes (flat runs, one-way runs, series shorter than RSI's period)
 * walked from fresh states and from states part way through.
 */
import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import { MarketData } from "../../src/market/engine/MarketData.js"
import { BarSeries, barAt } from "../../src/market/history/barSeries.js"
import type { WalkMarket } from "../../src/market/history/dailyWalk.js"
import { deepGridInMemory } from "../../src/market/history/deepGrid.js"
import { type KeptPlan, keptWalker } from "../../src/market/history/keptWalk.js"
import { freshStart, restoredStart } from "../../src/market/history/walkStart.js"
import { DAY_MS, epochDay } from "../../src/market/indicators/days.js"
import {
  ALL_FAMILIES,
  commit,
  configForAssetType,
  familiesOf,
  makeState,
  SC_COUNT
} from "../../src/market/indicators/index.js"
import { columnKernel, KERNEL_COLUMN_NAMES } from "../../src/market/indicators/kernels.js"
import { loadTickers } from "../../src/market/tickers/index.js"

const NOW = Date.UTC(2026, 10, 20, 18, 30)

/**
 * A plan over those of `slots` that keep a bar (`kept(w)` lists them; `KeptRows.walk` walks only
 * those), its columns filled with what neither walk writes.
 */
const planOf = (
  all: ReadonlyArray<number>,
  kept: (w: number) => ReadonlyArray<number>,
  names: ReadonlyArray<string>,
  toDay: number
): KeptPlan => {
  const every = all.map((_, w) => kept(w))
  const slots = all.filter((_, w) => every[w]!.length > 0)
  const lists = every.filter((l) => l.length > 0)
  const offset = new Int32Array(slots.length + 1)
  lists.forEach((l, w) => {
    offset[w + 1] = offset[w]! + l.length
  })
  const total = offset[slots.length]!
  return {
    slots,
    offset,
    barOf: Int32Array.from(lists.flat()),
    toDay,
    names,
    values: names.map(() => new Float64Array(total).fill(-1)),
    valid: names.map(() => new Uint8Array(total).fill(7))
  }
}

const copy = (plan: KeptPlan): KeptPlan => ({
  ...plan,
  values: plan.values.map((v) => v.slice()),
  valid: plan.valid.map((v) => v.slice())
})

const drain = (g: Generator<void, void>) => {
  for (const _ of g);
}

/** both walks over `plan`: the kernel's columns, then the general walk's */
const bothWalks = (md: WalkMarket, plan: KeptPlan) => {
  const byKernel = copy(plan)
  const byGeneral = copy(plan)
  drain(keptWalker(md, byKernel, "none")(0, plan.slots.length))
  drain(keptWalker(md, byGeneral, "none", true)(0, plan.slots.length))
  return { byKernel, byGeneral }
}

const expectSame = (a: KeptPlan, b: KeptPlan) => {
  for (let c = 0; c < a.names.length; c++) {
    expect(Array.from(a.valid[c]!), a.names[c]).toEqual(Array.from(b.valid[c]!))
    // bit for bit: Object.is tells -0 from 0 and NaN from a number
    const same = Array.from(a.values[c]!).every((x, p) => Object.is(x, b.values[c]![p]))
    expect(same, a.names[c]).toBe(true)
  }
}

/** a random subset of the column kernels' columns, in a random order (never empty) */
const columnsArb = fc
  .shuffledSubarray([...KERNEL_COLUMN_NAMES], { minLength: 1, maxLength: 6 })
  .map((names) => names as ReadonlyArray<string>)

describe("column kernels", () => {
  let md: MarketData
  beforeAll(() => {
    const tickers = loadTickers().filter((_, i) => i % 650 === 0)
    md = MarketData.build({ seed: 11, tickers, historyDays: 120, now: NOW })
  })

  it("exist for the price, some of the day's columns and RSI's only", () => {
    expect(columnKernel(["price", "rsi_14", "day_change_pct"])).toBeDefined()
    expect(columnKernel(["rsi_oversold"])?.families).toBeGreaterThan(0)
    expect(columnKernel(["price"])?.families).toBe(0)
    expect(columnKernel(["rsi_14", "sma_50"])).toBeUndefined()
    expect(columnKernel(["relative_volume"])).toBeUndefined()
  })

  it("write the general walk's columns over the market, from states restored before each ticker's first kept bar", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        columnsArb,
        (seed, keep, names) => {
          let x = seed
          const rand = () => {
            x = (x * 1103515245 + 12345) % 2147483648
            return x / 2147483648
          }
          const slots = [...Array(md.size).keys()]
          const plan = planOf(
            slots,
            (w) => [...Array(md.series[slots[w]!]!.length).keys()].filter(() => rand() < keep),
            names,
            Math.floor(NOW / DAY_MS)
          )
          const { byKernel, byGeneral } = bothWalks(md, plan)
          expectSame(byKernel, byGeneral)
        }
      ),
      { numRuns: 25 }
    )
  })

  it("write the general walk's columns over made-up closes: flat and one-way runs, short series, any start", () => {
    // lengths drawn uniformly (fast-check's default favours a few elements: RSI starts on the 15th bar)
    const closesArb = fc.integer({ min: 1, max: 80 }).chain((n) =>
      fc.array(fc.oneof(fc.constantFrom(10, 10.5, 11), fc.double({ min: 0.01, max: 5000, noNaN: true })), {
        minLength: n,
        maxLength: n
      })
    )
    fc.assert(
      fc.property(
        fc.array(closesArb, { minLength: 1, maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 80, maxLength: 80 }),
        columnsArb,
        (tickers, keepMask, names) => {
          const series = tickers.map((closes) => {
            const s = new BarSeries(closes.length)
            // opens around the close (gaps both ways past the flags' 2%), volumes up and down
            closes.forEach((c, j) => {
              const o = c * (1 + ((j * 5) % 9) / 100 - 0.04)
              s.push(20_000 + j, o, Math.max(o, c) * 1.01, Math.min(o, c) * 0.99, c, 1000 + ((j * 7919) % 3000))
            })
            return s
          })
          const config = configForAssetType("stock")
          const market: WalkMarket = {
            series,
            tickers: series.map(() => ({ asset_type: "stock" })) as unknown as WalkMarket["tickers"],
            size: series.length,
            isCrypto: new Uint8Array(series.length),
            sim: undefined as unknown as WalkMarket["sim"],
            // a fresh state with every bar before `j` committed in full
            stateAt: (i, j) => {
              const st = makeState(config)
              for (let b = 0; b < j; b++) commit(st, barAt(series[i]!, b))
              return st
            },
            // as a recipe (what the kernel starts off): a restore a few bars before `j`, a fresh start with
            // every bar committed, or none (the state, `stateAt`)
            startAt: (i, j, out, at) => {
              const end = Math.max(0, j - (i % 3))
              if (i % 3 === 1) return false
              if (i % 3 === 2 || end === 0) {
                freshStart(out, at, 0, false)
                return true
              }
              const st = makeState(config)
              for (let b = 0; b < end; b++) commit(st, barAt(series[i]!, b))
              restoredStart(out, at, st.hot.subarray(0, SC_COUNT), end, end, undefined, false)
              return true
            }
          }
          const plan = planOf(
            series.map((_, i) => i),
            (w) => [...Array(series[w]!.length).keys()].filter((j) => keepMask[j]),
            names,
            30_000
          )
          const { byKernel, byGeneral } = bothWalks(market, plan)
          expectSame(byKernel, byGeneral)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("write the general walk's columns over series reaching back before the window, from starts off the grid", () => {
    md.adoptDeepGrid(deepGridInMemory(md.deepGridSpec()))
    const slots = [...Array(md.size).keys()]
    const fromDay = epochDay("2011-03-07")
    let x = 17
    const rand = () => {
      x = (x * 1103515245 + 12345) % 2147483648
      return x / 2147483648
    }
    // the series as a kernel's walk reads them (three weeks before the grid day), and as a full walk's (a year)
    for (const names of [
      ["price", "rsi_14", "day_change_pct"],
      ["rsi_oversold", "gap_up", "prev_close"]
    ]) {
      for (const families of [familiesOf(names), ALL_FAMILIES]) {
        const view = md.reachingBack(slots, fromDay, fromDay + 400, families)
        const plan = planOf(
          slots,
          (w) => {
            const s = view.series[w]!
            const from = s.indexAtOrAfter(fromDay - 14)
            return [...Array(s.length).keys()].filter((j) => j >= from && s.days[j]! <= fromDay + 400 && rand() < 0.3)
          },
          names,
          fromDay + 400
        )
        expect(plan.barOf.length).toBeGreaterThan(500)
        const { byKernel, byGeneral } = bothWalks(view, plan)
        expectSame(byKernel, byGeneral)
      }
    }
  }, 120_000)
})
