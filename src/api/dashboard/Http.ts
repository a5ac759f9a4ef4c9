/** The dashboard group over HTTP (session.ts and keys.ts hold what each endpoint does). */
import { HttpApiBuilder } from "@effect/platform"
import { VigilApi } from "../Api.js"
import { chartBars } from "./chart.js"
import { createKey, listKeys, revokeKey } from "./keys.js"
import { currentSession, signIn, signOut } from "./session.js"

export const DashboardHttpLive = HttpApiBuilder.group(VigilApi, "dashboard", (handlers) =>
  handlers
    .handle("signIn", (request) => signIn(request))
    .handle("session", () => currentSession())
    .handle("signOut", () => signOut())
    .handle("listKeys", () => listKeys())
    .handle("createKey", (request) => createKey(request))
    .handle("revokeKey", (request) => revokeKey(request))
    .handle("bars", (request) => chartBars(request))
)
