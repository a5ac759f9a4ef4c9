/** The explained tree as the API shows it (`POST /v2/scan/explain`, `GET /v2/webhooks/{id}/explain`). */
import { Schema } from "effect"
import type { ExplainNode } from "../../query/explain.js"

const Value = Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null)

export const ExplainTree: Schema.Schema<ExplainNode> = Schema.Struct({
  expr: Schema.String,
  op: Schema.String,
  result: Schema.NullOr(Schema.Boolean),
  args: Schema.optionalWith(Schema.Array(Schema.suspend((): Schema.Schema<ExplainNode> => ExplainTree)), {
    exact: true
  }),
  operands: Schema.optionalWith(Schema.Array(Schema.Struct({ expr: Schema.String, value: Value })), { exact: true })
}).annotations({
  identifier: "ExplainTree",
  description:
    "The expression as evaluated at one ticker: each AND/OR/NOT node with its `args`, each leaf (a comparison, BETWEEN, IN, LIKE, IS …, a flag) with its `operands` and their values; `result` true, false or null (SQL's unknown)."
})
