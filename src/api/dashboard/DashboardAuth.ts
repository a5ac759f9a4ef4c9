/**
 * The dashboard's session (issue 18): the `vigil_session` cookie (`HttpOnly`, `SameSite=Strict`)
 * names a signed-in user's session; a mutation (any method but GET and HEAD) also presents the
 * session's CSRF token in `x-csrf-token`. Only the dashboard's own endpoints take it: `/v2` stays
 * bearer-key only.
 */
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context, Schema } from "effect"
import type { DashboardSession } from "../../accounts/DashboardSessions.js"
import { SESSION_COOKIE } from "../../accounts/DashboardSessions.js"
import { Forbidden, ServiceUnavailable, Unauthenticated, wire } from "../errors.js"

export class CurrentSession extends Context.Tag("vigil/CurrentSession")<
  CurrentSession,
  DashboardSession & { readonly token: string }
>() {}

export const sessionCookie = HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE }).pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "The dashboard's session cookie, set by signing in; mutations also send the session's `x-csrf-token`"
  )
)

export class DashboardAuth extends HttpApiMiddleware.Tag<DashboardAuth>()("vigil/DashboardAuth", {
  failure: Schema.Union(wire(Unauthenticated), wire(Forbidden), wire(ServiceUnavailable)),
  provides: CurrentSession,
  security: { session: sessionCookie }
}) {}
