/**
 * The incremental engine on real prices (the Alpha Vantage files in
 * test/fixtures) and on generated ETF and crypto series: fed day by day, every row equals the batch reference (full recomputation) within 1e-9
 * relative, flags exactly; a checkpoint taken anywhere restores to a state
 * that continues identically.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  CRYPTO_DAILY,
  checkpoint,
  commit,
  type DailyBar,
  EQUITY_DAILY,
  epochDay,
  type IndicatorCheckpoint,
  type IndicatorConfig,
  makeState,
  previewValues,
  referenceColumns,
  restore
} from "../../src/market/indicators/index.js"
import { alphaVantage, type Cell, cryptoDaily, rowMismatches, yahooEtf } from "./indicators-fixtures.js"

type Row = Record<string, Cell>

/** Rows of every day from the incremental engine, with JSON checkpoints taken after committing the given days. */
const runIncremental = (
  bars: ReadonlyArray<DailyBar>,
  config: IndicatorConfig,
  checkpointAfter: ReadonlyArray<number>
) => {
  const st = makeState(config)
  const rows: Array<Row> = []
  const checkpoints = new Map<number, string>()
  bars.forEach((bar, t) => {
    rows.push(previewValues(st, bar))
    commit(st, bar)
    if (checkpointAfter.includes(t)) checkpoints.set(t, JSON.stringify(checkpoint(st)))
  })
  return { rows, checkpoints }
}

const expectMatchesReference = (bars: ReadonlyArray<DailyBar>, config: IndicatorConfig, rows: ReadonlyArray<Row>) => {
  const reference = referenceColumns(bars, config)
  const mismatches: Array<string> = []
  for (let t = 0; t < bars.length && mismatches.length < 10; t++)
    mismatches.push(...rowMismatches(rows[t], reference, t))
  expect(mismatches).toEqual([])
}

const expectCheckpointsContinue = (
  bars: ReadonlyArray<DailyBar>,
  rows: ReadonlyArray<Row>,
  checkpoints: ReadonlyMap<number, string>
) => {
  expect(checkpoints.size).toBeGreaterThan(0)
  for (const [t, json] of checkpoints) {
    const st = restore(JSON.parse(json) as IndicatorCheckpoint)
    expect(JSON.stringify(checkpoint(st))).toBe(json)
    for (let u = t + 1; u < bars.length; u++) {
      const row = previewValues(st, bars[u])
      // bit-for-bit the same as the uninterrupted run
      if (u === t + 1 || u === bars.length - 1 || u % 97 === 0)
        expect(row, `restored at ${t}, day ${u}`).toEqual(rows[u])
      commit(st, bars[u])
    }
  }
}

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

describe("incremental indicators on real and generated daily series", () => {
  for (const series of SERIES) {
    it(`equals the batch reference every day and resumes from checkpoints: ${series.name}`, () => {
      const bars = series.bars()
      expect(bars.length).toBeGreaterThan(250)
      const n = bars.length
      const { rows, checkpoints } = runIncremental(bars, series.config, [0, 12, 250, Math.floor(n / 2), n - 3])
      expectMatchesReference(bars, series.config, rows)
      expectCheckpointsContinue(bars, rows, checkpoints)
    })
  }

  it("has the expected history lengths in the fixtures", () => {
    expect(alphaVantage("AAPL", true).length).toBe(5402)
    expect(yahooEtf("SPY").length).toBe(1113)
    expect(cryptoDaily("BTC/USD").length).toBe(2125)
  })

  it("shows the AAPL 2020-08-31 4:1 split in a raw-close SMA but not in the adjusted one", () => {
    const split = epochDay("2020-08-31")
    /** SMA-50 from 2 sessions before the split to 5 after, and the row of the split day */
    const around = (adjusted: boolean) => {
      const bars = alphaVantage("AAPL", adjusted)
      const i = bars.findIndex((b) => b.day === split)
      const st = makeState(EQUITY_DAILY)
      const sma: Array<number> = []
      let splitRow: Row = {}
      bars.slice(0, i + 6).forEach((bar, t) => {
        const row = previewValues(st, bar)
        if (t >= i - 2) sma.push(row.sma_50 as number)
        if (t === i) splitRow = row
        commit(st, bar)
      })
      return { sma, splitRow }
    }
    const raw = around(false)
    const adjusted = around(true)
    const change = (s: ReadonlyArray<number>, from: number, to: number) => s[to] / s[from] - 1
    // before the split both series rise alike (+0.7%/day)
    expect(change(raw.sma, 0, 1)).toBeCloseTo(change(adjusted.sma, 0, 1), 3)
    // on the split day the raw close falls from 499.23 to 129.04: raw SMA-50 turns down by more than 1%
    // (it loses (129.04 - 349.72) / 50 that day), the adjusted SMA-50 keeps rising
    expect(change(raw.sma, 1, 2)).toBeLessThan(-0.01)
    expect(change(adjusted.sma, 1, 2)).toBeGreaterThan(0.005)
    // and the raw SMA keeps sinking for the next 50 sessions while the adjusted one does not
    expect(change(raw.sma, 1, 7)).toBeLessThan(-0.06)
    expect(change(adjusted.sma, 1, 7)).toBeGreaterThan(0.03)
    expect(raw.splitRow.pct_from_sma_50 as number).toBeLessThan(-0.6)
    expect(adjusted.splitRow.pct_from_sma_50 as number).toBeGreaterThan(0)
    expect(raw.splitRow.day_change_pct as number).toBeCloseTo(129.04 / 499.23 - 1, 12)
    expect(adjusted.splitRow.day_change_pct as number).toBeCloseTo(128.624702503 / 124.405824223 - 1, 9)
  })
})

describe("incremental indicators on random bar sequences", () => {
  const barArb = fc.record({
    move: fc.double({ min: -0.2, max: 0.2, noNaN: true }),
    gap: fc.double({ min: -0.05, max: 0.05, noNaN: true }),
    up: fc.double({ min: 0, max: 0.05, noNaN: true }),
    down: fc.double({ min: 0, max: 0.05, noNaN: true }),
    flat: fc.boolean(),
    volume: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10_000_000 })),
    gapDays: fc.integer({ min: 1, max: 4 })
  })

  it("equals the reference and resumes from any checkpoint (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.array(barArb, { minLength: 1, maxLength: 420, size: "max" }),
        fc.boolean(),
        fc.nat(),
        (steps, crypto, cut) => {
          const config = crypto ? CRYPTO_DAILY : EQUITY_DAILY
          let prev = 50
          let day = epochDay("2019-12-20")
          // prices quoted in cents, as real quotes are; flat bars repeat the previous close (untraded days)
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
          const at = cut % bars.length
          const { rows, checkpoints } = runIncremental(bars, config, [at])
          const reference = referenceColumns(bars, config)
          for (let t = 0; t < bars.length; t++) expect(rowMismatches(rows[t], reference, t)).toEqual([])
          expectCheckpointsContinue(bars, rows, checkpoints)
        }
      ),
      { numRuns: 60 }
    )
  })
})
