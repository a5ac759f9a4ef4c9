/**
 * The q language's vocabulary for the dashboard (issue 18, items 3 and 4): every column with its
 * type, unit, description and group (the screener's completion and column picker, the ticker
 * page's grouped row), and every function with its signature. The account's custom signals come
 * from `GET /v2/signals` as the API gives them.
 */
import { Effect, Schema } from "effect"
import { VOCABULARY } from "../../query/vocabulary.js"

export const CatalogColumn = Schema.Struct({
  name: Schema.String,
  type: Schema.Literal("boolean", "numeric", "string"),
  /** e.g. USD, fraction, shares, ratio; empty when none */
  unit: Schema.String,
  description: Schema.String,
  group: Schema.Literal("identity", "price", "volume", "trend", "momentum", "volatility", "fundamentals", "news"),
  /** served at the `1m`/`1h` intervals too */
  minute_tier: Schema.Boolean
})

export const CatalogFunction = Schema.Struct({
  name: Schema.String,
  signature: Schema.String,
  description: Schema.String
})

export const QueryCatalog = Schema.Struct({
  columns: Schema.Array(CatalogColumn),
  functions: Schema.Array(CatalogFunction)
})

export const queryCatalog = () => Effect.succeed(VOCABULARY)
