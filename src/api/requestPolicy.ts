/**
 * The rules every `/v2` request is held to, as plain functions: its request
 * id, who may be served (the plan admission after the key), which rate limit
 * counts it and what a refusal says, and what is recorded about it (the HTTP
 * metrics and the request's log line). The HttpApi path applies them in its
 * middlewares (requestMiddleware.ts, middleware/Authentication.ts); the
 * direct answers (direct/) apply the same functions without a fiber.
 */
import { MetricLabel } from "effect"
import type { AuthenticatedKey } from "../accounts/Accounts.js"
import { httpRequestDuration, httpRequestsTotal } from "../observability/httpMetrics.js"
import { randomBase64url } from "../randomPool.js"
import { limitFor, type RateLimitScope, rateLimitKey } from "../ratelimit/policy.js"
import type { Decision } from "../ratelimit/RateLimiter.js"
import { RateLimited, SubscriptionRequired } from "./errors.js"
import { REQUEST_ID } from "./headerPatterns.js"

/** Request ids carry 96 random bits, from the pooled CSPRNG buffer (randomPool.ts). */
export const newRequestId = () => `req_${randomBase64url(12)}`

/** The request's id: the caller's `X-Request-Id` when it is a valid one, else a new one. */
export const requestIdOf = (incoming: string | undefined): string =>
  incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : newRequestId()

/** 402 for an account without a plan; undefined when the key's account may be served. */
export const admissionFailure = (key: AuthenticatedKey): SubscriptionRequired | undefined =>
  key.account.plan === "none" ? new SubscriptionRequired({ message: "this account has no active plan" }) : undefined

/** The two history endpoints (and the signal events, a per-ticker history read), with their own, stricter per-minute limit. */
const HISTORY_ROUTE = /^\/v2\/(signals\/[^/]+\/[^/]+\/(history\/[^/]+|events)|tickers\/[^/]+\/history)\/?$/

/** The limit a request to `path` counts against. */
export const rateScopeOf = (path: string): RateLimitScope => (HISTORY_ROUTE.test(path) ? "history" : "general")

/** The limiter key and per-minute limit of a key's requests in a scope. */
export const rateLimitOf = (key: AuthenticatedKey, scope: RateLimitScope): readonly [string, number] => [
  rateLimitKey.apiKey(scope, key.keyId),
  limitFor(scope, key.account.plan, key.account.customRateLimit)
]

/** The 429 of a refused request. */
export const rateLimited = (decision: Decision, scope: RateLimitScope): RateLimited =>
  new RateLimited({
    message: `rate limit of ${decision.limit} requests per minute exceeded${scope === "history" ? " on history endpoints" : ""}; retry after ${decision.retryAfterSeconds ?? 1} s`,
    details: { retry_after: decision.retryAfterSeconds ?? 1 }
  })

/**
 * The labels of the two HTTP metrics per method, route and status, built once
 * per combination (routes are the API's patterns, so the set is small) and
 * passed as the same array every time, which the metric keeps its registry
 * entry for: `Metric.tagged` per request rebuilt, re-hashed and looked up the
 * metric key each time.
 */
const labelCache = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()

export const labelsFor = (method: string, route: string, status: number) => {
  const key = `${method} ${route} ${status}`
  let labels = labelCache.get(key)
  if (labels === undefined) {
    labels = [
      MetricLabel.make("method", method),
      MetricLabel.make("route", route),
      MetricLabel.make("status", String(status))
    ]
    labelCache.set(key, labels)
  }
  return labels
}

/** Counts an answered request in the HTTP metrics. */
export const recordRequest = (method: string, route: string, status: number, seconds: number): void => {
  const labels = labelsFor(method, route, status)
  httpRequestsTotal.unsafeUpdate(1, labels)
  httpRequestDuration.unsafeUpdate(seconds, labels)
}

/** Whether a request to `route` gets a log line (the probes and the metrics scrape do not). */
export const logsRequest = (route: string): boolean =>
  route !== "/metrics" && route !== "/healthz" && route !== "/readyz"

/** The annotations of a request's log line, in order (the direct answers add `cache`). */
export const REQUEST_LOG_KEYS = ["request_id", "method", "path", "route", "status", "duration_ms"] as const

/** A duration in milliseconds as the log line writes it (µs precision). */
export const logMillis = (seconds: number): number => Math.round(seconds * 1e6) / 1e3
