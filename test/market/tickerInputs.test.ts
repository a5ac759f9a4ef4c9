/**
 * Per-ticker history walks (signal history at 1d/1w/1m/1h, ticker history)
 * read one ticker's fundamentals and news per day without computing every
 * ticker's: the values must be exactly those of the cross-section.
 */
import { beforeAll, describe, expect, it, vi } from "vitest"
import { MarketData } from "../../src/market/engine/MarketData.js"
import { epochDay, isoDate } from "../../src/market/indicators/days.js"
import { allocateFundamentals, type FundamentalColumns } from "../../src/market/sim/index.js"
import type { Snapshot } from "../../src/market/snapshot.js"
import { loadTickers } from "../../src/market/tickers/index.js"

const PICK = new Set(["AAPL", "MSFT", "SPY", "BTC-USD", "KO", "F"])
const tickers = loadTickers().filter((t, i) => PICK.has(t.ticker) || i % 700 === 0)
const FRIDAY_MIDDAY = Date.UTC(2026, 10, 20, 18, 30)
const INPUT_COLUMNS = ["forward_pe", "pe_ratio", "market_cap", "short_interest", "days_to_earnings", "news_volume"]

const value = (s: Snapshot, ticker: string, column: string) => {
  const r = s.index.get(ticker)!
  const col = s.columns.get(column)!
  if (col.kind === "string") throw new Error("string column")
  return col.valid[r] === 0 ? null : col.kind === "boolean" ? col.values[r] === 1 : col.values[r]
}

describe("per-ticker inputs", () => {
  let md: MarketData
  beforeAll(() => {
    md = MarketData.build({ seed: 7, tickers, historyDays: 60, now: FRIDAY_MIDDAY })
  })

  it("gives one ticker's fundamentals and news exactly as the cross-section does", () => {
    const out = allocateFundamentals(3)
    for (const date of ["2026-02-02", "2026-08-14", "2026-11-20", "2019-06-28"]) {
      const all = md.sim.fundamentalsAt(date)
      for (const i of [0, 3, md.size - 1]) {
        md.sim.tickerFundamentalsAt(i, date, out, 2)
        for (const k of Object.keys(all) as Array<keyof FundamentalColumns>) {
          expect(Object.is(out[k][2], all[k][i]), `${k} of slot ${i} on ${date}`).toBe(true)
        }
      }
    }
    for (const at of [FRIDAY_MIDDAY, FRIDAY_MIDDAY - 40 * 86_400_000 + 123_456, Date.UTC(2024, 0, 3, 21)]) {
      const volume = new Float64Array(md.size)
      const sentiment = new Float64Array(md.size)
      const tq = md.sim.newsColumnsAt(at, volume, sentiment)
      const v = new Float64Array(2)
      const s = new Float64Array(2)
      for (let i = 0; i < md.size; i++) {
        expect(md.sim.tickerNewsColumnsAt(i, at, v, s, 1)).toBe(tq)
        expect([v[1], s[1]]).toEqual([volume[i], sentiment[i]])
      }
    }
  })

  it("walks a fundamental or news column's daily history with the values of the as-of snapshots", () => {
    const to = epochDay("2026-11-19")
    const from = to - 20
    for (const ticker of ["AAPL", "BTC-USD", "SPY"]) {
      for (const column of INPUT_COLUMNS) {
        // the walk computes no other ticker's inputs (it did, every day: seconds of blocked event loop)
        const whole = [vi.spyOn(md.sim, "fundamentalsAt"), vi.spyOn(md.sim, "newsColumnsAt")]
        const series = md.dailySeries(ticker, column, from - 400, to).slice(-21)
        md.rowAsOf(ticker, isoDate(to))
        for (const spy of whole) {
          expect(spy).not.toHaveBeenCalled()
          spy.mockRestore()
        }
        expect(series.length).toBeGreaterThan(5)
        for (const p of series) {
          expect(p.value, `${ticker} ${column} ${isoDate(p.day)}`).toBe(
            value(md.snapshotAsOf(isoDate(p.day)), ticker, column)
          )
        }
        const row = md.rowAsOf(ticker, isoDate(to))!
        expect(row.values[column]).toBe(value(md.snapshotAsOf(row.date), ticker, column))
      }
    }
  })
})
