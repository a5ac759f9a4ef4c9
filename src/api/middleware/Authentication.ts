/**
 * Bearer-key authentication for `/v2`: 401 `unauthenticated` for a missing,
 * malformed, unknown or revoked key; 402 `subscription_required` for an
 * account on plan `none`; 503 when the database cannot answer.
 */
import { randomBytes, timingSafeEqual } from "node:crypto"
import {
  HttpApiMiddleware,
  HttpApiSecurity,
  HttpApp,
  type HttpServerRequest,
  HttpServerResponse,
  OpenApi
} from "@effect/platform"
import { Context, Effect, type Exit, FiberRef, Option, Schema } from "effect"
import { Accounts, type AuthenticatedKey } from "../../accounts/Accounts.js"
import { RateLimiter, rateLimitHeaders } from "../../ratelimit/RateLimiter.js"
import { BadRequest, RateLimited, ServiceUnavailable, SubscriptionRequired, Unauthenticated, wire } from "../errors.js"
import { admissionFailure, rateLimited, rateLimitOf, rateScopeOf } from "../requestPolicy.js"

export class CurrentKey extends Context.Tag("vigil/CurrentKey")<CurrentKey, AuthenticatedKey>() {}

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("vigil/Authentication", {
  failure: Schema.Union(
    wire(Unauthenticated),
    wire(SubscriptionRequired),
    wire(RateLimited),
    wire(ServiceUnavailable),
    wire(BadRequest)
  ),
  provides: CurrentKey,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "An API key `vigil_test_…` or `vigil_live_…` as `Authorization: Bearer <key>`"
      )
    )
  }
}) {}

export const BEARER = /^Bearer[ ]+(\S+)\s*$/i

/**
 * The header (and its value, a secret of this process, never sent out of it) marking a `/v2` call
 * the service makes to itself on behalf of a request it already counted against the key's rate
 * limit: `/mcp`'s tools (api/mcp/http.ts). A caller outside the process cannot know the value.
 */
export const INTERNAL_CALL_HEADER = "x-vigil-internal-call"
const INTERNAL_CALL_TOKEN = randomBytes(32).toString("base64url")
export const internalCallHeaders: Readonly<Record<string, string>> = { [INTERNAL_CALL_HEADER]: INTERNAL_CALL_TOKEN }
const isInternalCall = (value: string | undefined) =>
  value !== undefined &&
  value.length === INTERNAL_CALL_TOKEN.length &&
  timingSafeEqual(Buffer.from(value), Buffer.from(INTERNAL_CALL_TOKEN))

export type AuthenticationFailure = Unauthenticated | SubscriptionRequired | RateLimited | ServiceUnavailable

/**
 * Identifies a request's key (the Authorization header, the key's lookup, the plan's admission)
 * without counting it: `makeAuthenticate` counts it too; `/mcp` counts each tool's API call
 * instead (src/mcp/http.ts).
 */
export const makeIdentify = Effect.gen(function* () {
  const accounts = yield* Accounts
  return (request: HttpServerRequest.HttpServerRequest): Effect.Effect<AuthenticatedKey, AuthenticationFailure> =>
    Effect.gen(function* () {
      const header = request.headers.authorization
      if (header === undefined || header.trim() === "") {
        return yield* new Unauthenticated({ message: "missing Authorization header: send `Bearer <API key>`" })
      }
      const match = BEARER.exec(header)
      if (match === null) {
        return yield* new Unauthenticated({
          message: "malformed Authorization header: expected `Bearer vigil_<test|live>_<key>`"
        })
      }
      const found = yield* accounts.authenticate(match[1]).pipe(
        Effect.catchTags({
          KeyLookupTimeout: () =>
            Effect.fail(
              new ServiceUnavailable({ message: "the database did not answer in time", details: { retry_after: 5 } })
            ),
          SqlError: () =>
            Effect.fail(new ServiceUnavailable({ message: "the database is unavailable", details: { retry_after: 5 } }))
        })
      )
      if (Option.isNone(found)) {
        return yield* new Unauthenticated({ message: "invalid, unknown or revoked API key" })
      }
      const key = found.value
      const refused = admissionFailure(key)
      if (refused !== undefined) return yield* refused
      return key
    })
})

/**
 * Authenticates a request's key and counts it against the key's rate limit
 * (requestPolicy.ts); the `X-RateLimit-*` headers go on whatever answers the request.
 */
export const makeAuthenticate = Effect.gen(function* () {
  const identify = yield* makeIdentify
  const limiter = yield* RateLimiter
  return (request: HttpServerRequest.HttpServerRequest): Effect.Effect<AuthenticatedKey, AuthenticationFailure> =>
    Effect.gen(function* () {
      const key = yield* identify(request)
      // a call this process makes for a request it already counted (an /mcp tool's): not counted twice
      if (isInternalCall(request.headers[INTERNAL_CALL_HEADER])) return key
      const scope = rateScopeOf(request.url.split("?")[0])
      const decision = yield* limiter.check(...rateLimitOf(key, scope))
      const headers = rateLimitHeaders(decision)
      yield* HttpApp.appendPreResponseHandler((_request, response) =>
        Effect.succeed(HttpServerResponse.setHeaders(response, headers))
      )
      if (!decision.allowed) return yield* rateLimited(decision, scope)
      return key
    })
})

/**
 * The outcome of `makeAuthenticate` for this request when the idempotency
 * layer (idempotency.ts) already authenticated it, before it looked its
 * Idempotency-Key up: the middleware takes it as its own, so the request is
 * neither authenticated nor counted against the rate limit twice.
 */
export const preAuthenticated = FiberRef.unsafeMake<Exit.Exit<AuthenticatedKey, AuthenticationFailure> | undefined>(
  undefined
)
