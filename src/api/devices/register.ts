/** Registering a device for `mobile_push`: platform, push token and an optional name, validated. */
import { Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { newId } from "../../alerts/ids.js"
import { Deliveries } from "../../store/deliveries.js"
import { requireFeature } from "../common/features.js"
import { BadRequest, orUnavailable } from "../errors.js"
import { MAX_WEBHOOK_NAME } from "../webhooks/Api.js"

const PLATFORMS: ReadonlyArray<string> = ["ios", "android", "web"]

export const registerDevice = (
  key: AuthenticatedKey,
  payload: { readonly platform: string; readonly token: string; readonly name?: string | null | undefined }
) =>
  Effect.gen(function* () {
    yield* requireFeature(key, "webhooks", "using webhooks")
    const platform = payload.platform.trim().toLowerCase()
    if (!PLATFORMS.includes(platform)) {
      return yield* new BadRequest({
        message: `platform must be ios, android or web (got ${JSON.stringify(payload.platform)})`
      })
    }
    const token = payload.token.trim()
    if (token.length < 8 || token.length > 4096 || /\s/.test(token)) {
      return yield* new BadRequest({
        message: "token must be the device's push token: 8 to 4096 characters, no spaces"
      })
    }
    const name = payload.name?.trim() ?? null
    if (name !== null && name.length > MAX_WEBHOOK_NAME) {
      return yield* new BadRequest({ message: `name must be at most ${MAX_WEBHOOK_NAME} characters` })
    }
    const device = yield* orUnavailable(
      (yield* Deliveries).registerDevice(key.account.id, newId("dev"), platform, token, name === "" ? null : name)
    )
    return { device_id: device.id, platform: device.platform, name: device.name, created_at: device.createdAt }
  })
