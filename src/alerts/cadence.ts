/**
 * When a webhook is evaluated, by cadence:
 * - `realtime` (and its deprecated alias `1m`): on every data refresh;
 * - `hourly`: on the first refresh at or after the top of each hour (UTC);
 * - `exchange_open`: on the first refresh at or after 09:30 America/New_York
 *   on each NYSE trading day.
 * A cadence is due on a refresh at `now` when one of its instants lies in
 * (the cadence's previous evaluation, now]. A new hourly or exchange_open
 * webhook waits for its next instant.
 */
import { marketSession } from "../market/calendar.js"
import type { Cadence } from "../store/webhooks.js"

const HOUR_MS = 3_600_000

export const CADENCES: ReadonlyArray<Cadence> = ["realtime", "hourly", "exchange_open"]

/** Normalizes a requested cadence: `1m` is `realtime`; `5m`/`15m` and anything else are refused (undefined). */
export const parseCadence = (raw: string): Cadence | undefined => {
  const c = raw.trim().toLowerCase()
  if (c === "1m" || c === "realtime") return "realtime"
  if (c === "hourly" || c === "exchange_open") return c
  return undefined
}

/** The first instant of the cadence strictly after `after` (epoch ms); realtime: the next refresh. */
export const nextInstant = (cadence: Cadence, after: number, refreshMs: number): number => {
  switch (cadence) {
    case "realtime":
      return after + refreshMs
    case "hourly":
      return (Math.floor(after / HOUR_MS) + 1) * HOUR_MS
    case "exchange_open":
      try {
        return marketSession(after).nextOpen
      } catch {
        // outside the calendar's years (1990–2100): never
        return Number.POSITIVE_INFINITY
      }
  }
}

/** Is the cadence due on a refresh at `now`, given when it was last evaluated (undefined: never)? */
export const isDue = (cadence: Cadence, last: number | undefined, now: number): boolean => {
  if (cadence === "realtime") return true
  if (last === undefined) return false
  return nextInstant(cadence, last, 0) <= now
}
