/**
 * The session of a raw dashboard route's request (the `/dashboard/v2` proxy, the inbox stream:
 * routes outside the HttpApi group and its `DashboardAuth`), by its cookie: the session, or the
 * answer refusing the request — 503 when the store cannot be read, 401 without a live session.
 */
import type { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { type DashboardSession, type DashboardSessions, SESSION_COOKIE } from "../../accounts/DashboardSessions.js"
import { refusal } from "../envelope.js"

export const cookieSession = (
  sessions: DashboardSessions,
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<Either.Either<DashboardSession, HttpServerResponse.HttpServerResponse>> =>
  Effect.gen(function* () {
    const found = yield* Effect.option(sessions.find(tokenOf(request)))
    if (Option.isNone(found)) {
      return Either.left(yield* refusal(503, "service_unavailable", "the session could not be read; retry shortly"))
    }
    if (Option.isNone(found.value)) {
      return Either.left(yield* refusal(401, "unauthenticated", "not signed in, or the session ended: sign in again"))
    }
    return Either.right(found.value.value)
  })

/** the session token of the request's cookie ("" without one) */
export const tokenOf = (request: HttpServerRequest.HttpServerRequest) => request.cookies[SESSION_COOKIE] ?? ""
