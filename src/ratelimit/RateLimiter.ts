/**
 * The rate limiter: a rolling window per key that never admits more than
 * `limit` requests in any `windowMs` span (60 s by default). See
 * docs/rate-limits.md for the algorithm, the guarantee, the headers and the
 * Redis outage policy.
 *
 * Two stores behind one tag: in-process (default) and Redis (with REDIS_URL),
 * one atomic Lua script per check. Both take the time from the Effect Clock,
 * so tests drive both with TestClock.
 *
 * `@effect/experimental`'s RateLimiter is not used: it offers fixed-window and
 * token-bucket only, and both admit up to about twice the limit within 60 s
 * (test/ratelimit/experimental.test.ts shows 119 admissions for a limit of 60).
 */
import { Clock, Context, Duration, Effect, Layer, Metric, Option } from "effect"
import type { Redis as IORedis } from "ioredis"
import { Redis, redisBreaker } from "../store/Redis.js"
import { makeRedisWindow } from "./redisStore.js"
import { BUCKET_MS, makeMemoryWindow, type WindowOutcome } from "./window.js"

export const DEFAULT_WINDOW_MS = 60_000

/** The answer to one check; what the rate-limit headers carry. */
export interface Decision {
  readonly allowed: boolean
  readonly limit: number
  /** requests that would be admitted right now: limit − admissions counted in the window (this one included); ≥ 0 */
  readonly remaining: number
  /** seconds, rounded up, until every admission counted now has left the window (remaining back to limit); 0 if none */
  readonly resetSeconds: number
  /**
   * on a refusal only: seconds, rounded up, until one more request would be admitted, and under
   * the window (1..59 for a 60 s window, as the spec's Limits require): when the limit was spent
   * within the last second the true wait is between 59 and 60 s, and 59 is answered
   */
  readonly retryAfterSeconds?: number
}

export interface RateLimiterShape {
  readonly store: "memory" | "redis"
  /**
   * Admits or refuses one request for `key` against `limit` per rolling
   * `windowMs` (an integer ≥ 1000). A refusal is not counted. Never fails:
   * with Redis, an unreachable or slow server falls back to the in-process
   * limiter within the timeout.
   */
  readonly check: (key: string, limit: number, windowMs?: number) => Effect.Effect<Decision>
  /** `check` at once, for the in-process store (`nowMs` from the Effect Clock); absent for Redis */
  readonly checkNow?: (key: string, limit: number, nowMs: number, windowMs?: number) => Decision
}

export class RateLimiter extends Context.Tag("vigil/RateLimiter")<RateLimiter, RateLimiterShape>() {}

export const redisFallbackTotal = Metric.counter("ratelimit_redis_fallback_total", {
  description: "Rate-limit checks decided by the in-process limiter because Redis was unreachable, failed or too slow",
  incremental: true
})

/** The largest `Retry-After` for a window: whole seconds under it (59 for 60 s), at least 1. */
export const maxRetryAfterSeconds = (windowMs: number) => Math.max(1, Math.ceil(windowMs / 1000) - 1)

/** Shared by both stores, so the two answer with identical numbers. */
export const toDecision = (limit: number, windowMs: number, outcome: WindowOutcome): Decision => {
  const base = {
    allowed: outcome.allowed,
    limit,
    remaining: Math.max(0, limit - outcome.count),
    resetSeconds: outcome.resetMs > 0 ? Math.ceil(outcome.resetMs / 1000) : 0
  }
  if (outcome.allowed) return base
  return {
    ...base,
    retryAfterSeconds: Math.min(maxRetryAfterSeconds(windowMs), Math.max(1, Math.ceil(outcome.retryMs / 1000)))
  }
}

/** The headers of every rate-limited response, success and 429 alike (lower-case names). */
export const rateLimitHeaders = (decision: Decision): Record<string, string> => {
  const headers: Record<string, string> = {
    "x-ratelimit-limit": String(decision.limit),
    "x-ratelimit-remaining": String(Math.max(0, decision.remaining)),
    "x-ratelimit-reset": String(decision.resetSeconds)
  }
  if (!decision.allowed && decision.retryAfterSeconds !== undefined) {
    headers["retry-after"] = String(decision.retryAfterSeconds)
  }
  return headers
}

const validWindow = (windowMs: number) => Number.isInteger(windowMs) && windowMs >= BUCKET_MS

const normalizeLimit = (limit: number) => (Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : 0)

const invalidWindow = (windowMs: number) =>
  Effect.dieMessage(`rate limiter: windowMs must be an integer of at least ${BUCKET_MS} (got ${windowMs})`)

/** The in-process limiter: a Map of per-key one-second buckets, idle keys evicted as checks go by. */
export const makeMemoryLimiter: Effect.Effect<RateLimiterShape> = Effect.sync(() => {
  const window = makeMemoryWindow()
  const decide = (key: string, limit: number, nowMs: number, windowMs: number) => {
    const lim = normalizeLimit(limit)
    return toDecision(lim, windowMs, window.take(key, lim, windowMs, Math.floor(nowMs)))
  }
  return {
    store: "memory",
    check: (key, limit, windowMs = DEFAULT_WINDOW_MS) =>
      validWindow(windowMs)
        ? Effect.clockWith((clock) => Effect.sync(() => decide(key, limit, clock.unsafeCurrentTimeMillis(), windowMs)))
        : invalidWindow(windowMs),
    checkNow: (key, limit, nowMs, windowMs = DEFAULT_WINDOW_MS) => {
      if (!validWindow(windowMs)) throw new Error(`rate limiter: windowMs must be an integer of at least ${BUCKET_MS}`)
      return decide(key, limit, nowMs, windowMs)
    }
  }
})

export interface RedisLimiterOptions {
  /**
   * bound on one Redis check, measured on the real clock (not the TestClock); default 1 s. Not
   * tighter: the timer also counts the time the answer waits in a busy event loop, and a burst
   * of requests once made a healthy Redis look down at 100 ms (each instance then admitted the
   * whole limit on its own).
   */
  readonly timeout?: Duration.DurationInput
  /**
   * after a failure or a timeout, skip Redis for this long (real clock; the connection's
   * `redisBreaker`, so every caller on it skips); default 5 s. Longer than
   * the timeout, so with Redis hung only the requests of one timeout in six wait for it (a 1 s
   * cooldown after a 1 s timeout made a steady client wait on nearly every request)
   */
  readonly cooldown?: Duration.DurationInput
  /** at most one warning per this interval (real clock); default 30 s */
  readonly logInterval?: Duration.DurationInput
}

/**
 * The Redis limiter. Outage policy: when a check fails, times out, or Redis
 * failed within the cooldown, the request is decided by this instance's
 * in-process limiter (fail open to a per-instance limit, never unlimited),
 * `ratelimit_redis_fallback_total` counts it, and a warning is logged at most
 * once per `logInterval`.
 */
export const makeRedisLimiter = (client: IORedis, options: RedisLimiterOptions = {}): Effect.Effect<RateLimiterShape> =>
  Effect.sync(() => {
    const realClock = Clock.make()
    const timeoutMs = Duration.toMillis(options.timeout ?? Duration.seconds(1))
    const cooldownMs = Duration.toMillis(options.cooldown ?? Duration.seconds(5))
    const logIntervalMs = Duration.toMillis(options.logInterval ?? Duration.seconds(30))
    const redisWindow = makeRedisWindow(client, timeoutMs)
    const fallback = makeMemoryWindow()
    // shared with the key-change epoch (src/accounts/authChanges.ts): one outage, one wait
    const breaker = redisBreaker(client)
    let lastLogAt = Number.NEGATIVE_INFINITY
    let unlogged = 0

    const useFallback = (key: string, limit: number, windowMs: number, now: number, reason: string) =>
      Effect.suspend(() => {
        const realNow = realClock.unsafeCurrentTimeMillis()
        unlogged++
        const log =
          realNow - lastLogAt >= logIntervalMs
            ? Effect.logWarning("rate limiter: Redis unavailable, deciding with the in-process limiter").pipe(
                Effect.annotateLogs({ reason, fallbacks: unlogged })
              )
            : Effect.void
        if (realNow - lastLogAt >= logIntervalMs) {
          lastLogAt = realNow
          unlogged = 0
        }
        return Metric.increment(redisFallbackTotal).pipe(
          Effect.zipRight(log),
          Effect.as(toDecision(limit, windowMs, fallback.take(key, limit, windowMs, now)))
        )
      })

    return {
      store: "redis",
      check: (key, limit, windowMs = DEFAULT_WINDOW_MS) => {
        if (!validWindow(windowMs)) return invalidWindow(windowMs)
        const lim = normalizeLimit(limit)
        return Effect.clockWith((clock) => {
          const now = Math.floor(clock.unsafeCurrentTimeMillis())
          if (breaker.open()) {
            return useFallback(key, lim, windowMs, now, "cooldown after a Redis failure")
          }
          return redisWindow(key, lim, windowMs, now).pipe(
            Effect.map((outcome) => toDecision(lim, windowMs, outcome)),
            Effect.catchAll((error) => {
              breaker.trip(cooldownMs)
              return useFallback(key, lim, windowMs, now, error.reason)
            })
          )
        })
      }
    }
  })

export const layerMemory: Layer.Layer<RateLimiter> = Layer.effect(RateLimiter, makeMemoryLimiter)

export const layerRedis = (client: IORedis, options?: RedisLimiterOptions): Layer.Layer<RateLimiter> =>
  Layer.effect(RateLimiter, makeRedisLimiter(client, options))

/** Redis when REDIS_URL gave a connection, in-process otherwise. */
export const RateLimiterLive: Layer.Layer<RateLimiter, never, Redis> = Layer.effect(
  RateLimiter,
  Effect.flatMap(Redis, (redis) =>
    Option.match(redis, {
      onNone: () => makeMemoryLimiter,
      onSome: (client) => makeRedisLimiter(client)
    })
  )
)
