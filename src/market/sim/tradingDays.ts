/**
 * The calendar the simulator runs on, and a per-epoch-day cache of it.
 *
 * Equities trade on NYSE sessions (09:30 ET to 16:00, or 13:00 on early-close
 * days); crypto trades every UTC calendar day, 00:00 to 24:00 UTC. Dates are
 * `YYYY-MM-DD`; an equity date is a New York date, a crypto date a UTC date.
 */
import { closeInstant, isTradingDay, openInstant } from "../calendar.js"
import { DAY_MS, epochDay, isoDate } from "../indicators/days.js"

/** What the simulator needs from a trading calendar. */
export interface SimCalendar {
  isTradingDay(date: string): boolean
  /** length of the regular session in minutes (390, or 210 on an early close); only asked for trading days */
  sessionMinutes(date: string): number
  /** epoch ms of the session open; only asked for trading days */
  openInstant(date: string): number
}

/** The NYSE calendar of `src/market/calendar.ts`. */
export const NYSE_CALENDAR: SimCalendar = {
  isTradingDay,
  sessionMinutes: (date) => Math.round((closeInstant(date) - openInstant(date)) / 60_000),
  openInstant
}

export const CRYPTO_SESSION_MINUTES = 1440

/** Memoises the calendar by epoch day (the calendar is consulted per day, never per ticker). */
export class TradingDays {
  private readonly minutes = new Map<number, number>()

  constructor(readonly calendar: SimCalendar) {}

  /** Regular-session minutes of an epoch day, 0 when equities do not trade. */
  sessionMinutesOf(day: number): number {
    let m = this.minutes.get(day)
    if (m === undefined) {
      const date = isoDate(day)
      m = this.calendar.isTradingDay(date) ? this.calendar.sessionMinutes(date) : 0
      this.minutes.set(day, m)
    }
    return m
  }

  isTradingDay(day: number): boolean {
    return this.sessionMinutesOf(day) > 0
  }

  /** The first trading day on or after `day`. */
  onOrAfter(day: number): number {
    let d = day
    while (!this.isTradingDay(d)) d++
    return d
  }

  /** The last trading day on or before `day`. */
  onOrBefore(day: number): number {
    let d = day
    while (!this.isTradingDay(d)) d--
    return d
  }
}

export { DAY_MS, epochDay, isoDate }
