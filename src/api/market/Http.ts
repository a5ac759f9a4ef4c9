/**
 * Handler of the market group: the trading calendar at the Effect Clock's now.
 */
import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect } from "effect"
import { cryptoTradingDate, marketSession } from "../../market/calendar.js"
import { Market } from "../../market/Market.js"
import { VigilApi } from "../Api.js"

const iso = (ms: number) => new Date(ms).toISOString()

/** The market status at `now` (epoch ms). */
export const marketStatusAt = (now: number) => {
  const s = marketSession(now)
  return {
    as_of: iso(now),
    equities: {
      open: s.open,
      session_date: s.tradingDate,
      opens_at: iso(s.opensAt),
      closes_at: iso(s.closesAt),
      next_open: iso(s.nextOpen),
      next_close: iso(s.nextClose),
      early_close: s.earlyClose
    },
    crypto: { open: true as const, trading_date: cryptoTradingDate(now) }
  }
}

export const MarketHttpLive = HttpApiBuilder.group(VigilApi, "market", (handlers) =>
  handlers.handle("status", () =>
    Effect.gen(function* () {
      const fresh = yield* (yield* Market).freshness
      return {
        ...marketStatusAt(yield* Clock.currentTimeMillis),
        data_as_of: fresh.dataAsOf === undefined ? null : iso(fresh.dataAsOf),
        stale: fresh.stale
      }
    })
  )
)
