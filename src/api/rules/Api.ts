import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { IntParam, StrictParams } from "../common/params.js"
import {
  BadRequest,
  COMPILE_ERRORS,
  groupErrors,
  NotFound,
  ServiceUnavailable,
  UniverseNotFound,
  withErrors
} from "../errors.js"
import { Authentication } from "../middleware/Authentication.js"

export const MAX_RULE_NAME_LENGTH = 200

export const RuleDoc = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  q: Schema.String,
  universe: Schema.NullOr(Schema.String),
  order: Schema.String,
  dir: Schema.Literal("asc", "desc"),
  fields: Schema.Array(Schema.String),
  created_at: Schema.Int,
  updated_at: Schema.Int
})

export const RuleList = Schema.Struct({
  as_of: Schema.String,
  count: Schema.Int,
  next_cursor: Schema.NullOr(Schema.String),
  rules: Schema.Array(RuleDoc)
})

const Fields = Schema.Union(Schema.String, Schema.Array(Schema.String))

export const CreateRule = StrictParams({
  name: Schema.String,
  q: Schema.String,
  universe: Schema.optional(Schema.NullOr(Schema.String)),
  order: Schema.optional(Schema.String),
  dir: Schema.optional(Schema.String),
  fields: Schema.optional(Fields)
})

export const UpdateRule = StrictParams({
  name: Schema.optional(Schema.String),
  q: Schema.optional(Schema.String),
  universe: Schema.optional(Schema.NullOr(Schema.String)),
  order: Schema.optional(Schema.String),
  dir: Schema.optional(Schema.String),
  fields: Schema.optional(Fields)
})

const IdPath = Schema.Struct({ id: Schema.String })

export class RulesApi extends HttpApiGroup.make("rules")
  // what every endpoint of the group can answer
  .pipe(groupErrors(ServiceUnavailable))
  .add(
    HttpApiEndpoint.get("list", "/v2/rules")
      .annotate(OpenApi.Summary, "List saved rules")
      .setUrlParams(StrictParams({ limit: Schema.optional(IntParam), cursor: Schema.optional(Schema.String) }))
      .addSuccess(RuleList)
      .pipe(withErrors(BadRequest))
      .annotate(OpenApi.Description, "The account's saved scan rules by id; `limit` 1–100 (default 50), `cursor`.")
  )
  .add(
    HttpApiEndpoint.post("create", "/v2/rules")
      .annotate(OpenApi.Summary, "Save a rule")
      .setPayload(CreateRule)
      .addSuccess(RuleDoc, { status: 201 })
      .pipe(withErrors(...COMPILE_ERRORS, BadRequest, UniverseNotFound))
      .annotate(
        OpenApi.Description,
        "Saves a named scan parameter set (`name`, `q`, `universe`, `order`, `dir`, `fields`), validated as a scan would be; use it as `rule` on /v2/scan."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v2/rules/:id")
      .annotate(OpenApi.Summary, "Get a saved rule")
      .setPath(IdPath)
      .addSuccess(RuleDoc)
      .pipe(withErrors(NotFound))
  )
  .add(
    HttpApiEndpoint.patch("update", "/v2/rules/:id")
      .annotate(OpenApi.Summary, "Update a saved rule")
      .setPath(IdPath)
      .setPayload(UpdateRule)
      .addSuccess(RuleDoc)
      .pipe(withErrors(...COMPILE_ERRORS, BadRequest, NotFound, UniverseNotFound))
      .annotate(OpenApi.Description, "Changes some of a rule's parameters (`universe: null` removes the scoping).")
  )
  .add(
    HttpApiEndpoint.del("delete", "/v2/rules/:id")
      .annotate(OpenApi.Summary, "Delete a saved rule")
      .setPath(IdPath)
      .addSuccess(Schema.Struct({ ok: Schema.Literal(true) }))
      .pipe(withErrors(NotFound))
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Saved rules: named scan parameters, run with `rule` on a scan or a webhook.") {}
