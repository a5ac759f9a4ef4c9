/**
 * `/v2/signals`: the signal catalog (built-ins and the account's custom
 * signals), custom-signal CRUD, matches (live and as-of) and per-ticker
 * time series.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { IntParam, StrictParams } from "../common/params.js"
import {
  AlreadyExists,
  BadRequest,
  COMPILE_ERRORS,
  CustomSignalsTierRequired,
  groupErrors,
  HistoryWindowExceeded,
  NameCollision,
  NotFound,
  NotSupportedForCustomSignal,
  ResourceLimitReached,
  ServiceUnavailable,
  SignalNotAvailableAtInterval,
  SignalReferenced,
  TickerNotInMinuteTier,
  UniverseNotFound,
  withErrors
} from "../errors.js"
import { Authentication } from "../middleware/Authentication.js"

export const CustomSignalEntry = Schema.Struct({
  name: Schema.String,
  kind: Schema.Literal("expression"),
  description: Schema.NullOr(Schema.String),
  expr: Schema.String,
  created_at: Schema.Number,
  updated_at: Schema.Number
})

export const BuiltinSignalEntry = Schema.Struct({
  name: Schema.String,
  kind: Schema.Literal("builtin"),
  type: Schema.Literal("boolean", "numeric", "string"),
  source: Schema.Literal("state", "ticker")
})

export const Catalog = Schema.Struct({
  as_of: Schema.String,
  count_builtin: Schema.Number,
  count_custom: Schema.Number,
  next_cursor: Schema.NullOr(Schema.String),
  signals: Schema.Array(Schema.Union(CustomSignalEntry, BuiltinSignalEntry))
})

export const SignalDoc = Schema.Struct({ as_of: Schema.String, signal: CustomSignalEntry })

export const MatchRow = Schema.Struct({
  ticker: Schema.String,
  name: Schema.String,
  value: Schema.Union(Schema.Number, Schema.Boolean)
})

export const Matches = Schema.Struct({
  as_of: Schema.String,
  signal: Schema.String,
  condition: Schema.NullOr(Schema.String),
  count: Schema.Number,
  total: Schema.Number,
  next_cursor: Schema.NullOr(Schema.String),
  results: Schema.Array(MatchRow),
  _meta: Schema.optional(
    Schema.Struct({ resolution: Schema.Literal("daily"), frozen_fields: Schema.Array(Schema.String) })
  )
})

export const History = Schema.Struct({
  as_of: Schema.String,
  ticker: Schema.String,
  signal: Schema.String,
  interval: Schema.String,
  count: Schema.Number,
  next_cursor: Schema.NullOr(Schema.String),
  bars: Schema.Array(Schema.Struct({ t: Schema.String, v: Schema.NullOr(Schema.Union(Schema.Number, Schema.Boolean)) }))
})

/**
 * The signal in the path: one parameter name, `signal`, at this position for
 * every `/v2/signals/{signal}...` route (OpenAPI forbids path items that differ
 * only in parameter names).
 */
const SignalPath = Schema.Struct({ signal: Schema.String })

export const SignalEvent = Schema.Struct({
  date: Schema.String.annotations({
    description: "YYYY-MM-DD: the daily row (state at the close) whose flag state changed"
  }),
  event: Schema.Literal("on", "off").annotations({
    description: "on: the flag is TRUE in this row and was not in the previous one; off: the reverse"
  }),
  value: Schema.NullOr(Schema.Boolean).annotations({
    description: "the flag in this row: true (on), false or null (off; null = not computable that day)"
  }),
  previous_date: Schema.String.annotations({ description: "YYYY-MM-DD of the ticker's previous daily row" }),
  close: Schema.Number.annotations({ description: "the day's close" })
})

export const SignalEvents = Schema.Struct({
  as_of: Schema.String,
  ticker: Schema.String,
  signal: Schema.String,
  from: Schema.String.annotations({ description: "first day of the window (YYYY-MM-DD)" }),
  to: Schema.String.annotations({ description: "last day of the window (YYYY-MM-DD)" }),
  latest: Schema.NullOr(Schema.Struct({ date: Schema.String, value: Schema.NullOr(Schema.Boolean) })).annotations({
    description: "the flag in the ticker's latest daily row within the window (null when it has none)"
  }),
  count: Schema.Number,
  next_cursor: Schema.NullOr(Schema.String),
  events: Schema.Array(SignalEvent)
})

export const SignalStatsDay = Schema.Struct({
  date: Schema.String,
  count: Schema.Number.annotations({ description: "tickers matching in their daily row as of this day" }),
  total: Schema.Number.annotations({
    description: "tickers (of the universe) with a daily row as of this day (at most 14 days old)"
  })
})

export const SignalStatsDoc = Schema.Struct({
  as_of: Schema.String,
  signal: Schema.String,
  condition: Schema.NullOr(Schema.String),
  universe: Schema.NullOr(Schema.String),
  from: Schema.NullOr(Schema.String).annotations({ description: "first listed day (null when none)" }),
  to: Schema.NullOr(Schema.String).annotations({ description: "last listed day (null when none)" }),
  source: Schema.Literal("precomputed", "computed").annotations({
    description:
      "precomputed: built-in boolean signal, counts kept per daily close; computed: rebuilt on demand for this request"
  }),
  count: Schema.Number.annotations({ description: "number of entries in days" }),
  days: Schema.Array(SignalStatsDay)
})

export class SignalsApi extends HttpApiGroup.make("signals")
  // what every endpoint of the group can answer
  .pipe(groupErrors(BadRequest, ServiceUnavailable))
  .add(
    HttpApiEndpoint.get("catalog", "/v2/signals")
      .annotate(OpenApi.Summary, "List the signal catalog")
      .setUrlParams(
        StrictParams({
          kind: Schema.optional(Schema.String),
          limit: Schema.optional(IntParam),
          cursor: Schema.optional(Schema.String)
        })
      )
      .addSuccess(Catalog)
      .annotate(
        OpenApi.Description,
        "The signal catalog: the account's custom signals first (by name, paged by `limit` (max 200, default 50) and `cursor`), then every built-in signal on every page. `kind` = `builtin` or `custom` lists one kind only. `count_builtin` and `count_custom` count the whole catalog. Readable on every plan."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/v2/signals")
      .annotate(OpenApi.Summary, "Create a custom signal")
      .setPayload(
        Schema.Struct({
          name: Schema.String,
          expr: Schema.String,
          description: Schema.optional(Schema.NullOr(Schema.String))
        })
      )
      .addSuccess(SignalDoc, { status: 201 })
      .pipe(withErrors(...COMPILE_ERRORS, ResourceLimitReached, AlreadyExists, NameCollision))
      .annotate(
        OpenApi.Description,
        "Creates a custom signal (Pro plan and above; 10 on Pro, unlimited above). `name` matches ^[a-z][a-z0-9_]{0,63}$ and is not a built-in column (409 `name_collision`) nor taken (409 `already_exists`); `expr` (max 4000 chars) is a boolean expression over built-in columns and the account's other custom signals (inlined, at most 5 deep): 400 `compile_failed` with `errors[]` or `recursion_depth_exceeded`; `description` max 500 chars. 403 `custom_signals_tier_required` below Pro, `resource_limit_reached` at the cap."
      )
  )
  .add(
    HttpApiEndpoint.patch("update", "/v2/signals/:signal")
      .annotate(OpenApi.Summary, "Update a custom signal")
      .setPath(SignalPath)
      .setPayload(
        Schema.Struct({
          expr: Schema.optional(Schema.String),
          description: Schema.optional(Schema.NullOr(Schema.String))
        })
      )
      .addSuccess(SignalDoc)
      .pipe(withErrors(...COMPILE_ERRORS, NotFound))
      .annotate(
        OpenApi.Description,
        "Updates a custom signal's `expr` (recompiled with the same rules as on create) and/or `description` (null clears it). Built-in signals are read-only: 400 `bad_request`. 404 `not_found` when the account has no such signal. Existing subscriptions keep their frozen copy."
      )
  )
  .add(
    HttpApiEndpoint.del("remove", "/v2/signals/:signal")
      .annotate(OpenApi.Summary, "Delete a custom signal")
      .setPath(SignalPath)
      .setUrlParams(StrictParams({ force: Schema.optional(Schema.Literal("true", "false")) }))
      .addSuccess(Schema.Struct({ as_of: Schema.String, ok: Schema.Literal(true) }))
      .pipe(withErrors(CustomSignalsTierRequired, NotFound, SignalReferenced))
      .annotate(
        OpenApi.Description,
        'Deletes a custom signal. Refused with 409 `{error: "signal_referenced", message, referencing_signals}` while another of the account\'s signals names it (text match on identifiers); `force=true` deletes anyway (those signals then fail to compile). Built-ins cannot be deleted (400).'
      )
  )
  .add(
    HttpApiEndpoint.get("matches", "/v2/signals/:signal")
      .annotate(OpenApi.Summary, "List tickers matching a signal")
      .setPath(SignalPath)
      .setUrlParams(
        StrictParams({
          condition: Schema.optional(Schema.String),
          asof: Schema.optional(Schema.String),
          universe: Schema.optional(Schema.String),
          limit: Schema.optional(IntParam),
          cursor: Schema.optional(Schema.String)
        })
      )
      .addSuccess(Matches)
      .pipe(withErrors(...COMPILE_ERRORS, HistoryWindowExceeded, NotFound, UniverseNotFound))
      .annotate(
        OpenApi.Description,
        "Tickers matching a signal: a boolean built-in or custom signal where TRUE (by ticker), a numeric built-in satisfying `condition` `<op><value>` with op one of > >= = != < <= (by value descending, then ticker). `asof` (YYYY-MM-DD or ISO) reads the daily state of that day (14-day carry-forward; `_meta` gives the resolution and frozen fields); any day since 2003-01-02 (before the window the service keeps in memory, 503 `service_unavailable` with Retry-After while the whole market's history is being built after a first start). `universe`: `top_10`, `top_100` (membership in effect on the day read) or one of the account's universes (live: its list now; with `asof`: the list it had at the end of that date, its first list before it existed), else 404 `universe_not_found`. A custom signal needs Pro or above (403 `custom_signals_tier_required`). `total` counts every match, `count` the rows of this page (`limit` max 200, default 50)."
      )
  )
  .add(
    HttpApiEndpoint.get("history", "/v2/signals/:signal/:ticker/history/:interval")
      .annotate(OpenApi.Summary, "A signal's time series for one ticker")
      .setPath(Schema.Struct({ signal: Schema.String, ticker: Schema.String, interval: Schema.String }))
      .setUrlParams(
        StrictParams({
          from: Schema.optional(Schema.String),
          to: Schema.optional(Schema.String),
          limit: Schema.optional(IntParam),
          cursor: Schema.optional(Schema.String)
        })
      )
      .addSuccess(History)
      .pipe(
        withErrors(
          ...COMPILE_ERRORS,
          SignalNotAvailableAtInterval,
          HistoryWindowExceeded,
          TickerNotInMinuteTier,
          NotFound
        )
      )
      .annotate(
        OpenApi.Description,
        "A signal's values for one ticker at `1m`, `1h`, `1d` or `1w`, oldest first; `cursor` pages backward from the most recent bar (`limit` max 1000, default 252). `from`/`to` are inclusive; `from` defaults to the start of the plan's history window (Hobby: today only, Pro: 5 years, Scale and above: all), and an earlier `from` is 400 `history_window_exceeded`. Minute and hourly bars: minute-tier columns only (else 400 `signal_not_available_at_interval`) and the current top 200 tickers by 30-day dollar volume (else 400 `ticker_not_in_minute_tier`). Custom signals give a boolean series."
      )
  )
  .add(
    HttpApiEndpoint.get("events", "/v2/signals/:signal/:ticker/events")
      .annotate(OpenApi.Summary, "Days a boolean signal turned on or off for one ticker")
      .setPath(Schema.Struct({ signal: Schema.String, ticker: Schema.String }))
      .setUrlParams(
        StrictParams({
          from: Schema.optional(Schema.String),
          to: Schema.optional(Schema.String),
          limit: Schema.optional(IntParam),
          cursor: Schema.optional(Schema.String)
        })
      )
      .addSuccess(SignalEvents)
      .pipe(withErrors(HistoryWindowExceeded, NotSupportedForCustomSignal, NotFound))
      .annotate(
        OpenApi.Description,
        "The days a built-in boolean signal turned on or off for one ticker, newest first; `next_cursor` continues with older events (`limit` max 1000, default 100). A day's row is the daily state at the close (as `GET /v2/tickers/{ticker}?asof=` returns it); the flag is on when TRUE and off when FALSE or NULL, and an event is a row whose state differs from the ticker's previous daily row (which may lie before `from`; the first row of a ticker has no event). `from`/`to` (inclusive, YYYY-MM-DD or ISO) follow the signal history endpoint: `from` defaults to the later of the plan's history window start and the start of the data, an earlier `from` is 400 `history_window_exceeded` (with `max_history_days` and `earliest_allowed_from`), `to` defaults to now. Counts against the history endpoints' rate limit. Errors: 400 `not_supported_for_custom_signal` (custom signals do not resolve here), 400 `bad_request` for a numeric signal, bad dates or cursor; 404 `not_found` for an unknown signal or ticker; 503 while the flag history is being computed (after a start or a bars import)."
      )
  )
  .add(
    HttpApiEndpoint.get("stats", "/v2/signals/:signal/stats")
      .annotate(OpenApi.Summary, "Daily match counts of a signal")
      .setPath(SignalPath)
      .setUrlParams(
        StrictParams({
          from: Schema.optional(Schema.String),
          to: Schema.optional(Schema.String),
          condition: Schema.optional(Schema.String),
          universe: Schema.optional(Schema.String)
        })
      )
      .addSuccess(SignalStatsDoc)
      .pipe(withErrors(...COMPILE_ERRORS, HistoryWindowExceeded, NotFound, UniverseNotFound))
      .annotate(
        OpenApi.Description,
        "How many tickers matched a signal on each trading day: `days` = `[{date, count, total}]`, oldest first, one entry per NYSE trading day in `from`..`to` (inclusive, YYYY-MM-DD or ISO, time truncated) whose daily state is final (after the close, and after 24:00 UTC for crypto); not paged. A day counts each ticker's daily row as of that day (its latest daily state on or before it, at most 14 days old), so `count` equals the `total` of `GET /v2/signals/{signal}?asof=<day>`; `total` is the number of tickers with such a row. `universe` (`top_10`, `top_100` as rebalanced on each day, or one of the account's universes) restricts both; 404 `universe_not_found` otherwise. Built-in boolean signals (`source: precomputed`): counts are kept per daily close, any range within the data, default the market's history window. Numeric signals (with `condition` `<op><value>`, required) and custom signals (Pro and above; `source: computed`): rebuilt on demand over at most 31 trading days (default: the last 31); a longer range is 400 `bad_request`. A `from` before the data is 400 `history_window_exceeded`. Available on every plan, like the as-of matches."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Signals: catalog, custom signals, matches and time series") {}
