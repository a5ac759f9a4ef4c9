/**
 * The market group: `GET /v2/market/status`, the trading calendar at this
 * moment (NYSE session for equities; crypto trades around the clock).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, withErrors } from "../errors.js"
import { Authentication } from "../middleware/Authentication.js"

const Instant = (description: string) => Schema.String.annotations({ description: `${description} (ISO 8601)` })

export const MarketStatus = Schema.Struct({
  as_of: Instant("The instant the status describes"),
  equities: Schema.Struct({
    open: Schema.Boolean.annotations({ description: "A regular NYSE session is in progress" }),
    session_date: Schema.String.annotations({
      description:
        "The trading date the instant belongs to (YYYY-MM-DD): today's from its open on, else the last session's"
    }),
    opens_at: Instant("Open of session_date's session"),
    closes_at: Instant("Close of session_date's session (13:00 ET on early-close days)"),
    next_open: Instant("The first open after the instant"),
    next_close: Instant("The first close after the instant (closes_at while open)"),
    early_close: Schema.Boolean.annotations({ description: "session_date closes at 13:00 ET" })
  }).annotations({ description: "US equities and ETFs: the NYSE calendar" }),
  crypto: Schema.Struct({
    open: Schema.Literal(true).annotations({ description: "Crypto trades around the clock" }),
    trading_date: Schema.String.annotations({ description: "The UTC day (YYYY-MM-DD): crypto's trading date" })
  }),
  data_as_of: Schema.NullOr(Instant("The time of the market data applied last (null while the market loads)")),
  stale: Schema.Boolean.annotations({
    description:
      "No new market data applied for more than 3 refresh intervals (the feed paused or stalled); webhooks are not evaluated against stale data"
  })
})

export class MarketApi extends HttpApiGroup.make("market")
  .add(
    HttpApiEndpoint.get("status", "/v2/market/status")
      .annotate(OpenApi.Summary, "Whether the markets are open now")
      .addSuccess(MarketStatus)
      .pipe(withErrors(BadRequest))
      .annotate(
        OpenApi.Description,
        "Whether the markets are open now: the NYSE session (open, session date, open and close times, next open and close, early close) and crypto's trading date; `data_as_of`, the time of the market data applied last, and `stale` (no new data for more than 3 refresh intervals). Takes no parameters."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Trading calendar.") {}
