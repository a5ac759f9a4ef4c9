/**
 * The dashboard's own endpoints (issue 18): its session (sign in, who is signed in, sign out), the
 * account's keys, and a ticker's chart (its bars, and the markers of the account's alerts).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Plan } from "../../accounts/plans.js"
import { KeyMode } from "../admin/Api.js"
import {
  BadRequest,
  groupErrors,
  NotFound,
  RateLimited,
  ServiceUnavailable,
  SignInLocked,
  TickerNotInMinuteTier,
  Unauthenticated,
  withErrors
} from "../errors.js"
import { QueryCatalog } from "./catalog.js"
import { DashboardAuth } from "./DashboardAuth.js"

export const SessionView = Schema.Struct({
  user: Schema.Struct({ id: Schema.String, email: Schema.String, account_id: Schema.String, plan: Plan }),
  /** what the session's mutations send as `x-csrf-token` */
  csrf_token: Schema.String,
  expires_at: Schema.String
})

export const KeyView = Schema.Struct({
  key_id: Schema.String,
  /** brand, mode and the first 4 characters of the secret: enough to tell keys apart, nothing to use */
  prefix: Schema.String,
  mode: KeyMode,
  created_at: Schema.String,
  last_used_at: Schema.NullOr(Schema.String),
  revoked_at: Schema.NullOr(Schema.String)
})

export const CreatedKeyView = Schema.Struct({
  key_id: Schema.String,
  /** the key itself: shown this once, stored only as its hash */
  api_key: Schema.String,
  prefix: Schema.String,
  mode: KeyMode,
  created_at: Schema.String
})

const Numbers = Schema.Array(Schema.Number)

/** the chart's intervals: minutes and hours (the minute tier's tickers), days, weeks */
export const ChartInterval = Schema.Literal("1m", "1h", "1d", "1w")

export const ChartBars = Schema.Struct({
  ticker: Schema.String,
  name: Schema.String,
  interval: ChartInterval,
  from: Schema.NullOr(Schema.String),
  to: Schema.NullOr(Schema.String),
  /** whether the plan's history window cut the ticker's history */
  limited: Schema.Boolean,
  /**
   * bar times, epoch seconds: of each bar's start (`1m`, `1h`: its first minute), at 00:00 UTC of
   * its day (`1d`; of a week's last day, `1w`)
   */
  t: Numbers,
  o: Numbers,
  h: Numbers,
  l: Numbers,
  c: Numbers,
  v: Numbers
})

export const ChartMarker = Schema.Struct({
  /** the market data time the event was evaluated at (ISO 8601) */
  time: Schema.String,
  kind: Schema.Literal("fired", "cleared"),
  webhook_id: Schema.String,
  webhook_name: Schema.String
})

export class DashboardApi extends HttpApiGroup.make("dashboard")
  .add(
    HttpApiEndpoint.post("signIn", "/dashboard/api/session")
      .annotate(OpenApi.Summary, "Sign in to the dashboard")
      .setPayload(Schema.Struct({ email: Schema.String, password: Schema.String }))
      .addSuccess(SessionView)
      .pipe(withErrors(BadRequest, Unauthenticated, SignInLocked, RateLimited))
      .annotate(
        OpenApi.Description,
        "Checks a dashboard user's email and password and sets the session cookie (`HttpOnly`, `SameSite=Strict`, `Secure` behind https). Wrong email or password: 401, the same for both. After 5 wrong passwords in a row the email is locked out (429 `sign_in_locked` with Retry-After), for 15 minutes, doubling with each further wrong one. At most 20 attempts a minute from one client address (429 `rate_limited` with Retry-After)."
      )
  )
  .add(
    HttpApiEndpoint.get("session", "/dashboard/api/session")
      .annotate(OpenApi.Summary, "The signed-in dashboard user")
      .addSuccess(SessionView)
      .middleware(DashboardAuth)
  )
  .add(
    HttpApiEndpoint.del("signOut", "/dashboard/api/session")
      .annotate(OpenApi.Summary, "Sign out of the dashboard")
      .addSuccess(Schema.Struct({ ok: Schema.Literal(true) }))
      .middleware(DashboardAuth)
      .annotate(OpenApi.Description, "Ends the session (its cookie no longer signs in) and clears the cookie.")
  )
  .add(
    HttpApiEndpoint.get("listKeys", "/dashboard/api/keys")
      .annotate(OpenApi.Summary, "The account's API keys")
      .addSuccess(Schema.Struct({ keys: Schema.Array(KeyView) }))
      .middleware(DashboardAuth)
      .annotate(
        OpenApi.Description,
        "Every key of the signed-in user's account, newest first, revoked ones included (`revoked_at`); never the key itself. `last_used_at` is written within 30 s of a use."
      )
  )
  .add(
    HttpApiEndpoint.post("createKey", "/dashboard/api/keys")
      .annotate(OpenApi.Summary, "Issue an API key")
      .setPayload(Schema.Struct({ mode: Schema.optional(KeyMode) }))
      .addSuccess(CreatedKeyView, { status: 201 })
      .middleware(DashboardAuth)
      .annotate(OpenApi.Description, "A new key of the account (`test` by default), answered this once.")
  )
  .add(
    HttpApiEndpoint.del("revokeKey", "/dashboard/api/keys/:key_id")
      .annotate(OpenApi.Summary, "Revoke an API key")
      .setPath(Schema.Struct({ key_id: Schema.String }))
      .addSuccess(Schema.Struct({ ok: Schema.Literal(true) }))
      .middleware(DashboardAuth)
      .pipe(withErrors(NotFound))
      .annotate(
        OpenApi.Description,
        "Refused from the very next request on, by every instance. Another account's key, or one already revoked: 404."
      )
  )
  .add(
    HttpApiEndpoint.get("bars", "/dashboard/api/tickers/:ticker/bars")
      .annotate(OpenApi.Summary, "A ticker's bars for the chart")
      .setPath(Schema.Struct({ ticker: Schema.String }))
      // exact: a bad interval's 400 names the intervals ("expected one of …"), undefined not among them
      .setUrlParams(Schema.Struct({ interval: Schema.optionalWith(ChartInterval, { exact: true }) }))
      .addSuccess(ChartBars)
      .middleware(DashboardAuth)
      .pipe(withErrors(BadRequest, TickerNotInMinuteTier, NotFound))
      .annotate(
        OpenApi.Description,
        "Daily (`1d`, the default) or weekly (`1w`, Monday–Sunday) bars of the completed sessions, or minute (`1m`: the newest 5 sessions) or hourly (`1h`: the newest 260, a year of equity sessions) bars of the sessions with minute data, the open one to the latest refresh, each within the plan's history window; columnar. `1m`/`1h` of a ticker outside the minute tier: 400 `ticker_not_in_minute_tier`."
      )
  )
  .add(
    HttpApiEndpoint.get("markers", "/dashboard/api/tickers/:ticker/markers")
      .annotate(OpenApi.Summary, "Where the account's alerts fired or cleared for a ticker")
      .setPath(Schema.Struct({ ticker: Schema.String }))
      .addSuccess(Schema.Struct({ markers: Schema.Array(ChartMarker) }))
      .middleware(DashboardAuth)
      .pipe(withErrors(BadRequest, NotFound))
      .annotate(
        OpenApi.Description,
        "The newest 500 events (`webhook.fired`: `fired`, `webhook.cleared`: `cleared`) of the signed-in account's webhooks whose rows carry the ticker, newest first, at their data time, while the event feed keeps them."
      )
  )
  .add(
    HttpApiEndpoint.get("catalog", "/dashboard/api/catalog")
      .annotate(OpenApi.Summary, "The q language's columns and functions, described")
      .addSuccess(QueryCatalog)
      .middleware(DashboardAuth)
      .annotate(
        OpenApi.Description,
        "Every column with its type, unit, description and group (identity, price, volume, trend, momentum, volatility, fundamentals, news) and every function with its signature: the screener's completion and column picker, the ticker page's grouped row. The account's custom signals are in `GET /v2/signals`."
      )
  )
  .pipe(groupErrors(ServiceUnavailable))
  .annotate(
    OpenApi.Description,
    "The dashboard's session, by cookie. `/v2` does not take it: the API stays bearer-key only."
  ) {}
