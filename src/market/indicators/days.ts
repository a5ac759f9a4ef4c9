/**
 * Calendar arithmetic on epoch days (whole UTC days since 1970-01-01), done
 * with integer math so the per-refresh path allocates nothing.
 */
/** Milliseconds in a UTC day. */
export const DAY_MS = 86_400_000

/** Epoch day of a `YYYY-MM-DD` date (a time part, if any, is ignored). */
export const epochDay = (date: string): number => {
  const y = Number(date.slice(0, 4))
  const m = Number(date.slice(5, 7))
  const d = Number(date.slice(8, 10))
  const day = Date.UTC(y, m - 1, d) / DAY_MS
  if (!Number.isInteger(day)) throw new RangeError(`not a YYYY-MM-DD date: ${date}`)
  return day
}

/** Epoch day containing an epoch-milliseconds instant (UTC). */
export const epochDayOfMillis = (millis: number): number => Math.floor(millis / DAY_MS)

/** `YYYY-MM-DD` of an epoch day. */
export const isoDate = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10)

/** Calendar year of an epoch day (proleptic Gregorian, after H. Hinnant's `civil_from_days`). */
const civilYearOfDay = (day: number): number => {
  const z = day + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const month = mp < 10 ? mp + 3 : mp - 9
  return yoe + era * 400 + (month <= 2 ? 1 : 0)
}

/** Epoch day of January 1 of `year` (Hinnant's `days_from_civil` for month 1, day 1). */
const firstDayOfYear = (year: number): number => {
  const y = year - 1 // January counts in the previous March-based year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + 306 - 719_468
}

// the last year asked for, as the range of days it spans: a commit asks for every bar's year
// (10 M times while the market loads), consecutive days almost always in the same year
let cachedYear = Number.NaN
let cachedFrom = 0
let cachedTo = 0

/** Calendar year of an epoch day (proleptic Gregorian). */
export const yearOfDay = (day: number): number => {
  if (day >= cachedFrom && day < cachedTo && Number.isInteger(day)) return cachedYear
  const year = civilYearOfDay(day)
  if (Number.isInteger(day)) {
    cachedYear = year
    cachedFrom = firstDayOfYear(year)
    cachedTo = firstDayOfYear(year + 1)
  }
  return year
}

/** Day of the week, Monday = 0 ... Sunday = 6 (1970-01-01 was a Thursday). */
export const weekdayOfDay = (day: number): number => (((day + 3) % 7) + 7) % 7
