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

const describe = (form: string) =>
  `${form}. \`q\` (required unless \`rule\` gives it, ≤ 4000 chars), \`universe\` (top_10, top_100 or an own slug; as-of scans use its members of that date), \`asof\` (YYYY-MM-DD or ISO; as-of form; a date before the whole-market daily history the service holds is 400 history_window_exceeded with earliest_allowed_from), \`order\` (a column; default day_change_pct), \`dir\` (asc|desc; default desc), \`fields\` (comma-separated extra columns, or * for every column), \`limit\` (1–100; default 50), \`cursor\`, \`rule\` (a saved rule id; explicit parameters override it). See docs/scan.md.`

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
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Scans: a SQL WHERE expression over the ticker columns, live or as of a date.") {}
