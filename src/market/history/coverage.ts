/**
 * How far back a ticker's daily history reaches (docs/market-data.md, "Coverage"): every trading
 * day from 2003-01-02, or from the first trading day of the year it listed where the seed data
 * knows it (`first_year`: a listing's IPO year, a crypto's first year of trading; crypto trades
 * every day, so from January 1).
 */
import { isTradingDay } from "../calendar.js"
import { epochDay, isoDate } from "../indicators/days.js"
import type { TickerMeta } from "../tickers/index.js"

/** The first day of daily history of every ticker the seed does not date later. */
export const HISTORY_START = "2003-01-02"
export const HISTORY_START_DAY = epochDay(HISTORY_START)

/** The epoch day of a ticker's first daily bar. */
export const historyStartDay = (t: Pick<TickerMeta, "asset_type" | "first_year">): number => {
  if (t.first_year === null) return HISTORY_START_DAY
  let day = epochDay(`${t.first_year}-01-01`)
  if (t.asset_type !== "CRYPTO") while (!isTradingDay(isoDate(day))) day++
  return Math.max(day, HISTORY_START_DAY)
}
