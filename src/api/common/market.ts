/**
 * The market as request handlers read it: behind a 503 (Retry-After 2) while it
 * loads, and the `as_of` of a live answer.
 */
import { Duration, Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { DeepHistory } from "../../market/DeepHistory.js"
import { DEEP_WALK_MAX_BARS } from "../../market/engine/deepWalk.js"
import { CARRY_FORWARD_DAYS, type DailySnapshot, type MarketReader } from "../../market/engine/MarketData.js"
import { HISTORY_START_DAY } from "../../market/history/coverage.js"
import { epochDay, isoDate } from "../../market/indicators/days.js"
import { Market } from "../../market/Market.js"
import type { Snapshot } from "../../market/snapshot.js"
import { BadRequest, ServiceUnavailable } from "../errors.js"

/** The loaded market, or 503 `service_unavailable` (Retry-After 2) while it loads. */
export const marketData: Effect.Effect<MarketReader, ServiceUnavailable, Market> = Effect.flatMap(Market, (m) =>
  Effect.mapError(m.data, (e) => new ServiceUnavailable({ message: e.message, details: { retry_after: 2 } }))
)

/** The latest live snapshot, or 503 while the market loads. */
export const liveSnapshot: Effect.Effect<Snapshot, ServiceUnavailable, Market> = Effect.flatMap(Market, (m) =>
  Effect.mapError(m.latest, (e) => new ServiceUnavailable({ message: e.message, details: { retry_after: 2 } }))
)

/**
 * Every ticker's daily row as of `asof` (a scan's or a signal's as-of form). Before the window the
 * market holds, rows come off the whole market's history since 2003 (`DeepHistory`): while that is
 * still being built after a first start, 503 `service_unavailable` with a Retry-After — never an
 * empty answer, which would say that nothing matched.
 */
export const asOfSnapshot = (
  md: MarketReader,
  _key: AuthenticatedKey,
  asof: string
): Effect.Effect<DailySnapshot, ServiceUnavailable, DeepHistory> =>
  Effect.zipRight(
    asOfReadable(md, epochDay(asof)),
    Effect.sync(() => md.snapshotAsOf(asof))
  )

/** Succeeds when the whole market's rows of `day` can be read (see `asOfSnapshot`); 503 while they are built. */
export const asOfReadable = (md: MarketReader, day: number): Effect.Effect<void, ServiceUnavailable, DeepHistory> =>
  Effect.flatMap(DeepHistory, (deep) =>
    deep.readable(md, day).pipe(
      Effect.mapError(
        (e) =>
          new ServiceUnavailable({
            message: e.message,
            details: { retry_after: Math.round(Duration.toSeconds(deep.retryAfter)) }
          })
      )
    )
  )

/**
 * The market a history walk from `fromDay` over `slots` reads (a backtest, a dry-run): the market
 * itself, or — starting before the window — the market with those tickers' series reaching back
 * to it (`MarketReader.reachingBack`): 503 while the whole market's history is being built, 400
 * naming the size past `DEEP_WALK_MAX_BARS` bars before the window (`what` names the request).
 */
export const walkReader = (
  md: MarketReader,
  slots: ReadonlyArray<number>,
  fromDay: number,
  what: string
): Effect.Effect<MarketReader, ServiceUnavailable | BadRequest, DeepHistory> =>
  Effect.gen(function* () {
    if (fromDay - CARRY_FORWARD_DAYS >= md.wholeMarketFrom) return md
    yield* asOfReadable(md, Math.max(fromDay - CARRY_FORWARD_DAYS, HISTORY_START_DAY))
    const sessions = Math.ceil((md.wholeMarketFrom - fromDay + CARRY_FORWARD_DAYS) * 0.72)
    if (sessions * slots.length > DEEP_WALK_MAX_BARS) {
      return yield* new BadRequest({
        message: `this ${what} reaches ${slots.length} tickers back ${sessions} sessions before ${isoDate(md.wholeMarketFrom)} (the start of the history held in memory), more than ${DEEP_WALK_MAX_BARS.toLocaleString("en-US")} bars in all: scope it with a universe or start it later`
      })
    }
    return md.reachingBack(slots, fromDay)
  })

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
