/**
 * The rate-limiter stores every shared test runs against: in-process always,
 * Redis whenever REDIS_URL is set. A set but unreachable REDIS_URL fails the
 * tests (the layer dies on the first PING); it is never skipped.
 *
 * Against Redis the suite must exercise Redis, not the fallback (which gives
 * the same answers): `noFallback` fails a test during which any check fell
 * back to the in-process limiter.
 */
import { randomBytes } from "node:crypto"
import { expect } from "@effect/vitest"
import { Effect, Layer, Metric } from "effect"
import { layerMemory, layerRedis, type RateLimiter, redisFallbackTotal } from "../../src/ratelimit/RateLimiter.js"
import { makeRedis } from "../../src/store/Redis.js"

export interface StoreCase {
  readonly name: "memory" | "redis"
  readonly layer: () => Layer.Layer<RateLimiter>
}

export const redisUrl = (): string | undefined => {
  const url = process.env.REDIS_URL
  return url !== undefined && url !== "" ? url : undefined
}

/** A connected client on REDIS_URL for the scope; dies if the server does not answer PING. */
export const connectedRedis = (url: string) =>
  Effect.gen(function* () {
    const client = yield* makeRedis(url)
    yield* Effect.tryPromise({
      try: () => client.ping(),
      catch: (e) => (e instanceof Error ? e.message : String(e))
    }).pipe(
      Effect.timeout("5 seconds"),
      Effect.orDieWith((e) => new Error(`REDIS_URL is set but Redis does not answer: ${String(e)}`))
    )
    return client
  })

export const stores = (): ReadonlyArray<StoreCase> => {
  const list: Array<StoreCase> = [{ name: "memory", layer: () => layerMemory }]
  const url = redisUrl()
  if (url !== undefined) {
    list.push({
      name: "redis",
      // a generous bound: these tests measure exactness, and `noFallback` turns any fallback into a failure
      layer: () =>
        Layer.unwrapScoped(Effect.map(connectedRedis(url), (client) => layerRedis(client, { timeout: "2 seconds" })))
    })
  }
  return list
}

/** A fresh prefix per test, so keys never meet keys of another test or an earlier run. */
export const freshTag = () => `t:${randomBytes(6).toString("hex")}`

const fallbacks = Effect.map(Metric.value(redisFallbackTotal), (s) => s.count)

export const noFallback = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const before = yield* fallbacks
    const a = yield* self
    expect((yield* fallbacks) - before, "checks that fell back to the in-process limiter").toBe(0)
    return a
  })

export const withStore =
  (store: StoreCase) =>
  <A, E>(self: Effect.Effect<A, E, RateLimiter>) =>
    noFallback(self).pipe(Effect.provide(store.layer()))
