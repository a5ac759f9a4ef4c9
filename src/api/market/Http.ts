/**
 * Handler of the market group: the trading calendar at the Effect Clock's now.
 */
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Clock, Effect } from "effect"
import { cryptoTradingDate, marketSession } from "../../market/calendar.js"
import { VigilApi } from "../Api.js"
import { BadRequest } from "../errors.js"

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

export const MarketLive = HttpApiBuilder.group(VigilApi, "market", (handlers) =>
  handlers.handle("status", () =>
    Effect.gen(function* () {
      // the endpoint takes no parameters: refuse any, as the strict parameter structs do elsewhere
      const params = Object.keys(yield* HttpServerRequest.ParsedSearchParams)
      if (params.length > 0) {
        return yield* new BadRequest({ message: `unknown query parameter(s): ${params.join(", ")}` })
      }
      return marketStatusAt(yield* Clock.currentTimeMillis)
    })
  )
)
