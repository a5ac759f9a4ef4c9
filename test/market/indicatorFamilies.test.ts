/**
 * A walk that advances only the parts of the state its columns read
 * (`familiesOf`, `commit`/`commitDeferred`/`preview` with `families`) gives
 * those columns exactly as the full engine does: every column, alone and in
 * random sets, over random histories (flat days, zero volumes, gaps), from a
 * fresh state or from a full state taken part-way, or rebuilt part-way with
 * only those parts from only the bars they need (`restoreNeeds`: as a walk
 * restores one from the grid or a checkpoint, into a state of another ticker),
 * previewing every bar or one in a few.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  ALL_FAMILIES,
  COMPUTED_COLUMN_NAMES,
  commit,
  commitDeferred,
  computeDay,
  copyLongSum,
  type DailyBar,
  EQUITY_DAILY,
  epochDay,
  familiesOf,
  finishCommits,
  LONG_SUM_SIZE,
  makeState,
  recursiveScalars,
  restoreFromBars,
  restoreNeeds,
  Scratch,
  type TickerInputs
} from "../../src/market/indicators/index.js"
import { slot } from "../../src/market/indicators/scratch.js"
import { alphaVantage, barArrays, sliceArrays } from "./indicators-fixtures.js"

const INPUTS: TickerInputs = {
  sharesOutstanding: 1e9,
  eps: 2.5,
  forwardEps: 3,
  bookValuePerShare: 12,
  salesPerShare: 30,
  dividendPerShare: 0.8,
  beta: 1.1,
  sharesShort: 2e7,
  institutionalOwnership: 0.6,
  insiderOwnership: 0.05,
  analystTargetPrice: 160,
  earningsDay: epochDay("2024-06-03"),
  newsVolume: 3,
  newsSentiment: 0.2
}

/** Bars with flat stretches, zero volumes and calendar gaps. */
const randomBars = (n: number, seed: number): Array<DailyBar> => {
  let s = seed >>> 0
  const rand = () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0
    return s / 2 ** 32
  }
  const bars: Array<DailyBar> = []
  let prev = 50 + rand() * 100
  let day = epochDay("2023-01-02")
  for (let t = 0; t < n; t++) {
    day += rand() < 0.2 ? 3 : 1
    const flat = rand() < 0.05
    const open = flat ? prev : prev * (1 + (rand() - 0.5) * 0.03)
    const close = flat ? prev : open * (1 + (rand() - 0.5) * 0.05)
    const high = flat ? prev : Math.max(open, close) * (1 + rand() * 0.01)
    const low = flat ? prev : Math.min(open, close) * (1 - rand() * 0.01)
    bars.push({ day, open, high, low, close, volume: rand() < 0.05 ? 0 : Math.round(1e4 + rand() * 1e6) })
    prev = close
  }
  return bars
}

/** Every computed column's value of every bar (null: NaN) by the full engine. */
const fullRows = (bars: ReadonlyArray<DailyBar>): Array<Float64Array> => {
  const st = makeState(EQUITY_DAILY)
  const r = new Scratch()
  return bars.map((bar) => {
    computeDay(st, bar, INPUTS, r)
    commit(st, bar)
    return Float64Array.from(COMPUTED_COLUMN_NAMES, (c) => r.get(slot(c)))
  })
}

/** a state that committed another history (its rings and windows full of other values) */
const used = () => {
  const st = makeState(EQUITY_DAILY)
  for (const bar of randomBars(300, 99)) commit(st, bar)
  return st
}

/**
 * The rows of `columns` by a narrow walk: the full engine for the first `fullFor` bars, then only
 * `familiesOf(columns)`, previewing the bars `t % every === 0` (the others deferred commits).
 * Returns the first mismatch, or undefined.
 */
const narrowMismatch = (
  bars: ReadonlyArray<DailyBar>,
  full: ReadonlyArray<Float64Array>,
  columns: ReadonlyArray<string>,
  fullFor: number,
  every: number,
  /** the state at `fullFor` rebuilt from its recursive scalars and the bars, only `familiesOf(columns)` */
  restored = false
): string | undefined => {
  const families = familiesOf(columns)
  let st = makeState(EQUITY_DAILY)
  const r = new Scratch()
  const indexes = columns.map((c) => COMPUTED_COLUMN_NAMES.indexOf(c))
  let deferred = false
  for (let t = 0; t < bars.length; t++) {
    const bar = bars[t]!
    if (t < fullFor) {
      commit(st, bar)
      if (restored && t === fullFor - 1) {
        // from the fewest bars the parts need (`restoreNeeds`), into a state that held another history
        // (a walk's pooled state: what the restore does not overwrite must not be read)
        const need = Math.min(fullFor, restoreNeeds(EQUITY_DAILY, families))
        const arrays = sliceArrays(barArrays(bars), fullFor - need, fullFor)
        // with the SMA-200's running sum, as the grid keeps it: a year of bars then suffices
        const longSum = new Float64Array(LONG_SUM_SIZE)
        copyLongSum(st, longSum, 0)
        st = restoreFromBars(EQUITY_DAILY, recursiveScalars(st), fullFor, arrays, need, used(), longSum, families)
      }
      continue
    }
    if (t % every !== 0) {
      commitDeferred(st, bar, families)
      deferred = true
      continue
    }
    if (deferred) finishCommits(st, families)
    deferred = false
    computeDay(st, bar, INPUTS, r, families)
    for (let k = 0; k < columns.length; k++) {
      const got = r.get(slot(columns[k]!))
      const want = full[t]![indexes[k]!]!
      if (!Object.is(got, want)) return `${columns[k]} at bar ${t}: ${got} (narrow) vs ${want} (full)`
    }
    commit(st, bar, families)
  }
  return undefined
}

describe("indicator families", () => {
  it("every column alone reads only its families: the same values as the full engine", () => {
    const histories = [randomBars(420, 7), alphaVantage("AAPL", false)]
    for (const bars of histories) {
      const full = fullRows(bars)
      for (const c of COMPUTED_COLUMN_NAMES) {
        expect(narrowMismatch(bars, full, [c], 0, 1)).toBeUndefined()
        expect(narrowMismatch(bars, full, [c], 260, 5)).toBeUndefined()
        expect(narrowMismatch(bars, full, [c], 300, 3, true)).toBeUndefined()
      }
    }
  })

  it("random column sets, restore points and preview rates agree with the full engine", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.integer({ min: 30, max: 400 }),
        fc.subarray([...COMPUTED_COLUMN_NAMES], { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 380 }),
        fc.integer({ min: 1, max: 7 }),
        fc.boolean(),
        (seed, n, columns, fullFor, every, restored) => {
          const bars = randomBars(n, seed)
          expect(narrowMismatch(bars, fullRows(bars), columns, fullFor, every, restored)).toBeUndefined()
        }
      ),
      { numRuns: 60 }
    )
  })

  it("names every part only where a column needs it", () => {
    expect(familiesOf(undefined)).toBe(ALL_FAMILIES)
    expect(familiesOf(["price"])).toBe(0)
    expect(familiesOf(["rsi_14"])).not.toBe(familiesOf(["atr_14"]))
    expect(familiesOf(COMPUTED_COLUMN_NAMES)).toBe(ALL_FAMILIES)
    expect(familiesOf(["rsi_14"])).not.toBe(familiesOf(["sma_50"]))
  })
})
