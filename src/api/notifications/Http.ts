/** The in-app inbox over HTTP (inbox.ts holds the rules). */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { VigilApi } from "../Api.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { listNotifications, markRead } from "./inbox.js"

export const NotificationsHttpLive = HttpApiBuilder.group(VigilApi, "notifications", (handlers) =>
  handlers
    .handle("list", ({ urlParams }) => Effect.flatMap(CurrentKey, (key) => listNotifications(key, urlParams)))
    .handle("markRead", ({ payload }) => Effect.flatMap(CurrentKey, (key) => markRead(key, payload.ids)))
)
