/**
 * The spec's client guidance as an `HttpClient` transformation (the typed client's default):
 * a 429 waits at least its `Retry-After`; a 5xx or a request that never got an answer backs off
 * from 1 s, doubling, at most 60 s a wait (a 503's `Retry-After` when longer); 400, 401 and every
 * other answer below 500 are never retried. A POST gets an `Idempotency-Key` (one for all its
 * attempts, unless the caller set one), so a retried create never creates twice. Waits are on
 * the Effect `Clock` (a test drives them with `TestClock`).
 */
import { HttpClient, type HttpClientError, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Duration, Effect, Either } from "effect"

export interface RetryPolicy {
  /** retries after the first attempt (default 5) */
  readonly maxRetries?: number
  /** the first backoff (default 1 s), doubling */
  readonly baseDelay?: Duration.DurationInput
  /** the longest backoff (default 60 s) */
  readonly maxDelay?: Duration.DurationInput
}

/** seconds of a `Retry-After` header (delta seconds or an HTTP date), or undefined */
export const retryAfterSeconds = (header: string | undefined, nowMs: number): number | undefined => {
  if (header === undefined || header.trim() === "") return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds)
  const at = Date.parse(header)
  return Number.isNaN(at) ? undefined : Math.max(0, (at - nowMs) / 1000)
}

/** how long to wait before retry `retry` (0-based) after `status` (undefined: no answer), or undefined: do not retry */
export const retryDelayMs = (
  status: number | undefined,
  retryAfter: number | undefined,
  retry: number,
  policy: RetryPolicy = {}
): number | undefined => {
  if (retry >= (policy.maxRetries ?? 5)) return undefined
  const base = Duration.toMillis(policy.baseDelay ?? Duration.seconds(1))
  const cap = Duration.toMillis(policy.maxDelay ?? Duration.seconds(60))
  const backoff = Math.min(cap, base * 2 ** retry)
  if (status === 429) return Math.max((retryAfter ?? 0) * 1000, retryAfter === undefined ? backoff : 0)
  if (status === undefined || status >= 500) return Math.max(backoff, (retryAfter ?? 0) * 1000)
  return undefined
}

const idempotencyKey = () => `vigil-client-${crypto.randomUUID()}`

/** `client` retrying as the spec's client guidance says */
export const withRetries =
  (policy: RetryPolicy = {}) =>
  (client: HttpClient.HttpClient): HttpClient.HttpClient =>
    HttpClient.make((request) => {
      const sent =
        request.method === "POST" && request.headers["idempotency-key"] === undefined
          ? HttpClientRequest.setHeader(request, "idempotency-key", idempotencyKey())
          : request
      const attempt = (
        retry: number
      ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
        Effect.gen(function* () {
          const answer = yield* Effect.either(client.execute(sent))
          const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
          const status = Either.isRight(answer) ? answer.right.status : undefined
          // a fault that is not the transport's (a bad URL, an aborted request) is not retried
          if (Either.isLeft(answer) && !(answer.left._tag === "RequestError" && answer.left.reason === "Transport")) {
            return yield* Effect.fail(answer.left)
          }
          const retryAfter = Either.isRight(answer)
            ? retryAfterSeconds(answer.right.headers["retry-after"], now)
            : undefined
          const wait = retryDelayMs(status, retryAfter, retry, policy)
          if (wait === undefined) return Either.isRight(answer) ? answer.right : yield* Effect.fail(answer.left)
          yield* Effect.sleep(Duration.millis(wait))
          return yield* attempt(retry + 1)
        })
      return attempt(0)
    })
