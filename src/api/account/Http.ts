import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { VigilApi } from "../Api.js"
import { CurrentKey } from "../middleware/Authentication.js"

export const AccountHttpLive = HttpApiBuilder.group(VigilApi, "account", (handlers) =>
  handlers.handle("whoami", () =>
    Effect.map(CurrentKey, (key) => ({
      account_id: key.account.id,
      key_id: key.keyId,
      plan: key.account.plan,
      rate_limit_per_minute: key.account.rateLimitPerMinute
    }))
  )
)
