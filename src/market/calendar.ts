/**
 * NYSE trading calendar and America/New_York time, as pure functions.
 *
 * Nothing here reads the clock: every function takes the instant (epoch ms) or
 * the date (`YYYY-MM-DD`) it is about. Dates are calendar dates in New York.
 *
 * Holidays are computed by rule for 1990–2100 (see `nyseHolidays`), plus the
 * unscheduled closures listed in `SPECIAL_CLOSURES`. Dates outside that range
 * throw a RangeError rather than guess. Early closes (13:00 ET) follow the
 * current NYSE rules for every year; irregular early closes of past decades are
 * not modelled. New York time uses the US DST rules (2007 onward: second Sunday
 * of March to first Sunday of November; 1987–2006: first Sunday of April to
 * last Sunday of October), computed arithmetically (no Intl, no tz database).
 *
 * Session semantics (docs/tickers.md, "Trading calendar"):
 * - `equityTradingDate(t)`: the session `t` belongs to: today's session from its
 *   09:30 open onward (through the evening), else the previous trading day's.
 *   Pre-market, weekends and holidays belong to the last session that opened.
 * - `lastClosedTradingDate(t)`: the most recent session whose close is at or before `t`.
 * - `cryptoTradingDate(t)`: the UTC calendar date (crypto's daily state rolls at 00:00 UTC).
 */

import { DAY_MS } from "./indicators/days.js"

export type IsoDate = string

export const MIN_YEAR = 1990
export const MAX_YEAR = 2100

const HOUR_MS = 3_600_000
const MINUTE_MS = 60_000

/** Regular session: 09:30–16:00 ET; early close 13:00 ET. Minutes after local midnight. */
export const OPEN_MINUTES = 9 * 60 + 30
export const CLOSE_MINUTES = 16 * 60
export const EARLY_CLOSE_MINUTES = 13 * 60

/** Unscheduled full-day closures since 1990. */
export const SPECIAL_CLOSURES: Readonly<Record<IsoDate, string>> = {
  "1994-04-27": "National Day of Mourning (Richard Nixon)",
  "2001-09-11": "September 11 attacks",
  "2001-09-12": "September 11 attacks",
  "2001-09-13": "September 11 attacks",
  "2001-09-14": "September 11 attacks",
  "2004-06-11": "National Day of Mourning (Ronald Reagan)",
  "2007-01-02": "National Day of Mourning (Gerald Ford)",
  "2012-10-29": "Hurricane Sandy",
  "2012-10-30": "Hurricane Sandy",
  "2018-12-05": "National Day of Mourning (George H. W. Bush)",
  "2025-01-09": "National Day of Mourning (Jimmy Carter)"
}

// ---------------------------------------------------------------------------
// Day numbers (days since 1970-01-01) and ISO dates

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/

const dayOf = (y: number, m: number, d: number): number => Date.UTC(y, m - 1, d) / DAY_MS

const checkYear = (y: number): void => {
  if (y < MIN_YEAR || y > MAX_YEAR) throw new RangeError(`trading calendar covers ${MIN_YEAR}-${MAX_YEAR}, got ${y}`)
}

/** Day number of an ISO date; throws RangeError on a malformed or out-of-range date. */
const parseDay = (date: IsoDate): number => {
  const m = DATE_RE.exec(date)
  if (m === null) throw new RangeError(`not a YYYY-MM-DD date: ${date}`)
  const y = Number(m[1])
  const mo = Number(m[2])
  const d = Number(m[3])
  const day = dayOf(y, mo, d)
  const back = new Date(day * DAY_MS)
  if (back.getUTCMonth() + 1 !== mo || back.getUTCDate() !== d) throw new RangeError(`not a calendar date: ${date}`)
  checkYear(y)
  return day
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n))

const formatDay = (day: number): IsoDate => {
  const d = new Date(day * DAY_MS)
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`
}

const yearOfDay = (day: number): number => new Date(day * DAY_MS).getUTCFullYear()

/** 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday). */
const weekdayOf = (day: number): number => (((day + 4) % 7) + 7) % 7

const nthWeekday = (y: number, month: number, weekday: number, n: number): number => {
  const first = dayOf(y, month, 1)
  return first + ((weekday - weekdayOf(first) + 7) % 7) + 7 * (n - 1)
}

const lastWeekday = (y: number, month: number, weekday: number): number => {
  const last = dayOf(y, month + 1, 0)
  return last - ((weekdayOf(last) - weekday + 7) % 7)
}

/** Easter Sunday (Gregorian; anonymous algorithm of Meeus/Jones/Butcher). */
export const easterSunday = (year: number): IsoDate => {
  const a = year % 19
  const b = Math.floor(year / 100)
  const c = year % 100
  const d = Math.floor(b / 4)
  const e = b % 4
  const f = Math.floor((b + 8) / 25)
  const g = Math.floor((b - f + 1) / 3)
  const h = (19 * a + b - d - g + 15) % 30
  const i = Math.floor(c / 4)
  const k = c % 4
  const l = (32 + 2 * e + 2 * i - h - k) % 7
  const m = Math.floor((a + 11 * h + 22 * l) / 451)
  const month = Math.floor((h + l - 7 * m + 114) / 31)
  const day = ((h + l - 7 * m + 114) % 31) + 1
  return formatDay(dayOf(year, month, day))
}

/** Saturday holiday → Friday, Sunday holiday → Monday. */
const observed = (day: number): number => {
  const w = weekdayOf(day)
  return w === 6 ? day - 1 : w === 0 ? day + 1 : day
}

// ---------------------------------------------------------------------------
// Holidays and early closes, cached per year

interface YearCalendar {
  readonly holidays: ReadonlyMap<number, string>
  readonly earlyCloses: ReadonlyMap<number, string>
}

const years = new Map<number, YearCalendar>()

const buildYear = (y: number): YearCalendar => {
  const holidays = new Map<number, string>()
  const add = (day: number, name: string) => {
    if (yearOfDay(day) === y) holidays.set(day, name)
  }
  // New Year's Day: a Sunday moves to Monday; a Saturday is not observed (NYSE does not close on Dec 31).
  const jan1 = dayOf(y, 1, 1)
  if (weekdayOf(jan1) === 0) add(jan1 + 1, "New Year's Day (observed)")
  else if (weekdayOf(jan1) !== 6) add(jan1, "New Year's Day")
  if (y >= 1998) add(nthWeekday(y, 1, 1, 3), "Martin Luther King Jr. Day")
  add(nthWeekday(y, 2, 1, 3), "Washington's Birthday")
  add(parseDayUnchecked(easterSunday(y)) - 2, "Good Friday")
  add(lastWeekday(y, 5, 1), "Memorial Day")
  if (y >= 2022) {
    const j = dayOf(y, 6, 19)
    add(observed(j), observed(j) === j ? "Juneteenth" : "Juneteenth (observed)")
  }
  const jul4 = dayOf(y, 7, 4)
  add(observed(jul4), observed(jul4) === jul4 ? "Independence Day" : "Independence Day (observed)")
  add(nthWeekday(y, 9, 1, 1), "Labor Day")
  const thanksgiving = nthWeekday(y, 11, 4, 4)
  add(thanksgiving, "Thanksgiving Day")
  const xmas = dayOf(y, 12, 25)
  add(observed(xmas), observed(xmas) === xmas ? "Christmas Day" : "Christmas Day (observed)")
  for (const [date, name] of Object.entries(SPECIAL_CLOSURES)) {
    if (date.startsWith(`${y}-`)) add(parseDayUnchecked(date), name)
  }

  const earlyCloses = new Map<number, string>()
  const early = (day: number, name: string) => {
    const w = weekdayOf(day)
    if (w >= 1 && w <= 5 && !holidays.has(day)) earlyCloses.set(day, name)
  }
  // Day before Independence Day: only when July 3 is Monday–Thursday (a Friday July 3 is the observed holiday).
  const jul3 = dayOf(y, 7, 3)
  if (weekdayOf(jul3) >= 1 && weekdayOf(jul3) <= 4) early(jul3, "Day before Independence Day")
  early(thanksgiving + 1, "Day after Thanksgiving")
  const dec24 = dayOf(y, 12, 24)
  if (weekdayOf(dec24) >= 1 && weekdayOf(dec24) <= 4) early(dec24, "Christmas Eve")
  return { holidays, earlyCloses }
}

const parseDayUnchecked = (date: IsoDate): number => {
  const m = DATE_RE.exec(date)!
  return dayOf(Number(m[1]), Number(m[2]), Number(m[3]))
}

const yearCalendar = (y: number): YearCalendar => {
  checkYear(y)
  let c = years.get(y)
  if (c === undefined) {
    c = buildYear(y)
    years.set(y, c)
  }
  return c
}

const isTradingDayNum = (day: number): boolean => {
  const w = weekdayOf(day)
  return w !== 0 && w !== 6 && !yearCalendar(yearOfDay(day)).holidays.has(day)
}

const isEarlyCloseNum = (day: number): boolean => yearCalendar(yearOfDay(day)).earlyCloses.has(day)

/** Weekday NYSE closures of a year (rule holidays and special closures), ascending. */
export const nyseHolidays = (year: number): ReadonlyArray<{ readonly date: IsoDate; readonly name: string }> =>
  [...yearCalendar(year).holidays.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([day, name]) => ({ date: formatDay(day), name }))

/** 13:00 ET early closes of a year, ascending. */
export const nyseEarlyCloses = (year: number): ReadonlyArray<{ readonly date: IsoDate; readonly name: string }> =>
  [...yearCalendar(year).earlyCloses.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([day, name]) => ({ date: formatDay(day), name }))

/** The holiday or closure name of a date, or undefined (weekends are not holidays). */
export const holidayName = (date: IsoDate): string | undefined => {
  const day = parseDay(date)
  return yearCalendar(yearOfDay(day)).holidays.get(day)
}

/** A weekday on which NYSE holds a session. */
export const isTradingDay = (date: IsoDate): boolean => isTradingDayNum(parseDay(date))

/** A trading day whose session ends at 13:00 ET. */
export const isEarlyClose = (date: IsoDate): boolean => isEarlyCloseNum(parseDay(date))

const stepTradingDay = (day: number, dir: 1 | -1): number => {
  let d = day + dir
  while (!isTradingDayNum(d)) d += dir
  return d
}

/** The first trading day strictly after `date`. */
export const nextTradingDay = (date: IsoDate): IsoDate => formatDay(stepTradingDay(parseDay(date), 1))

/** The last trading day strictly before `date`. */
export const previousTradingDay = (date: IsoDate): IsoDate => formatDay(stepTradingDay(parseDay(date), -1))

/**
 * Signed count of trading days in (from, to]: positive when `to` is later, negative
 * (minus the count in (to, from]) when earlier, 0 when equal. For trading days a, b:
 * `addTradingDays(a, tradingDaysBetween(a, b)) === b`.
 */
export const tradingDaysBetween = (from: IsoDate, to: IsoDate): number => {
  const a = parseDay(from)
  const b = parseDay(to)
  const [lo, hi, sign] = a <= b ? [a, b, 1] : [b, a, -1]
  let n = 0
  for (let d = lo + 1; d <= hi; d++) if (isTradingDayNum(d)) n++
  return sign * n
}

/** Trading days from `from` to `to`, both inclusive, ascending (empty when from > to). */
export const tradingDaysInRange = (from: IsoDate, to: IsoDate): ReadonlyArray<IsoDate> => {
  const out: Array<IsoDate> = []
  const b = parseDay(to)
  for (let d = parseDay(from); d <= b; d++) if (isTradingDayNum(d)) out.push(formatDay(d))
  return out
}

/**
 * The trading day `n` sessions from `date`: n > 0 counts forward (1 = the next trading
 * day after `date`), n < 0 backward (-1 = the previous one). n = 0 returns `date` when
 * it is a trading day, else the previous trading day (the as-of convention: a weekend
 * reads the Friday).
 */
export const addTradingDays = (date: IsoDate, n: number): IsoDate => {
  if (!Number.isInteger(n)) throw new RangeError(`addTradingDays: n must be an integer, got ${n}`)
  let d = parseDay(date)
  if (n === 0) return formatDay(isTradingDayNum(d) ? d : stepTradingDay(d, -1))
  const dir = n > 0 ? 1 : -1
  for (let k = Math.abs(n); k > 0; k--) d = stepTradingDay(d, dir)
  return formatDay(d)
}

// ---------------------------------------------------------------------------
// America/New_York

const dstCache = new Map<number, readonly [number, number]>()

/** [start, end) of daylight time in `year`, as UTC epoch ms. */
const dstBounds = (year: number): readonly [number, number] => {
  let b = dstCache.get(year)
  if (b === undefined) {
    // 02:00 EST = 07:00 UTC (spring forward); 02:00 EDT = 06:00 UTC (fall back)
    b =
      year >= 2007
        ? [nthWeekday(year, 3, 0, 2) * DAY_MS + 7 * HOUR_MS, nthWeekday(year, 11, 0, 1) * DAY_MS + 6 * HOUR_MS]
        : [nthWeekday(year, 4, 0, 1) * DAY_MS + 7 * HOUR_MS, lastWeekday(year, 10, 0) * DAY_MS + 6 * HOUR_MS]
    dstCache.set(year, b)
  }
  return b
}

/** UTC offset of New York at `epochMs`, in ms (-4 h in daylight time, -5 h otherwise). */
export const nyOffsetMs = (epochMs: number): number => {
  const [start, end] = dstBounds(new Date(epochMs).getUTCFullYear())
  return epochMs >= start && epochMs < end ? -4 * HOUR_MS : -5 * HOUR_MS
}

/** New York calendar date and minutes after local midnight at `epochMs`. */
export const nyLocal = (epochMs: number): { readonly date: IsoDate; readonly minutes: number } => {
  const local = epochMs + nyOffsetMs(epochMs)
  const day = Math.floor(local / DAY_MS)
  return { date: formatDay(day), minutes: Math.floor((local - day * DAY_MS) / MINUTE_MS) }
}

/** New York calendar date at `epochMs`. */
export const nyDate = (epochMs: number): IsoDate => nyLocal(epochMs).date

/**
 * Epoch ms of a New York wall-clock time. In the fall-back hour the later (EST)
 * reading wins; a time inside the spring-forward gap maps one hour on.
 */
const wallToEpoch = (day: number, minutes: number): number => {
  const local = day * DAY_MS + minutes * MINUTE_MS
  const asEst = local + 5 * HOUR_MS
  const asEdt = local + 4 * HOUR_MS
  return nyOffsetMs(asEdt) === -4 * HOUR_MS && nyOffsetMs(asEst) === -4 * HOUR_MS ? asEdt : asEst
}

/** Epoch ms of `hours:minutes` New York time on `date`. */
export const nyWallTime = (date: IsoDate, hours: number, minutes = 0): number =>
  wallToEpoch(parseDay(date), hours * 60 + minutes)

// ---------------------------------------------------------------------------
// Sessions

const requireTradingDay = (day: number, what: string): void => {
  if (!isTradingDayNum(day)) throw new RangeError(`${what}: ${formatDay(day)} is not a trading day`)
}

const openOf = (day: number): number => wallToEpoch(day, OPEN_MINUTES)
const closeOf = (day: number): number => wallToEpoch(day, isEarlyCloseNum(day) ? EARLY_CLOSE_MINUTES : CLOSE_MINUTES)

/** Epoch ms of the 09:30 ET open of a trading day (RangeError on a non-trading day). */
export const openInstant = (date: IsoDate): number => {
  const day = parseDay(date)
  requireTradingDay(day, "openInstant")
  return openOf(day)
}

/** Epoch ms of the 16:00 ET close, or 13:00 ET on an early-close day (RangeError on a non-trading day). */
export const closeInstant = (date: IsoDate): number => {
  const day = parseDay(date)
  requireTradingDay(day, "closeInstant")
  return closeOf(day)
}

const localDay = (epochMs: number): number => Math.floor((epochMs + nyOffsetMs(epochMs)) / DAY_MS)

const sessionDay = (epochMs: number): number => {
  const today = localDay(epochMs)
  checkYear(yearOfDay(today))
  return isTradingDayNum(today) && epochMs >= openOf(today) ? today : stepTradingDay(today, -1)
}

/** The trading date a timestamp belongs to: today's from its open on, else the last session's. */
export const equityTradingDate = (epochMs: number): IsoDate => formatDay(sessionDay(epochMs))

/** The most recent trading date whose close is at or before `epochMs`. */
export const lastClosedTradingDate = (epochMs: number): IsoDate => {
  const today = localDay(epochMs)
  checkYear(yearOfDay(today))
  return formatDay(isTradingDayNum(today) && epochMs >= closeOf(today) ? today : stepTradingDay(today, -1))
}

/** Crypto's daily state date: the UTC calendar date of `epochMs`. */
export const cryptoTradingDate = (epochMs: number): IsoDate => formatDay(Math.floor(epochMs / DAY_MS))

export interface MarketSession {
  /** regular session in progress at the instant */
  readonly open: boolean
  /** `equityTradingDate` of the instant */
  readonly tradingDate: IsoDate
  /** open and close of `tradingDate`'s session (epoch ms) */
  readonly opensAt: number
  readonly closesAt: number
  /** first open strictly after the instant (epoch ms) */
  readonly nextOpen: number
  /** first close strictly after the instant (epoch ms): `closesAt` while open */
  readonly nextClose: number
  /** `tradingDate` closes at 13:00 ET */
  readonly earlyClose: boolean
}

/** The NYSE session state at `epochMs`. */
export const marketSession = (epochMs: number): MarketSession => {
  const today = localDay(epochMs)
  const day = sessionDay(epochMs)
  const opensAt = openOf(day)
  const closesAt = closeOf(day)
  const open = epochMs >= opensAt && epochMs < closesAt
  const todayTrades = isTradingDayNum(today)
  const nextOpen = todayTrades && epochMs < openOf(today) ? openOf(today) : openOf(stepTradingDay(today, 1))
  const nextClose = open
    ? closesAt
    : todayTrades && epochMs < closeOf(today)
      ? closeOf(today)
      : closeOf(stepTradingDay(today, 1))
  return { open, tradingDate: formatDay(day), opensAt, closesAt, nextOpen, nextClose, earlyClose: isEarlyCloseNum(day) }
}
