/**
 * The sandbox's per-client-IP rate limit: `SANDBOX_RATE_PER_MINUTE` requests
 * per rolling minute per client IP (rate-limit key `ip:<address>`), with the
 * same `X-RateLimit-*` headers as the authenticated endpoints on every
 * response and 429 `rate_limited` with `Retry-After` past the limit.
 *
 * The client IP is the TCP peer address of the connection. `X-Forwarded-For`
 * and similar headers are never trusted (anyone can send them), so behind a
 * reverse proxy every client shares the proxy's address: a deployment behind
 * one must make the proxy enforce the limit or pass the peer address through
 * (e.g. the PROXY protocol) — see docs/news.md.
 *
 * It runs before the request body is decoded, so malformed requests count too.
 */
import { HttpApiMiddleware, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { rateLimitKey, SANDBOX_RATE_PER_MINUTE } from "../../ratelimit/policy.js"
import { RateLimiter, rateLimitHeaders } from "../../ratelimit/RateLimiter.js"
import { RateLimited, wire } from "../errors.js"

export class SandboxRateLimit extends HttpApiMiddleware.Tag<SandboxRateLimit>()("vigil/SandboxRateLimit", {
  failure: wire(RateLimited)
}) {}

/** The peer address, IPv4-mapped IPv6 (`::ffff:1.2.3.4`) written as plain IPv4. */
export const clientIp = (request: HttpServerRequest.HttpServerRequest): string => {
  const address = Option.getOrElse(request.remoteAddress, () => "unknown")
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address
}

export const SandboxRateLimitLive = Layer.effect(
  SandboxRateLimit,
  Effect.gen(function* () {
    const limiter = yield* RateLimiter
    return Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const decision = yield* limiter.check(rateLimitKey.sandbox(clientIp(request)), SANDBOX_RATE_PER_MINUTE)
      const headers = rateLimitHeaders(decision)
      yield* HttpApp.appendPreResponseHandler((_request, response) =>
        Effect.succeed(HttpServerResponse.setHeaders(response, headers))
      )
      if (!decision.allowed) {
        const retryAfter = decision.retryAfterSeconds ?? 1
        return yield* new RateLimited({
          message: `sandbox rate limit of ${decision.limit} requests per minute per client IP exceeded; retry after ${retryAfter} s`,
          details: { retry_after: retryAfter }
        })
      }
    })
  })
)
