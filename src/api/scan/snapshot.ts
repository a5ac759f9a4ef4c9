import { Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import type { MarketReader } from "../../market/engine/MarketData.js"
import { epochDay, isoDate } from "../../market/indicators/days.js"
import type { Snapshot } from "../../market/snapshot.js"
import { asOfSnapshot, liveSnapshot, marketData } from "../common/market.js"
import { BadRequest } from "../errors.js"
import { dayOf } from "../universes/resolve.js"

/** The snapshot of a scan (live, or the daily state as of `asof`), its day, and the market data if read. */
export const scanSnapshot = (key: AuthenticatedKey, asof: string | undefined) =>
  Effect.gen(function* () {
    if (asof !== undefined) {
      const md = yield* marketData
      const today = isoDate(dayOf(md.latest.asOf))
      if (asof > today) return yield* new BadRequest({ message: `asof ${asof} is in the future (today is ${today})` })
      const snapshot: Snapshot = yield* asOfSnapshot(md, key, asof)
      return { md: md as MarketReader | undefined, snapshot, day: epochDay(asof) }
    }
    const snapshot = yield* liveSnapshot
    return { md: undefined as MarketReader | undefined, snapshot: snapshot as Snapshot, day: dayOf(snapshot.asOf) }
  })
