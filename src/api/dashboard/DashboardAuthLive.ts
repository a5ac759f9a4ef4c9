/** The implementation of the DashboardAuth middleware (DashboardAuth.ts holds its tag). */
import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Option, Redacted } from "effect"
import { DashboardSessions } from "../../accounts/DashboardSessions.js"
import { Forbidden, orUnavailable, Unauthenticated } from "../errors.js"
import { DashboardAuth } from "./DashboardAuth.js"

const SAFE = new Set(["GET", "HEAD"])

export const DashboardAuthLive = Layer.effect(
  DashboardAuth,
  Effect.gen(function* () {
    const sessions = yield* DashboardSessions
    return {
      session: (cookie) =>
        Effect.gen(function* () {
          const token = Redacted.value(cookie)
          const found = yield* orUnavailable(sessions.find(token))
          if (Option.isNone(found)) {
            return yield* new Unauthenticated({ message: "not signed in, or the session ended: sign in again" })
          }
          const request = yield* HttpServerRequest.HttpServerRequest
          if (!SAFE.has(request.method)) {
            const presented = request.headers["x-csrf-token"]
            if (!(yield* orUnavailable(sessions.csrfMatches(token, presented)))) {
              return yield* new Forbidden({
                message:
                  presented === undefined
                    ? "a change needs the session's x-csrf-token header (from signing in or GET /dashboard/api/session)"
                    : "the x-csrf-token header is not this session's"
              })
            }
          }
          return { ...found.value, token }
        })
    }
  })
)
