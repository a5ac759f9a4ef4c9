/** The dashboard group over HTTP (session.ts holds what each endpoint does). */
import { HttpApiBuilder } from "@effect/platform"
import { VigilApi } from "../Api.js"
import { currentSession, signIn, signOut } from "./session.js"

export const DashboardHttpLive = HttpApiBuilder.group(VigilApi, "dashboard", (handlers) =>
  handlers
    .handle("signIn", (request) => signIn(request))
    .handle("session", () => currentSession())
    .handle("signOut", () => signOut())
)
