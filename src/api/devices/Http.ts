/** Devices over HTTP: registering one for `mobile_push` (register.ts holds the rules). */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { VigilApi } from "../Api.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { registerDevice } from "./register.js"

export const DevicesHttpLive = HttpApiBuilder.group(VigilApi, "devices", (handlers) =>
  handlers.handle("register", ({ payload }) => Effect.flatMap(CurrentKey, (key) => registerDevice(key, payload)))
)
