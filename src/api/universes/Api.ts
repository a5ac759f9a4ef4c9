import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { IntParam, StrictParams } from "../common/params.js"
import {
  BadRequest,
  Forbidden,
  groupErrors,
  NotFound,
  ServiceUnavailable,
  SlugTaken,
  UnknownTickers,
  withErrors
} from "../errors.js"
import { Authentication } from "../middleware/Authentication.js"

/** Most tickers one universe may hold (400 `bad_request` beyond). */
export const MAX_UNIVERSE_SIZE = 5_000
export const MAX_NAME_LENGTH = 200
export const MAX_DESCRIPTION_LENGTH = 1_000

export const UniverseDoc = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  tickers: Schema.optional(Schema.Array(Schema.String)),
  size: Schema.Int,
  system: Schema.Boolean,
  created_at: Schema.optional(Schema.Int),
  updated_at: Schema.optional(Schema.Int),
  effective_at: Schema.optional(Schema.Int),
  next_rebalance_at: Schema.optional(Schema.Int),
  rebalance_method: Schema.optional(Schema.String)
})
export type UniverseDoc = typeof UniverseDoc.Type

export const UniverseList = Schema.Struct({
  as_of: Schema.String,
  count: Schema.Int,
  next_cursor: Schema.NullOr(Schema.String),
  universes: Schema.Array(UniverseDoc)
})

const Tickers = Schema.Array(Schema.String)

export const CreateUniverse = StrictParams({
  id: Schema.optional(Schema.String),
  name: Schema.String,
  description: Schema.optional(Schema.NullOr(Schema.String)),
  tickers: Tickers
})

export const UpdateUniverse = StrictParams({
  name: Schema.optional(Schema.String),
  description: Schema.optional(Schema.NullOr(Schema.String)),
  tickers: Schema.optional(Tickers),
  add: Schema.optional(Tickers),
  remove: Schema.optional(Tickers)
})

const IdPath = Schema.Struct({ id: Schema.String })

export class UniversesApi extends HttpApiGroup.make("universes")
  // what every endpoint of the group can answer
  .pipe(groupErrors(ServiceUnavailable))
  .add(
    HttpApiEndpoint.get("list", "/v2/universes")
      .annotate(OpenApi.Summary, "List own universes")
      .setUrlParams(StrictParams({ limit: Schema.optional(IntParam), cursor: Schema.optional(Schema.String) }))
      .addSuccess(UniverseList)
      .pipe(withErrors(BadRequest))
      .annotate(OpenApi.Description, "The account's own universes by id; `limit` 1–100 (default 50), `cursor`.")
  )
  .add(
    HttpApiEndpoint.get("system", "/v2/universes/system")
      .annotate(OpenApi.Summary, "List system universes")
      .addSuccess(UniverseList)
      .annotate(
        OpenApi.Description,
        "The system universes `top_10` and `top_100` (tickers listed for `top_10` only; GET /v2/universes/top_100 lists them)."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/v2/universes")
      .annotate(OpenApi.Summary, "Create a universe")
      .setPayload(CreateUniverse)
      .addSuccess(UniverseDoc, { status: 201 })
      .pipe(withErrors(BadRequest, UnknownTickers, SlugTaken))
      .annotate(
        OpenApi.Description,
        `Creates a universe. \`tickers\`: 1–${MAX_UNIVERSE_SIZE} tracked symbols in any convention (stored canonical); untracked ones give 400 \`unknown_tickers\` with \`disallowed\`. \`id\` is generated from the name when omitted; a taken or reserved id gives 409 \`slug_taken\`.`
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v2/universes/:id")
      .annotate(OpenApi.Summary, "Get a universe")
      .setPath(IdPath)
      .addSuccess(Schema.extend(UniverseDoc, Schema.Struct({ as_of: Schema.String })))
      .pipe(withErrors(NotFound))
      .annotate(OpenApi.Description, "A system universe (`top_10`, `top_100`, tickers as of now) or an own one.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v2/universes/:id")
      .annotate(OpenApi.Summary, "Update a universe")
      .setPath(IdPath)
      .setPayload(UpdateUniverse)
      .addSuccess(UniverseDoc)
      .pipe(withErrors(BadRequest, UnknownTickers, Forbidden, NotFound))
      .annotate(
        OpenApi.Description,
        "Updates `name`, `description`, and either `tickers` (replaces the list) or `add` / `remove` (not both forms). A change of the list is recorded with its time: as-of reads (scans, signal matches and stats) use the list the universe had at the end of their date, the first list for dates before it was created (see docs/scan.md)."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v2/universes/:id")
      .annotate(OpenApi.Summary, "Delete a universe")
      .setPath(IdPath)
      .addSuccess(Schema.Struct({ ok: Schema.Literal(true) }))
      .pipe(withErrors(Forbidden, NotFound))
      .annotate(
        OpenApi.Description,
        "Deletes an own universe and the history of its lists (a universe created again with the id starts afresh). Saved rules naming it keep the slug (see docs/scan.md)."
      )
  )
  .middleware(Authentication)
  .annotate(
    OpenApi.Description,
    "Universes: the system ones (`top_10`, `top_100`) and the account's own ticker lists, usable as `universe` wherever a request takes one."
  ) {}
