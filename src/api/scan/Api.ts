import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ExplainTree } from "../common/explainDoc.js"
import { IntParam, StrictParams } from "../common/params.js"
import { DirectRead } from "../direct/DirectRead.js"
import {
  BadRequest,
  COMPILE_ERRORS,
  groupErrors,
  HistoryWindowExceeded,
  NotFound,
  ServiceUnavailable,
  UniverseNotFound
} from "../errors.js"
import { Authentication } from "../middleware/Authentication.js"

const Cell = Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null)

export const ScanResponse = Schema.Struct({
  as_of: Schema.String,
  query: Schema.Struct({
    q: Schema.String,
    limit: Schema.Int,
    order: Schema.String,
    dir: Schema.Literal("asc", "desc"),
    fields: Schema.Array(Schema.String),
    full: Schema.Boolean,
    universe: Schema.NullOr(Schema.String),
    asof: Schema.optional(Schema.String),
    rule: Schema.optional(Schema.String)
  }),
  count: Schema.Int,
  total: Schema.Int,
  next_cursor: Schema.NullOr(Schema.String),
  results: Schema.Array(Schema.Record({ key: Schema.String, value: Cell })),
  _meta: Schema.Struct({
    resolution: Schema.optional(Schema.Literal("daily")),
    frozen_fields: Schema.optional(Schema.Array(Schema.String)),
    scope: Schema.optional(Schema.Struct({ universe: Schema.String, size: Schema.Int }))
  })
})

const common = {
  q: Schema.optional(Schema.String),
  universe: Schema.optional(Schema.String),
  asof: Schema.optional(Schema.String),
  order: Schema.optional(Schema.String),
  dir: Schema.optional(Schema.String),
  cursor: Schema.optional(Schema.String),
  rule: Schema.optional(Schema.String)
}

export const ScanBody = StrictParams({
  ...common,
  fields: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
  limit: Schema.optional(Schema.Number)
})

export const ScanParams = StrictParams({
  ...common,
  fields: Schema.optional(Schema.String),
  limit: Schema.optional(IntParam)
})

export const BacktestBody = StrictParams({
  q: Schema.optional(Schema.String),
  universe: Schema.optional(Schema.String),
  from: Schema.optional(Schema.String),
  to: Schema.optional(Schema.String),
  every: Schema.optional(Schema.String),
  hold: Schema.optional(Schema.String),
  benchmark: Schema.optional(Schema.String),
  order: Schema.optional(Schema.String),
  dir: Schema.optional(Schema.String),
  limit: Schema.optional(Schema.Number)
})

const Fraction = Schema.NullOr(Schema.Number)

export const BacktestResponse = Schema.Struct({
  as_of: Schema.String,
  query: Schema.Struct({
    q: Schema.String,
    universe: Schema.NullOr(Schema.String),
    from: Schema.String,
    to: Schema.String,
    every: Schema.Literal("1d", "1w", "1mo"),
    hold: Schema.String,
    benchmark: Schema.String,
    order: Schema.String,
    dir: Schema.Literal("asc", "desc"),
    limit: Schema.NullOr(Schema.Int)
  }),
  periods: Schema.Array(
    Schema.Struct({
      date: Schema.String,
      exit_date: Schema.String,
      count: Schema.Int,
      return: Fraction,
      benchmark_return: Fraction
    })
  ),
  summary: Schema.Struct({
    periods: Schema.Int,
    invested_periods: Schema.Int,
    mean_count: Fraction,
    mean_return: Fraction,
    benchmark_mean_return: Fraction,
    excess_return: Fraction,
    hit_rate: Fraction,
    cumulative_return: Schema.Number,
    benchmark_cumulative_return: Schema.Number,
    max_drawdown: Schema.Number
  }),
  _meta: Schema.Struct({ data_end: Schema.String, dropped_periods: Schema.Int })
}).annotations({ identifier: "Backtest" })

const BACKTEST_DOC =
  "Backtests a screen: on each rebalance day from `from` to `to` (YYYY-MM-DD, inclusive; NYSE trading days: " +
  "every one with `every: 1d`, the first of each calendar week with `1w`, of each month with `1mo`) the tickers " +
  "matching `q` as an as-of scan of that day finds them (within `universe`'s members of that day) — all, or the " +
  "first `limit` (1–1000) in the scan's `order`/`dir` — are bought at that day's close in equal weights and sold " +
  "at their close `hold` trading days later (`<n>d`, 1d–252d; a ticker with no close that day exits at its last " +
  "close before it); `benchmark` (a tracked ticker, default SPY) is held alike. A period whose exit lies past the " +
  "data is left out (`_meta.dropped_periods`). A period with no holding has `count` 0 and `return` null: it holds " +
  "cash (left out of `mean_return`, `hit_rate`, `excess_return`; a factor 1 in `cumulative_return` and " +
  "`max_drawdown`). Returns are fractions (0.012 = +1.2%). `from` within the plan's history window and the data " +
  "(400 `history_window_exceeded`, as the history endpoints); every other bad field 400 `bad_request` naming it; " +
  "`q` errors as a scan's. See docs/scan.md, Backtests."

const describe = (form: string) =>
  `${form}. \`q\` (required unless \`rule\` gives it, ≤ 4000 chars), \`universe\` (top_10, top_100 or an own slug; as-of scans use its members of that date), \`asof\` (YYYY-MM-DD or ISO; as-of form; any day since 2003-01-02, earlier days have no rows; before the window the service keeps in memory the rows come off the whole market's history since 2003, and while that is being built after a first start the answer is 503 service_unavailable with Retry-After), \`order\` (a column; default day_change_pct), \`dir\` (asc|desc; default desc), \`fields\` (comma-separated extra columns, or * for every column), \`limit\` (1–100; default 50), \`cursor\`, \`rule\` (a saved rule id; explicit parameters override it). See docs/scan.md.`

export class ScanApi extends HttpApiGroup.make("scan")
  // what every endpoint of the group can answer
  .pipe(
    groupErrors(BadRequest, ...COMPILE_ERRORS, HistoryWindowExceeded, NotFound, UniverseNotFound, ServiceUnavailable)
  )
  .add(
    HttpApiEndpoint.post("scan", "/v2/scan")
      .annotate(OpenApi.Summary, "Scan tickers (POST)")
      .annotate(DirectRead, "scan")
      .setPayload(ScanBody)
      .addSuccess(ScanResponse)
      .annotate(OpenApi.Description, describe("Live scan (as-of with `asof`), parameters in the JSON body"))
  )
  .add(
    HttpApiEndpoint.get("scanGet", "/v2/scan")
      .annotate(OpenApi.Summary, "Scan tickers (GET)")
      .annotate(DirectRead, "scan")
      .setUrlParams(ScanParams)
      .addSuccess(ScanResponse)
      .annotate(OpenApi.Description, describe("Live scan (as-of with `asof`), parameters in the query string"))
  )
  .add(
    HttpApiEndpoint.post("history", "/v2/scan/history")
      .annotate(OpenApi.Summary, "Scan as of a date (POST)")
      .setPayload(ScanBody)
      .addSuccess(ScanResponse)
      .annotate(OpenApi.Description, describe("As-of scan (alias; `asof` required), parameters in the JSON body"))
  )
  .add(
    HttpApiEndpoint.get("historyGet", "/v2/scan/history")
      .annotate(OpenApi.Summary, "Scan as of a date (GET)")
      .setUrlParams(ScanParams)
      .addSuccess(ScanResponse)
      .annotate(OpenApi.Description, describe("As-of scan (alias; `asof` required), parameters in the query string"))
  )
  .add(
    HttpApiEndpoint.post("explain", "/v2/scan/explain")
      .annotate(OpenApi.Summary, "Explain why a ticker is or is not in a screen")
      .setPayload(
        StrictParams({
          q: Schema.String,
          ticker: Schema.String,
          universe: Schema.optional(Schema.String),
          asof: Schema.optional(Schema.String)
        })
      )
      .addSuccess(
        Schema.Struct({
          as_of: Schema.String,
          ticker: Schema.String,
          in_universe: Schema.Boolean,
          matched: Schema.Boolean,
          reason: Schema.String,
          tree: ExplainTree
        })
      )
      .annotate(
        OpenApi.Description,
        "Why `ticker` is or is not matched by `q` (live, or as of `asof`; within `universe` when given): `matched` (in the universe and `q` true), `in_universe`, a `reason` sentence, and `tree`: `q` as evaluated at the ticker, each AND/OR/NOT node and each comparison with its operands' values and its result (`true`, `false`, `null` for SQL's unknown). The tree comes from the compiled query the scan runs."
      )
  )
  .add(
    HttpApiEndpoint.post("backtest", "/v2/scan/backtest")
      .annotate(OpenApi.Summary, "Backtest a screen over history")
      .setPayload(BacktestBody)
      .addSuccess(BacktestResponse)
      .annotate(OpenApi.Description, BACKTEST_DOC)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Scans: a SQL WHERE expression over the ticker columns, live or as of a date.") {}
