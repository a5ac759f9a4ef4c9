import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Plan } from "../../accounts/plans.js"
import { BadRequest, withErrors } from "../errors.js"
import { Authentication } from "../middleware/Authentication.js"

export const WhoAmI = Schema.Struct({
  account_id: Schema.String,
  key_id: Schema.String,
  plan: Plan,
  rate_limit_per_minute: Schema.Number
})

export class AccountApi extends HttpApiGroup.make("account")
  .add(
    HttpApiEndpoint.get("whoami", "/v2/account")
      .annotate(OpenApi.Summary, "The account behind this key")
      .addSuccess(WhoAmI)
      .pipe(withErrors(BadRequest))
      .annotate(
        OpenApi.Description,
        "The account and key behind the presented API key, with the plan and rate limit. Takes no parameters (any is 400)."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "The account and key behind an API key.") {}
