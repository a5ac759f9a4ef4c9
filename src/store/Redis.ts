/**
 * The optional Redis connection (REDIS_URL). Services that can share state
 * across instances (rate limits, coordination) take `Redis` and fall back to
 * their in-process implementation when it is `None`.
 *
 * Commands never queue while disconnected (`enableOfflineQueue: false`) and
 * fail fast, so a Redis outage turns into a documented policy at the caller
 * rather than a hanging request. ioredis reconnects by itself.
 */
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { Redis as IORedis } from "ioredis"
import { AppConfig } from "../config/AppConfig.js"

export class Redis extends Context.Tag("vigil/Redis")<Redis, Option.Option<IORedis>>() {}

/**
 * One view of a Redis connection's health, shared by everything on this
 * instance that asks Redis something on a request's path (the rate limiter,
 * the key-change epoch): after one of them saw a failure or a timeout, all of
 * them skip Redis for the cooldown, so a request waits for a hung Redis once
 * rather than once per caller. Real time: an outage is real whatever the
 * Effect Clock says.
 */
export interface RedisBreaker {
  /** Redis is being skipped (a call failed within the cooldown) */
  readonly open: () => boolean
  /** a call failed or timed out: skip Redis for the next `cooldownMs` */
  readonly trip: (cooldownMs: number) => void
}

const breakers = new WeakMap<IORedis, RedisBreaker>()

/** The breaker of a connection (one per client, created on first use). */
export const redisBreaker = (client: IORedis): RedisBreaker => {
  let breaker = breakers.get(client)
  if (breaker === undefined) {
    let skipUntil = Number.NEGATIVE_INFINITY
    breaker = {
      open: () => Date.now() < skipUntil,
      trip: (cooldownMs) => {
        skipUntil = Math.max(skipUntil, Date.now() + cooldownMs)
      }
    }
    breakers.set(client, breaker)
  }
  return breaker
}

export const makeRedis = (url: string) =>
  Effect.acquireRelease(
    Effect.sync(
      () =>
        new IORedis(url, {
          lazyConnect: true,
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          connectTimeout: 2_000,
          commandTimeout: 1_000,
          retryStrategy: (times) => Math.min(times * 200, 2_000)
        })
    ),
    (client) =>
      Effect.promise(() => client.quit().catch(() => client.disconnect())).pipe(Effect.timeoutOption("2 seconds"))
  ).pipe(
    Effect.tap((client) => {
      client.on("error", () => {
        // errors surface on the commands that fail; the client reconnects by itself
      })
      return Effect.tryPromise(() => client.connect()).pipe(
        Effect.timeout(Duration.seconds(3)),
        Effect.tap(() => Effect.logInfo("redis connected")),
        Effect.catchAll(() => Effect.logWarning("redis unreachable at start; will keep reconnecting"))
      )
    })
  )

export const RedisLive = Layer.scoped(
  Redis,
  Effect.flatMap(AppConfig, (config) =>
    Option.match(config.redisUrl, {
      onNone: () => Effect.succeed(Option.none<IORedis>()),
      onSome: (url) => Effect.map(makeRedis(Redacted.value(url)), Option.some)
    })
  )
)
