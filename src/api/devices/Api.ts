/** `/v2/devices`: devices registered for the `mobile_push` channel (plans with webhooks). */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { StrictParams } from "../common/params.js"
import { BadRequest, groupErrors, ServiceUnavailable, WebhookTierRequired } from "../errors.js"
import { Authentication } from "../middleware/Authentication.js"

export class DevicesApi extends HttpApiGroup.make("devices")
  // what every endpoint of the group can answer
  .pipe(groupErrors(BadRequest, WebhookTierRequired, ServiceUnavailable))
  .add(
    HttpApiEndpoint.post("register", "/v2/devices/register")
      .annotate(OpenApi.Summary, "Register a device for mobile push")
      .setPayload(
        StrictParams({
          platform: Schema.String,
          token: Schema.String,
          name: Schema.optional(Schema.NullOr(Schema.String))
        })
      )
      .addSuccess(
        Schema.Struct({
          device_id: Schema.String,
          platform: Schema.String,
          name: Schema.NullOr(Schema.String),
          created_at: Schema.Int
        }),
        { status: 201 }
      )
      .annotate(
        OpenApi.Description,
        "Registers a device for `mobile_push` (`platform`: ios, android or web; `token`: the push token). Registering the same token again returns the same `device_id`."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Devices for mobile push (plans with webhooks).") {}
