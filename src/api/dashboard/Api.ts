/** The dashboard's own endpoints (issue 18): its session (sign in, who is signed in, sign out). */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Plan } from "../../accounts/plans.js"
import { BadRequest, groupErrors, ServiceUnavailable, SignInLocked, Unauthenticated, withErrors } from "../errors.js"
import { DashboardAuth } from "./DashboardAuth.js"

export const SessionView = Schema.Struct({
  user: Schema.Struct({ id: Schema.String, email: Schema.String, account_id: Schema.String, plan: Plan }),
  /** what the session's mutations send as `x-csrf-token` */
  csrf_token: Schema.String,
  expires_at: Schema.String
})

export class DashboardApi extends HttpApiGroup.make("dashboard")
  .add(
    HttpApiEndpoint.post("signIn", "/dashboard/api/session")
      .annotate(OpenApi.Summary, "Sign in to the dashboard")
      .setPayload(Schema.Struct({ email: Schema.String, password: Schema.String }))
      .addSuccess(SessionView)
      .pipe(withErrors(BadRequest, Unauthenticated, SignInLocked))
      .annotate(
        OpenApi.Description,
        "Checks a dashboard user's email and password and sets the session cookie (`HttpOnly`, `SameSite=Strict`, `Secure` behind https). Wrong email or password: 401, the same for both. After 5 wrong passwords in a row the email is locked out (429 with Retry-After), for 15 minutes, doubling with each further wrong one."
      )
  )
  .add(
    HttpApiEndpoint.get("session", "/dashboard/api/session")
      .annotate(OpenApi.Summary, "The signed-in dashboard user")
      .addSuccess(SessionView)
      .middleware(DashboardAuth)
  )
  .add(
    HttpApiEndpoint.del("signOut", "/dashboard/api/session")
      .annotate(OpenApi.Summary, "Sign out of the dashboard")
      .addSuccess(Schema.Struct({ ok: Schema.Literal(true) }))
      .middleware(DashboardAuth)
      .annotate(OpenApi.Description, "Ends the session (its cookie no longer signs in) and clears the cookie.")
  )
  .pipe(groupErrors(ServiceUnavailable))
  .annotate(
    OpenApi.Description,
    "The dashboard's session, by cookie. `/v2` does not take it: the API stays bearer-key only."
  ) {}
