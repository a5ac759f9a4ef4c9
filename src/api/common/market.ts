/**
 * The market as request handlers read it: behind a 503 (Retry-After 2) while it
 * loads, and the `as_of` of a live answer.
 */
import { Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { PLAN_LIMITS } from "../../accounts/plans.js"
import type { DailySnapshot, MarketReader } from "../../market/engine/MarketData.js"
import { HISTORY_START_DAY } from "../../market/history/coverage.js"
import { epochDay, isoDate } from "../../market/indicators/days.js"
import { Market } from "../../market/Market.js"
import type { Snapshot } from "../../market/snapshot.js"
import { HistoryWindowExceeded, ServiceUnavailable } from "../errors.js"

/** The loaded market, or 503 `service_unavailable` (Retry-After 2) while it loads. */
export const marketData: Effect.Effect<MarketReader, ServiceUnavailable, Market> = Effect.flatMap(Market, (m) =>
  Effect.mapError(m.data, (e) => new ServiceUnavailable({ message: e.message, details: { retry_after: 2 } }))
)

/** The latest live snapshot, or 503 while the market loads. */
export const liveSnapshot: Effect.Effect<Snapshot, ServiceUnavailable, Market> = Effect.flatMap(Market, (m) =>
  Effect.mapError(m.latest, (e) => new ServiceUnavailable({ message: e.message, details: { retry_after: 2 } }))
)

/**
 * Every ticker's daily row as of `asof` (a scan's or a signal's as-of form), or 400
 * `history_window_exceeded` for a date on or after 2003-01-02 (where data exists) but before the
 * whole-market history the market holds (its window and warm-up year): rows there are not
 * computed for the whole market yet — one ticker's are (`GET /v2/tickers/{ticker}?asof=`) — and an
 * empty answer would say that nothing matched.
 */
export const asOfSnapshot = (
  md: MarketReader,
  key: AuthenticatedKey,
  asof: string
): Effect.Effect<DailySnapshot, HistoryWindowExceeded> => {
  const earliest = md.earliestDay
  // before 2003 (the data's start) no ticker has a state: the spec's empty answer is the truth there
  const day = epochDay(asof)
  if (day >= earliest || day < HISTORY_START_DAY) return Effect.sync(() => md.snapshotAsOf(asof))
  return Effect.fail(
    new HistoryWindowExceeded({
      message: `asof ${asof} is before the whole-market daily history (from ${isoDate(earliest)}); one ticker's rows reach back to its first day: GET /v2/tickers/{ticker}?asof=`,
      details: {
        max_history_days: PLAN_LIMITS[key.account.plan].maxHistoryDays,
        earliest_allowed_from: isoDate(earliest)
      }
    })
  )
}

let lastAsOf = Number.NaN
let lastIso = ""

/** `as_of` of a snapshot: ISO 8601 (the last one written is kept: every live answer asks for it). */
export const isoAsOf = (snapshot: Snapshot): string => {
  if (snapshot.asOf !== lastAsOf) {
    lastIso = new Date(snapshot.asOf).toISOString()
    lastAsOf = snapshot.asOf
  }
  return lastIso
}
