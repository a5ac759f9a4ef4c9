/** The dashboard group over HTTP (session.ts, keys.ts, chart.ts, markers.ts and catalog.ts hold what each endpoint does). */
import { HttpApiBuilder } from "@effect/platform"
import { VigilApi } from "../Api.js"
import { queryCatalog } from "./catalog.js"
import { chartBars } from "./chart.js"
import { createKey, listKeys, revokeKey } from "./keys.js"
import { chartMarkers } from "./markers.js"
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
    .handle("markers", (request) => chartMarkers(request))
    .handle("catalog", () => queryCatalog())
)
