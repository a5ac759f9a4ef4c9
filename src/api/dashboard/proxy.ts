/**
 * How the dashboard calls `/v2` (issue 18): `/dashboard/v2/<path>` is `/v2/<path>` answered for the
 * signed-in session, with the session's own API key (`DashboardSessions.keyOf`: derived from the
 * session token, never stored in clear, never sent to the page). Everything `/v2` does applies —
 * authentication by that key, the plan gates, the account's rate limit and its headers,
 * idempotency, logs and metrics — as for any client. Without a live session: 401; a change
 * without the session's CSRF token: 403. The browser's cookie is not passed on.
 */
import { Headers, type HttpApp, HttpServerRequest } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { DashboardSessions } from "../../accounts/DashboardSessions.js"
import { refusal } from "../envelope.js"
import { cookieSession, tokenOf } from "./cookieSession.js"

export const DASHBOARD_V2 = "/dashboard/v2/"

const SAFE = new Set(["GET", "HEAD"])

/**
 * The request with another URL and headers, its body still the one already read: `modify` would
 * make a request that reads the body again, from a stream the request policy has consumed
 * (requestMiddleware.ts reads every JSON body once, before any endpoint).
 */
const forwardedAs = (
  request: HttpServerRequest.HttpServerRequest,
  url: string,
  headers: Headers.Headers
): HttpServerRequest.HttpServerRequest =>
  new Proxy(request, {
    get: (target, property) =>
      property === "url" || property === "originalUrl"
        ? url
        : property === "headers"
          ? headers
          : Reflect.get(target, property, target)
  })

/** `app` with `/dashboard/v2/…` answered as `/v2/…` for the session of the request's cookie */
export const withDashboardProxy = <E, R>(app: HttpApp.Default<E, R>) =>
  Effect.map(
    DashboardSessions,
    (sessions): HttpApp.Default<E, R> =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        if (!request.url.startsWith(DASHBOARD_V2)) return app
        return Effect.gen(function* () {
          const found = yield* cookieSession(sessions, request)
          if (Either.isLeft(found)) return found.left
          const token = tokenOf(request)
          if (!SAFE.has(request.method)) {
            const matches = yield* Effect.option(sessions.csrfMatches(token, request.headers["x-csrf-token"]))
            if (Option.isNone(matches) || !matches.value) {
              return yield* refusal(403, "forbidden", "a change needs the session's x-csrf-token header")
            }
          }
          const key = yield* Effect.option(sessions.keyOf(token))
          if (Option.isNone(key)) return yield* refusal(503, "service_unavailable", "retry shortly")
          const headers = Headers.set(
            Headers.remove(Headers.remove(request.headers, "cookie"), "x-csrf-token"),
            "authorization",
            `Bearer ${key.value}`
          )
          const forwarded = forwardedAs(request, request.url.slice("/dashboard".length), headers)
          return yield* Effect.provideService(app, HttpServerRequest.HttpServerRequest, forwarded)
        })
      })
  )
