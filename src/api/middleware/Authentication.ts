/**
 * Bearer-key authentication for `/v2`: 401 `unauthenticated` for a missing,
 * malformed, unknown or revoked key; 402 `subscription_required` for an
 * account on plan `none`; 503 when the database cannot answer.
 */
import {
  HttpApiMiddleware,
  HttpApiSecurity,
  HttpApp,
  type HttpServerRequest,
  HttpServerResponse,
  OpenApi
} from "@effect/platform"
import { Clock, Context, Effect, type Exit, FiberRef, Option, Schema } from "effect"
import { Accounts, type AuthenticatedKey } from "../../accounts/Accounts.js"
import { limitFor, rateLimitKey } from "../../ratelimit/policy.js"
import { RateLimiter, rateLimitHeaders } from "../../ratelimit/RateLimiter.js"
import {
  BadRequestError,
  RateLimited,
  RateLimitedError,
  ServiceUnavailable,
  ServiceUnavailableError,
  SubscriptionRequired,
  SubscriptionRequiredError,
  Unauthenticated,
  UnauthenticatedError
} from "../errors.js"

export class CurrentKey extends Context.Tag("vigil/CurrentKey")<CurrentKey, AuthenticatedKey>() {}

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("vigil/Authentication", {
  failure: Schema.Union(
    UnauthenticatedError,
    SubscriptionRequiredError,
    RateLimitedError,
    ServiceUnavailableError,
    BadRequestError
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

/** The two history endpoints (and the signal events, a per-ticker history read), with their own, stricter per-minute limit. */
const HISTORY_ROUTE = /^\/v2\/(signals\/[^/]+\/[^/]+\/(history\/[^/]+|events)|tickers\/[^/]+\/history)\/?$/

export const BEARER = /^Bearer[ ]+(\S+)\s*$/i

export type AuthenticationFailure = Unauthenticated | SubscriptionRequired | RateLimited | ServiceUnavailable

/**
 * Authenticates a request's key and counts it against the key's rate limit;
 * the `X-RateLimit-*` headers go on whatever answers the request.
 */
export const makeAuthenticate = Effect.gen(function* () {
  const accounts = yield* Accounts
  const limiter = yield* RateLimiter
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
      // a key the cache answers at once needs no deadline (a timeout races fibers: ~70 µs a request)
      const cached = accounts.authenticateCached(match[1], yield* Clock.currentTimeMillis)
      const found =
        cached !== undefined
          ? Option.some(cached)
          : yield* accounts.authenticate(match[1]).pipe(
              Effect.timeoutFail({
                duration: "3 seconds",
                onTimeout: () =>
                  new ServiceUnavailable({
                    message: "the database did not answer in time",
                    details: { retry_after: 5 }
                  })
              }),
              Effect.catchTag("SqlError", () =>
                Effect.fail(
                  new ServiceUnavailable({ message: "the database is unavailable", details: { retry_after: 5 } })
                )
              )
            )
      if (Option.isNone(found)) {
        return yield* new Unauthenticated({ message: "invalid, unknown or revoked API key" })
      }
      if (found.value.account.plan === "none") {
        return yield* new SubscriptionRequired({ message: "this account has no active plan" })
      }
      const key = found.value
      const path = request.url.split("?")[0]
      const scope = HISTORY_ROUTE.test(path) ? "history" : "general"
      const decision = yield* limiter.check(
        rateLimitKey.apiKey(scope, key.keyId),
        limitFor(scope, key.account.plan, key.account.customRateLimit)
      )
      const headers = rateLimitHeaders(decision)
      yield* HttpApp.appendPreResponseHandler((_request, response) =>
        Effect.succeed(HttpServerResponse.setHeaders(response, headers))
      )
      if (!decision.allowed) {
        return yield* new RateLimited({
          message: `rate limit of ${decision.limit} requests per minute exceeded${scope === "history" ? " on history endpoints" : ""}; retry after ${decision.retryAfterSeconds ?? 1} s`,
          details: { retry_after: decision.retryAfterSeconds ?? 1 }
        })
      }
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
