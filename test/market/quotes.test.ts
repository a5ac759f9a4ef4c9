/**
 * A live feed's trades (issue 17, item 7): a ticker's quotes of its current session make the live
 * row's bar; once the session closed the bar is the day's bar in the history (no simulated minutes
 * that day); once the next session began it is a completed day to import, and imported it gives
 * the same rows a market started afresh over it gives.
 */
import { describe, expect, it } from "vitest"
import { closeInstant, openInstant } from "../../src/market/calendar.js"
import { MarketData, type Quote } from "../../src/market/engine/MarketData.js"
import { barAt } from "../../src/market/history/barSeries.js"
import { epochDay } from "../../src/market/indicators/days.js"
import type { Snapshot } from "../../src/market/snapshot.js"
import { loadTickers } from "../../src/market/tickers/index.js"

const PICK = new Set(["AAPL", "MSFT", "SPY", "BTC-USD", "ETH-USD", "KO"])
const tickers = loadTickers().filter((t, i) => PICK.has(t.ticker) || i % 900 === 0)
const FRIDAY = "2026-11-20"
/** Friday 2026-11-20, 13:30 New York */
const FRIDAY_MIDDAY = Date.UTC(2026, 10, 20, 18, 30)
const OPEN = openInstant(FRIDAY)
const MIN = 60_000

const build = (now = FRIDAY_MIDDAY) => MarketData.build({ seed: 5, tickers, historyDays: 20, now })

const value = (s: Snapshot, ticker: string, column: string): number | boolean | null => {
  const r = s.index.get(ticker)!
  const col = s.columns.get(column)!
  if (col.kind === "string") throw new Error("a string column")
  return col.valid[r] === 0 ? null : col.kind === "boolean" ? col.values[r] === 1 : col.values[r]
}

const q = (ticker: string, at: number, price: number, size: number): Quote => ({ ticker, at, price, size })

const lastClose = (md: MarketData, ticker: string) => {
  const s = md.series[md.index.get(ticker)!]
  return barAt(s, s.length - 1).close
}

describe("quotes from a live feed", () => {
  it("make the live row's session bar: open, extremes, last price, summed volume, VWAP", () => {
    const md = build()
    const prev = lastClose(md, "AAPL")
    const outcome = md.applyQuotes(
      [q("AAPL", OPEN + MIN, 200, 100), q("AAPL", OPEN + 30 * MIN, 210, 300), q("AAPL", OPEN + 60 * MIN, 195, 100)],
      FRIDAY_MIDDAY
    )
    expect(outcome).toEqual({ accepted: 3, rejected: {} })
    // an earlier trade reported late moves the open; one before the last trade leaves the close
    md.applyQuotes([q("AAPL", OPEN, 199, 100), q("AAPL", OPEN + 45 * MIN, 220, 100)], FRIDAY_MIDDAY)
    const live = md.refresh(FRIDAY_MIDDAY)
    expect(value(live, "AAPL", "price")).toBe(195)
    expect(value(live, "AAPL", "day_open")).toBe(199)
    expect(value(live, "AAPL", "day_high")).toBe(220)
    expect(value(live, "AAPL", "day_low")).toBe(195)
    expect(value(live, "AAPL", "volume_today")).toBe(700)
    expect(value(live, "AAPL", "day_vwap")).toBeCloseTo((199 + 200 + 3 * 210 + 195 + 220) / 7, 9)
    expect(value(live, "AAPL", "day_change_pct")).toBeCloseTo(195 / prev - 1, 12)
    // a ticker without quotes keeps the simulated session, identical to a market without any quotes
    const plain = build().refresh(FRIDAY_MIDDAY)
    for (const c of ["price", "volume_today", "rsi_14"]) expect(value(live, "MSFT", c)).toBe(value(plain, "MSFT", c))
  })

  it("turns away what is not a trade of a ticker's current session, and says why", () => {
    const md = build()
    const crypto = Date.UTC(2026, 10, 20, 0, 0)
    const outcome = md.applyQuotes(
      [
        q("ZZZZ9", OPEN + MIN, 10, 1), // not tracked
        q("AAPL", OPEN + MIN, 0, 1), // no price
        q("AAPL", OPEN + MIN, Number.NaN, 1),
        q("AAPL", OPEN + MIN, 10, -1), // negative size
        q("AAPL", FRIDAY_MIDDAY + MIN, 10, 1), // after now
        q("AAPL", OPEN - MIN, 10, 1), // before the open
        q("AAPL", closeInstant("2026-11-19") - MIN, 10, 1), // yesterday's session
        q("BTC-USD", crypto - 1, 90_000, 1), // crypto: the UTC day before
        q("BTC-USD", crypto, 90_000, 0.5) // crypto: the UTC day's first instant
      ],
      FRIDAY_MIDDAY
    )
    expect(outcome).toEqual({
      accepted: 1,
      rejected: { untracked: 1, invalid: 3, future: 1, outside_session: 3 }
    })
    expect(value(md.refresh(FRIDAY_MIDDAY), "BTC-USD", "day_open")).toBe(90_000)
  })

  it("close the session into the day's bar, importable once the next session began, as a restart reads it", () => {
    const md = build()
    md.applyQuotes([q("KO", OPEN + MIN, 70, 1000), q("KO", OPEN + 90 * MIN, 72.5, 500)], FRIDAY_MIDDAY)
    const afterClose = closeInstant(FRIDAY) + MIN
    md.applyQuotes([q("KO", closeInstant(FRIDAY) - MIN, 71.25, 2000)], afterClose)
    const live = md.refresh(afterClose)
    const ko = md.index.get("KO")!
    const s = md.series[ko]
    expect(barAt(s, s.length - 1)).toEqual({
      day: epochDay(FRIDAY),
      open: 70,
      high: 72.5,
      low: 70,
      close: 71.25,
      volume: 3500
    })
    // the bar is final: a trade reported after the refresh that closed it is turned away
    expect(md.applyQuotes([q("KO", closeInstant(FRIDAY) - 2 * MIN, 80, 1)], afterClose).rejected).toEqual({ final: 1 })
    // the live row after the close is the day's row; no simulated minutes that day
    const daily = md.snapshotAsOf(FRIDAY)
    for (const c of ["price", "day_change_pct", "rsi_14", "sma_50", "volume_today"]) {
      expect(value(daily, "KO", c), c).toBe(value(live, "KO", c))
    }
    expect(md.intradaySeries("KO", "price", "1m", OPEN, afterClose, 500)).toEqual([])
    expect(md.intradaySeries("MSFT", "price", "1m", OPEN, afterClose, 500).length).toBeGreaterThan(300)
    // Friday is the current equity session until Monday's open: not yet a completed day
    expect(md.completedQuoteBars(afterClose).size).toBe(0)

    const monday = openInstant("2026-11-23") + 5 * MIN
    md.refresh(monday)
    const done = md.completedQuoteBars(monday)
    expect([...done]).toEqual([
      ["KO", [{ ticker: "KO", date: FRIDAY, open: 70, high: 72.5, low: 70, close: 71.25, volume: 3500 }]]
    ])
    const committed = md.snapshotAsOf(FRIDAY)
    md.importBars(done, monday)
    expect(md.completedQuoteBars(monday).size).toBe(0)
    // a market started on Monday over the stored bar reads the same rows (its window one session
    // longer: the same first day, so the recursive indicators start from the same bar)
    const restarted = MarketData.build({ seed: 5, tickers, historyDays: 21, now: monday, imported: done })
    expect(restarted.windowStart).toBe(md.windowStart)
    for (const c of ["price", "day_change_pct", "rsi_14", "sma_50", "volume_today", "ema_200"]) {
      expect(value(md.snapshotAsOf(FRIDAY), "KO", c), c).toBe(value(restarted.snapshotAsOf(FRIDAY), "KO", c))
      expect(value(md.latest, "KO", c), c).toBe(value(restarted.latest, "KO", c))
    }
    expect(value(committed, "KO", "price")).toBe(71.25)
  })
})
