/** The admin group over HTTP (operations.ts holds what each endpoint does). */
import { HttpApiBuilder } from "@effect/platform"
import { VigilApi } from "../Api.js"
import {
  createAccount,
  createKey,
  createUser,
  importBars,
  refreshMarket,
  revokeKey,
  setFeedPaused,
  updateAccount
} from "./operations.js"

export const AdminHttpLive = HttpApiBuilder.group(VigilApi, "admin", (handlers) =>
  handlers
    .handle("createAccount", (request) => createAccount(request))
    .handle("updateAccount", (request) => updateAccount(request))
    .handle("createKey", (request) => createKey(request))
    .handle("createUser", (request) => createUser(request))
    .handle("refresh", () => refreshMarket())
    .handle("pauseFeed", () => setFeedPaused(true))
    .handle("resumeFeed", () => setFeedPaused(false))
    .handle("import", (request) => importBars(request))
    .handle("revokeKey", (request) => revokeKey(request))
)
