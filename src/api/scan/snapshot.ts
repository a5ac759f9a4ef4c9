import { Effect } from "effect"
import type { MarketData } from "../../market/engine/MarketData.js"
import { epochDay, isoDate } from "../../market/indicators/days.js"
import type { Snapshot } from "../../market/snapshot.js"
import { liveSnapshot, marketData } from "../common/market.js"
import { BadRequest } from "../errors.js"
import { dayOf } from "../universes/resolve.js"

/** The snapshot of a scan (live, or the daily state as of `asof`), its day, and the market data if read. */
export const scanSnapshot = (asof: string | undefined) =>
  Effect.gen(function* () {
    if (asof !== undefined) {
      const md = yield* marketData
      const today = isoDate(dayOf(md.latest.asOf))
      if (asof > today) return yield* new BadRequest({ message: `asof ${asof} is in the future (today is ${today})` })
      return { md: md as MarketData | undefined, snapshot: md.snapshotAsOf(asof) as Snapshot, day: epochDay(asof) }
    }
    const snapshot = yield* liveSnapshot
    return { md: undefined as MarketData | undefined, snapshot: snapshot as Snapshot, day: dayOf(snapshot.asOf) }
  })
