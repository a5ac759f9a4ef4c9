/**
 * The light restore: a state rebuilt by `restoreFromBars` from its recursive
 * scalars and the bar arrays, at many points of real and generated daily series, is the
 * original state bit-for-bit (same checkpoint), previews the next days exactly
 * like it and continues identically. With only a recent tail of the bars it
 * agrees within 1e-12 and is bit-for-bit again after 199 commits.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type BarArrays,
  CRYPTO_DAILY,
  checkpoint,
  commit,
  type DailyBar,
  type DailyState,
  EQUITY_DAILY,
  epochDay,
  type IndicatorCheckpoint,
  type IndicatorConfig,
  makeState,
  previewValues,
  recursiveScalars,
  restore,
  restoreFromBars,
  SC_COUNT
} from "../../src/market/indicators/index.js"
import {
  alphaVantage,
  barArrays,
  type Cell,
  cryptoDaily,
  rowMismatches,
  sliceArrays,
  syntheticBars,
  yahooEtf
} from "./indicators-fixtures.js"

type Row = Record<string, Cell>

interface Run {
  readonly rows: ReadonlyArray<Row>
  /** after committing bars[0..t]: the recursive scalars and the full checkpoint */
  readonly scalars: ReadonlyMap<number, Float64Array>
  readonly checkpoints: ReadonlyMap<number, string>
}

const run = (bars: ReadonlyArray<DailyBar>, config: IndicatorConfig, points: ReadonlySet<number>): Run => {
  const st = makeState(config)
  const rows: Array<Row> = []
  const scalars = new Map<number, Float64Array>()
  const checkpoints = new Map<number, string>()
  bars.forEach((bar, t) => {
    rows.push(previewValues(st, bar))
    commit(st, bar)
    if (points.has(t)) {
      scalars.set(t, recursiveScalars(st))
      checkpoints.set(t, JSON.stringify(checkpoint(st)))
    }
  })
  return { rows, scalars, checkpoints }
}

/** Every 23rd day plus the days around each window's first value and first re-summations. */
const pointsOf = (n: number): Set<number> => {
  const special = [
    0, 1, 2, 12, 13, 14, 15, 25, 26, 27, 32, 33, 34, 35, 197, 198, 199, 200, 250, 251, 252, 253, 364, 365, 366, 395,
    396, 397, 398, 399
  ]
  const points = new Set(special.filter((t) => t < n - 1))
  for (let t = 0; t < n - 1; t += 23) points.add(t)
  points.add(n - 2)
  return points
}

const columnsOf = (rows: ReadonlyArray<Row>): Map<string, Array<Cell>> =>
  new Map(Object.keys(rows[0]).map((name) => [name, rows.map((r) => r[name])]))

const SERIES: ReadonlyArray<{
  readonly name: string
  readonly bars: () => ReadonlyArray<DailyBar>
  readonly config: IndicatorConfig
}> = [
  { name: "AAPL adjusted (Alpha Vantage, 1999-2021)", bars: () => alphaVantage("AAPL", true), config: EQUITY_DAILY },
  { name: "MSFT adjusted (Alpha Vantage, 1999-2021)", bars: () => alphaVantage("MSFT", true), config: EQUITY_DAILY },
  { name: "CARR raw, a 2020 listing (275 days)", bars: () => alphaVantage("CARR", false), config: EQUITY_DAILY },
  { name: "SPY-like ETF in Yahoo's format (generated, 2017-2021)", bars: () => yahooEtf("SPY"), config: EQUITY_DAILY },
  {
    name: "BTC/USD-like coin (generated, 2020-2025, 7-day weeks)",
    bars: () => cryptoDaily("BTC/USD"),
    config: CRYPTO_DAILY
  }
]

describe("restoreFromBars on real and generated daily series", () => {
  for (const series of SERIES) {
    it(`rebuilds the state bit-for-bit at every point and continues identically: ${series.name}`, () => {
      const bars = series.bars()
      const n = bars.length
      const arrays = barArrays(bars)
      const points = pointsOf(n)
      const { rows, scalars, checkpoints } = run(bars, series.config, points)
      const reused = makeState(series.config)
      const followThrough = new Set([0, 250, Math.floor(n / 2)])
      for (const t of points) {
        const sc = scalars.get(t)!
        expect(sc.length).toBe(SC_COUNT)
        const st = restoreFromBars(series.config, sc, t + 1, arrays, t + 1)
        expect(JSON.stringify(checkpoint(st)), `rebuilt after day ${t}`).toBe(checkpoints.get(t))
        // restoring into a used state gives the same
        restoreFromBars(series.config, sc, t + 1, arrays, t + 1, reused)
        expect(JSON.stringify(checkpoint(reused)), `rebuilt into a used state after day ${t}`).toBe(checkpoints.get(t))
        const last = followThrough.has(t) ? n - 1 : Math.min(n - 1, t + 25)
        for (let u = t + 1; u <= last; u++) {
          expect(previewValues(st, bars[u]), `rebuilt after day ${t}, day ${u}`).toEqual(rows[u])
          commit(st, bars[u])
        }
      }
    })
  }

  it("rebuilds from only the latest yearDays bars within 1e-12, and bit-for-bit again after 199 commits", () => {
    for (const series of SERIES) {
      const bars = series.bars()
      const n = bars.length
      if (n < 700) continue
      const arrays = barArrays(bars)
      const points = new Set([400, 401, 598, Math.floor(n / 2), n - 260])
      const { rows, scalars, checkpoints } = run(bars, series.config, points)
      const reference = columnsOf(rows)
      const keep = series.config.yearDays
      for (const t of points) {
        const tail = sliceArrays(arrays, t + 1 - keep, t + 1)
        const st = restoreFromBars(series.config, scalars.get(t)!, t + 1, tail, keep)
        const original = restore(JSON.parse(checkpoints.get(t)!) as IndicatorCheckpoint)
        for (let u = t + 1; u <= t + 199; u++) {
          expect(rowMismatches(previewValues(st, bars[u]), reference, u, 1e-12), `${series.name} ${t}/${u}`).toEqual([])
          commit(st, bars[u])
          commit(original, bars[u])
        }
        expect(JSON.stringify(checkpoint(st)), `${series.name} after ${t}`).toBe(JSON.stringify(checkpoint(original)))
      }
    }
  })
})

describe("restoreFromBars on random bar sequences", () => {
  const barArb = fc.record({
    move: fc.double({ min: -0.2, max: 0.2, noNaN: true }),
    gap: fc.double({ min: -0.05, max: 0.05, noNaN: true }),
    up: fc.double({ min: 0, max: 0.05, noNaN: true }),
    down: fc.double({ min: 0, max: 0.05, noNaN: true }),
    flat: fc.boolean(),
    volume: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10_000_000 })),
    gapDays: fc.integer({ min: 1, max: 4 })
  })

  it("rebuilds bit-for-bit at any point and continues identically (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.array(barArb, { minLength: 2, maxLength: 520, size: "max" }),
        fc.boolean(),
        fc.nat(),
        (steps, crypto, cut) => {
          const config = crypto ? CRYPTO_DAILY : EQUITY_DAILY
          let prev = 50
          let day = epochDay("2019-12-20")
          const cents = (x: number) => Math.max(0.01, Math.round(x * 100) / 100)
          const bars = steps.map((s) => {
            day += s.gapDays
            const open = s.flat ? prev : cents(prev * (1 + s.gap))
            const close = s.flat ? prev : cents(open * (1 + s.move))
            const bar = {
              day,
              open,
              close,
              high: s.flat ? prev : cents(Math.max(open, close) * (1 + s.up)),
              low: s.flat ? prev : cents(Math.min(open, close) * (1 - s.down)),
              volume: s.volume
            }
            prev = close
            return bar
          })
          const at = cut % (bars.length - 1)
          const { rows, scalars, checkpoints } = run(bars, config, new Set([at]))
          const st = restoreFromBars(config, scalars.get(at)!, at + 1, barArrays(bars), at + 1)
          expect(JSON.stringify(checkpoint(st))).toBe(checkpoints.get(at))
          for (let u = at + 1; u < bars.length; u++) {
            expect(previewValues(st, bars[u])).toEqual(rows[u])
            commit(st, bars[u])
          }
        }
      ),
      { numRuns: 60 }
    )
  })
})

describe("restoreFromBars arguments", () => {
  const bars = syntheticBars(300, epochDay("2021-01-04"), 4)
  const arrays: BarArrays = barArrays(bars)
  const committed = (k: number): DailyState => {
    const st = makeState(EQUITY_DAILY)
    for (let t = 0; t < k; t++) commit(st, bars[t])
    return st
  }

  it("gives a fresh state for no history, also into a used state", () => {
    const fresh = JSON.stringify(checkpoint(makeState(EQUITY_DAILY)))
    const sc = recursiveScalars(makeState(EQUITY_DAILY))
    expect(JSON.stringify(checkpoint(restoreFromBars(EQUITY_DAILY, sc, 0, arrays, 0)))).toBe(fresh)
    const used = committed(120)
    expect(JSON.stringify(checkpoint(restoreFromBars(EQUITY_DAILY, sc, 0, arrays, 0, used)))).toBe(fresh)
  })

  it("returns a copy of the recursive scalars", () => {
    const st = committed(50)
    const sc = recursiveScalars(st)
    sc.fill(0)
    expect(recursiveScalars(st)).not.toEqual(sc)
  })

  it("rejects inconsistent arguments", () => {
    const sc = recursiveScalars(committed(260))
    expect(() => restoreFromBars(EQUITY_DAILY, sc.subarray(1), 260, arrays, 260)).toThrow(RangeError)
    // the scalars are of day 259, not 258 or 260
    expect(() => restoreFromBars(EQUITY_DAILY, sc, 259, arrays, 259)).toThrow(RangeError)
    expect(() => restoreFromBars(EQUITY_DAILY, sc, 261, arrays, 261)).toThrow(RangeError)
    // too few bars for the 252-day rings, fewer bars than endExclusive, count below endExclusive
    expect(() => restoreFromBars(EQUITY_DAILY, sc, 260, sliceArrays(arrays, 10, 260), 250)).toThrow(RangeError)
    expect(() => restoreFromBars(EQUITY_DAILY, sc, 260, sliceArrays(arrays, 0, 200), 260)).toThrow(RangeError)
    expect(() => restoreFromBars(EQUITY_DAILY, sc, 250, arrays, 260)).toThrow(RangeError)
    expect(() => restoreFromBars(EQUITY_DAILY, sc, 260, arrays, 260, makeState(CRYPTO_DAILY))).toThrow(RangeError)
    expect(() => restoreFromBars(EQUITY_DAILY, sc, 260, arrays, 260)).not.toThrow()
  })
})
