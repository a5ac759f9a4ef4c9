/** `/v2/notifications`: the in-app inbox of `in_app` webhooks (plans with webhooks). */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { IntParam, StrictParams } from "../common/params.js"
import { BadRequest, groupErrors, ServiceUnavailable, WebhookTierRequired } from "../errors.js"
import { Authentication } from "../middleware/Authentication.js"

export const NotificationDoc = Schema.Struct({
  id: Schema.String,
  webhook_id: Schema.String,
  title: Schema.String,
  body: Schema.String,
  event: Schema.Unknown,
  read: Schema.Boolean,
  read_at: Schema.NullOr(Schema.Int),
  created_at: Schema.Int
})

export class NotificationsApi extends HttpApiGroup.make("notifications")
  // what every endpoint of the group can answer
  .pipe(groupErrors(BadRequest, WebhookTierRequired, ServiceUnavailable))
  .add(
    HttpApiEndpoint.get("list", "/v2/notifications")
      .annotate(OpenApi.Summary, "List in-app notifications")
      .setUrlParams(
        StrictParams({
          unread: Schema.optional(Schema.Literal("true", "false")),
          limit: Schema.optional(IntParam),
          cursor: Schema.optional(Schema.String)
        })
      )
      .addSuccess(
        Schema.Struct({
          as_of: Schema.String,
          count: Schema.Int,
          unread_count: Schema.Int,
          next_cursor: Schema.NullOr(Schema.String),
          notifications: Schema.Array(NotificationDoc)
        })
      )
      .annotate(
        OpenApi.Description,
        "The in-app inbox: alerts of `in_app` webhooks, newest first, with read state; `unread=true` lists only unread ones; `limit` 1–100 (default 50), `cursor`."
      )
  )
  .add(
    HttpApiEndpoint.post("markRead", "/v2/notifications/read")
      .annotate(OpenApi.Summary, "Mark notifications read")
      .setPayload(StrictParams({ ids: Schema.optional(Schema.Array(Schema.String)) }))
      .addSuccess(Schema.Struct({ as_of: Schema.String, marked: Schema.Int }))
      .annotate(OpenApi.Description, "Marks the given notifications read (all of the account's when `ids` is omitted).")
  )
  .middleware(Authentication)
  .annotate(
    OpenApi.Description,
    "The in-app inbox: alerts of in_app webhooks, with read state (plans with webhooks)."
  ) {}
