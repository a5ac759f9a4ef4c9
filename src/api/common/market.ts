/**
 * The market as request handlers read it: behind a 503 (Retry-After 2) while it
 * loads, and the `as_of` of a live answer.
 */
import { Effect } from "effect"
import type { MarketData } from "../../market/engine/MarketData.js"
import { Market } from "../../market/Market.js"
import type { Snapshot } from "../../market/snapshot.js"
import { ServiceUnavailable } from "../errors.js"

/** The loaded market, or 503 `service_unavailable` (Retry-After 2) while it loads. */
export const marketData: Effect.Effect<MarketData, ServiceUnavailable, Market> = Effect.flatMap(Market, (m) =>
  Effect.mapError(m.data, (e) => new ServiceUnavailable({ message: e.message, details: { retry_after: 2 } }))
)

/** The latest live snapshot, or 503 while the market loads. */
export const liveSnapshot: Effect.Effect<Snapshot, ServiceUnavailable, Market> = Effect.flatMap(Market, (m) =>
  Effect.mapError(m.latest, (e) => new ServiceUnavailable({ message: e.message, details: { retry_after: 2 } }))
)

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
