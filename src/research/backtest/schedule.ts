/**
 * A backtest's calendar: the rebalance days of a range and each one's exit
 * day. Rebalances fall on NYSE trading days: every one (`1d`), the first of
 * each calendar week, Monday to Sunday (`1w`), the first of each calendar
 * month (`1mo`) — a week's or a month's first trading day that lies before
 * `from` is not in the range, so a range starting mid-week starts with the
 * next week. A position is held `hold` trading days: bought at the close of
 * the rebalance day, sold at the close `hold` sessions later. Pure.
 */
import { addTradingDays, isTradingDay } from "../../market/calendar.js"
import { epochDay, isoDate } from "../../market/indicators/days.js"

export const EVERY = ["1d", "1w", "1mo"] as const
export type Every = (typeof EVERY)[number]

/** The Monday (epoch day) of the calendar week of `day` (epoch day 0 was a Thursday). */
export const weekOf = (day: number): number => day - ((day + 3) % 7)

/** The first day (epoch day) of the calendar month of `day`. */
export const monthOf = (day: number): number => epochDay(`${isoDate(day).slice(0, 7)}-01`)

const periodOf: Record<Every, (day: number) => number> = { "1d": (day) => day, "1w": weekOf, "1mo": monthOf }

/** The rebalance days (epoch days, ascending) from `fromDay` to `toDay`, inclusive. */
export const rebalanceDays = (fromDay: number, toDay: number, every: Every): Array<number> => {
  const period = periodOf[every]
  const out: Array<number> = []
  // the first trading day of each period: a trading day whose period has had none before it
  let previous = Number.NaN
  for (let day = period(fromDay); day <= toDay; day++) {
    if (!isTradingDay(isoDate(day))) continue
    const p = period(day)
    if (p !== previous && day >= fromDay) out.push(day)
    previous = p
  }
  return out
}

/** The exit day of a position bought at the close of `day`: `hold` trading days later. */
export const exitDay = (day: number, hold: number): number => epochDay(addTradingDays(isoDate(day), hold))
