/**
 * System universes `top_10` and `top_100`: the most actively traded tickers
 * by 30-day trailing dollar volume, rebalanced monthly on the 1st.
 *
 * Rule: membership effective on the 1st of a month ranks every ticker by the
 * sum of close × volume over its daily bars in the 30 calendar days before
 * that 1st (equities' sessions and crypto's days alike), highest first, ties
 * by ticker ascending. A membership is effective from 00:00 UTC of its 1st
 * until the next 1st; as-of reads use the membership effective on that date.
 */
import type { BarSeries } from "./history/barSeries.js"
import { DAY_MS } from "./indicators/days.js"

export const REBALANCE_METHOD = "30-day-trailing-dollar-volume"
export const TRAILING_DAYS = 30

export interface Membership {
  /** epoch day of the 1st on which this membership takes effect */
  readonly effectiveDay: number
  /** up to 100 tickers, most traded first; `top_10` is the first ten */
  readonly ranked: ReadonlyArray<string>
}

/** Epoch day of the 1st of the month containing `day`. */
export const firstOfMonth = (day: number): number => {
  const d = new Date(day * DAY_MS)
  return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / DAY_MS)
}

/** Epoch day of the 1st of the month after the one containing `day`. */
export const nextFirstOfMonth = (day: number): number => {
  const d = new Date(day * DAY_MS)
  return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / DAY_MS)
}

/** Ranks tickers by dollar volume over the 30 days before `effectiveDay`. */
export const computeMembership = (
  effectiveDay: number,
  tickers: ReadonlyArray<string>,
  series: ReadonlyArray<BarSeries>,
  size = 100
): Membership => {
  const from = effectiveDay - TRAILING_DAYS
  return computeMembershipFrom(
    effectiveDay,
    tickers,
    (t) => {
      const s = series[t]
      let i = s.indexAtOrAfter(from)
      let dollars = 0
      for (; i < s.length && s.days[i] < effectiveDay; i++) dollars += s.close[i] * s.volume[i]
      return dollars
    },
    size
  )
}

/** The ranking of `computeMembership` over each ticker's trailing dollar volume (summed in day order). */
export const computeMembershipFrom = (
  effectiveDay: number,
  tickers: ReadonlyArray<string>,
  dollarsOf: (t: number) => number,
  size = 100
): Membership => {
  const scored: Array<{ ticker: string; dollars: number }> = []
  for (let t = 0; t < tickers.length; t++) {
    const dollars = dollarsOf(t)
    if (dollars > 0) scored.push({ ticker: tickers[t], dollars })
  }
  scored.sort((a, b) => b.dollars - a.dollars || (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0))
  return { effectiveDay, ranked: scored.slice(0, size).map((s) => s.ticker) }
}

/** Every monthly membership whose 1st falls in [fromDay, toDay], oldest first. */
export const computeMemberships = (
  fromDay: number,
  toDay: number,
  tickers: ReadonlyArray<string>,
  series: ReadonlyArray<BarSeries>
): Array<Membership> => {
  const out: Array<Membership> = []
  for (let day = firstOfMonth(fromDay); day <= toDay; day = nextFirstOfMonth(day)) {
    if (day >= fromDay) out.push(computeMembership(day, tickers, series))
  }
  return out
}

/** The membership in effect on `day` (the latest whose 1st is ≤ day), if any. */
export const membershipOn = (memberships: ReadonlyArray<Membership>, day: number): Membership | undefined => {
  let found: Membership | undefined
  for (const m of memberships) {
    if (m.effectiveDay <= day) found = m
    else break
  }
  return found
}
