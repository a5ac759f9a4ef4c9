/**
 * The market as request handlers read it: behind a 503 (Retry-After 2) while it
 * loads, and the `as_of` of a live answer.
 */
import { Duration, Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { DeepHistory } from "../../market/DeepHistory.js"
import { type WalkStretch, walkStretchesOf } from "../../market/engine/deepWalk.js"
import { CARRY_FORWARD_DAYS, type DailySnapshot, type MarketReader } from "../../market/engine/MarketData.js"
import { HISTORY_START_DAY } from "../../market/history/coverage.js"
import { epochDay } from "../../market/indicators/days.js"
import { Market } from "../../market/Market.js"
import type { Snapshot } from "../../market/snapshot.js"
import { ServiceUnavailable } from "../errors.js"

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
 * The stretches a history walk over `slots` from `fromDay` to `toDay` (a backtest, a dry-run) reads,
 * each with `tail` days of bars past its end (`walkStretchesOf`): the market itself where the window
 * holds the days; before it, stretches of the walked tickers' series reaching back (a few hundred MB
 * at a time, whatever the walk's length and breadth). 503 while the whole market's history is being
 * built.
 */
export const walkStretches = (
  md: MarketReader,
  slots: ReadonlyArray<number>,
  fromDay: number,
  toDay: number,
  tail: number,
  /** the columns the walk keeps: its series reach back only as far as restoring their parts reads, and hold only what they read */
  columns: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<WalkStretch>, ServiceUnavailable, DeepHistory> =>
  Effect.gen(function* () {
    if (fromDay - CARRY_FORWARD_DAYS < md.wholeMarketFrom) {
      yield* asOfReadable(md, Math.max(fromDay - CARRY_FORWARD_DAYS, HISTORY_START_DAY))
    }
    return walkStretchesOf(md, slots, fromDay, toDay, tail, columns)
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
