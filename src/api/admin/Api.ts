import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Plan } from "../../accounts/plans.js"
import { BadRequest, EmailTaken, groupErrors, NotFound, ServiceUnavailable, withErrors } from "../errors.js"
import { AdminAuth } from "../middleware/AdminAuth.js"

export const KeyMode = Schema.Literal("test", "live")

export const CreatedAccount = Schema.Struct({
  account_id: Schema.String,
  plan: Plan,
  key_id: Schema.String,
  api_key: Schema.String
})

export const AccountView = Schema.Struct({
  account_id: Schema.String,
  plan: Plan,
  rate_limit_per_minute: Schema.Number
})

/** One file of an import: what was stored of it, and the symbols it held that Vigil does not track. */
export const ImportedFile = Schema.Struct({
  file: Schema.String,
  layout: Schema.Literal("long", "per-ticker", "aggregates", "splits"),
  /** rows stored: bars, or splits for a splits file */
  rows: Schema.Number,
  /** tickers with rows stored */
  tickers: Schema.Number,
  from: Schema.NullOr(Schema.String),
  to: Schema.NullOr(Schema.String),
  skipped_tickers: Schema.Number,
  skipped_examples: Schema.Array(Schema.String)
})

export const ImportResult = Schema.Struct({
  tickers: Schema.Array(Schema.String),
  rows: Schema.Number,
  from: Schema.String,
  to: Schema.String,
  // issue 17, additive: the files stored, the splits among the rows, the symbols skipped
  files: Schema.Array(ImportedFile),
  splits: Schema.Number,
  skipped_tickers: Schema.Number,
  skipped: Schema.Array(Schema.String)
})

export const CreatedUser = Schema.Struct({
  user_id: Schema.String,
  account_id: Schema.String,
  email: Schema.String,
  /** the password given, or the one generated: shown this once */
  password: Schema.String
})

export const CreatedKey = Schema.Struct({ key_id: Schema.String, api_key: Schema.String })

const AccountId = Schema.Struct({ account_id: Schema.String })

export class AdminApi extends HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.post("createAccount", "/admin/accounts")
      .annotate(OpenApi.Summary, "Create an account and its first key")
      .setPayload(Schema.Struct({ plan: Plan }))
      .addSuccess(CreatedAccount, { status: 201 })
      .pipe(withErrors(BadRequest))
  )
  .add(
    HttpApiEndpoint.patch("updateAccount", "/admin/accounts/:account_id")
      .annotate(OpenApi.Summary, "Change an account's plan or rate limit")
      .setPath(AccountId)
      .setPayload(
        Schema.Struct({
          plan: Plan,
          rate_limit_per_minute: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.between(1, 100_000_000))))
        })
      )
      .addSuccess(AccountView)
      .pipe(withErrors(BadRequest, NotFound))
  )
  .add(
    HttpApiEndpoint.post("createKey", "/admin/accounts/:account_id/keys")
      .annotate(OpenApi.Summary, "Issue another key for an account")
      .setPath(AccountId)
      .setPayload(Schema.Struct({ mode: Schema.optional(KeyMode) }))
      .addSuccess(CreatedKey, { status: 201 })
      .pipe(withErrors(NotFound))
  )
  .add(
    HttpApiEndpoint.del("revokeKey", "/admin/keys/:key_id")
      .annotate(OpenApi.Summary, "Revoke a key")
      .setPath(Schema.Struct({ key_id: Schema.String }))
      .addSuccess(Schema.Struct({ ok: Schema.Literal(true) }))
      .pipe(withErrors(NotFound))
  )
  .add(
    HttpApiEndpoint.post("createUser", "/admin/users")
      .annotate(OpenApi.Summary, "Create a dashboard user")
      .setPayload(
        Schema.Struct({
          email: Schema.String,
          password: Schema.optional(Schema.String),
          account_id: Schema.optional(Schema.String),
          plan: Schema.optional(Plan)
        })
      )
      .addSuccess(CreatedUser, { status: 201 })
      .pipe(withErrors(BadRequest, NotFound, EmailTaken))
      .annotate(
        OpenApi.Description,
        "A person who signs in to the dashboard with this email and password: of the account `account_id`, or of a new account on `plan` (default `free`) when none is given. Without a password one is generated; either way the password is answered this once and stored only as its scrypt hash. Emails are compared without case."
      )
  )
  .add(
    HttpApiEndpoint.post("refresh", "/admin/refresh")
      .annotate(OpenApi.Summary, "Refresh the market data now")
      .addSuccess(Schema.Struct({ as_of: Schema.String }))
      .annotate(
        OpenApi.Description,
        "Applies one market data refresh now; answers once its snapshot is published (and, with subscriptions, evaluated)."
      )
  )
  .add(
    HttpApiEndpoint.post("pauseFeed", "/admin/feed/pause")
      .annotate(OpenApi.Summary, "Pause the market feed")
      .addSuccess(Schema.Struct({ paused: Schema.Boolean }))
      .annotate(
        OpenApi.Description,
        "Stops applying new market data in every process (the switch is in the store): refresh ticks go on, the data ages, and after 3 refresh intervals `GET /v2/market/status` says `stale` and webhooks are not evaluated against the old data. Exercises the stale-data guard."
      )
  )
  .add(
    HttpApiEndpoint.post("resumeFeed", "/admin/feed/resume")
      .annotate(OpenApi.Summary, "Resume the market feed")
      .addSuccess(Schema.Struct({ paused: Schema.Boolean }))
      .annotate(
        OpenApi.Description,
        "Applies new market data again from the next refresh on; evaluation resumes from the stored states, with nothing fired twice."
      )
  )
  .add(
    HttpApiEndpoint.post("import", "/admin/import")
      .annotate(OpenApi.Summary, "Import daily bars and splits (CSV, gzip, several files)")
      .setUrlParams(Schema.Struct({ ticker: Schema.optional(Schema.String), file: Schema.optional(Schema.String) }))
      .addSuccess(ImportResult)
      .pipe(withErrors(BadRequest))
      .annotate(
        OpenApi.Description,
        "Imports daily bars from a CSV body (text/csv, streamed; `Content-Encoding: gzip` for a compressed one): the long format ticker,date,open,high,low,close,volume, a per-ticker file (columns found by header name) for the ticker named by ?ticker=, or a whole-market day of aggregates (ticker,volume,open,close,high,low,window_start,transactions; window_start in nanoseconds; symbols Vigil does not track are skipped and counted). A splits file (ticker,date,ratio) adjusts the prices and volumes of the bars before each split. A multipart/form-data body carries several files (a part named *.gz, or of type application/gzip, is gunzipped), taken in order. ?file= names a single-file body in messages and the summary. Each file is validated whole and stored in one transaction; the answer comes once every file and every derived daily row is stored, with a summary per file. A bad line gives 400 naming it as file:line: reason, with nothing of that file stored and no later file read; `stored` in the error is the summary of the files stored before it, if any."
      )
  )
  // every operation reads or writes the database: 503 when it cannot answer (the market's own
  // 503s: refresh and import before the first snapshot)
  .pipe(groupErrors(ServiceUnavailable))
  .middleware(AdminAuth)
  .annotate(OpenApi.Description, "Operator API, enabled by ADMIN_TOKEN (`Authorization: Bearer <ADMIN_TOKEN>`).") {}
