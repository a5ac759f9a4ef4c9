/**
 * The Redis outage policy: a check answers within the timeout, is decided by
 * the in-process limiter (still at most `limit` per instance), is counted in
 * `ratelimit_redis_fallback_total`, and the warning is logged at most once per
 * interval. Needs no Redis server: it points clients at a closed port and at a
 * TCP server that accepts and never answers. Real time throughout.
 */
import { createServer, type Server, type Socket } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, Metric, Option } from "effect"
import { Redis as IORedis } from "ioredis"
import {
  type Decision,
  makeRedisLimiter,
  RateLimiter,
  RateLimiterLive,
  redisFallbackTotal
} from "../../src/ratelimit/RateLimiter.js"
import { makeRedis, Redis, redisBreaker } from "../../src/store/Redis.js"

const fallbacks = Effect.map(Metric.value(redisFallbackTotal), (s) => s.count)

const timed = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const start = performance.now()
    const a = yield* self
    return [a, performance.now() - start] as const
  })

/** A TCP server that accepts connections and never writes a byte: Redis "up" but hung. */
const silentServer = Effect.acquireRelease(
  Effect.async<{ server: Server; sockets: Set<Socket> }>((resume) => {
    const sockets = new Set<Socket>()
    const server = createServer((socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      socket.resume() // read and drop everything
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, sockets })))
  }),
  ({ server, sockets }) =>
    Effect.async<void>((resume) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resume(Effect.void))
    })
).pipe(Effect.map(({ server }) => (server.address() as { port: number }).port))

const warnings = (sink: Array<string>) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") sink.push(String(Array.isArray(message) ? message[0] : message))
    })
  )

const allowed = (ds: ReadonlyArray<Decision>) => ds.filter((d) => d.allowed).length

describe("RateLimiter Redis outage policy", () => {
  it.scopedLive("unreachable Redis (closed port): answers at once, falls back, counts it, logs once", () => {
    const logged: Array<string> = []
    return Effect.gen(function* () {
      const client = yield* makeRedis("redis://127.0.0.1:1")
      const limiter = yield* makeRedisLimiter(client, { timeout: "100 millis" })
      const before = yield* fallbacks
      const [ds, ms] = yield* timed(
        Effect.all(
          Array.from({ length: 20 }, () => limiter.check("outage:closed", 5)),
          { concurrency: "unbounded" }
        )
      )
      // "at once": no timer runs (the bound is 100 ms here); generous for a loaded CI machine
      expect(ms).toBeLessThan(300)
      // still limited, per instance
      expect(allowed(ds)).toBe(5)
      expect(ds.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds === 59)).toBe(true)
      expect((yield* fallbacks) - before).toBe(20)
      expect(logged.filter((m) => m.includes("Redis unavailable"))).toHaveLength(1)
    }).pipe(Effect.provide(warnings(logged)))
  })

  /** a client connected to a Redis that accepts and never answers */
  const hungClient = Effect.gen(function* () {
    const port = yield* silentServer
    return yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const c = new IORedis({
          host: "127.0.0.1",
          port,
          lazyConnect: true,
          enableOfflineQueue: false,
          // ioredis waits for CLIENT SETINFO and INFO replies before it is ready: skip both
          enableReadyCheck: false,
          disableClientInfo: true,
          maxRetriesPerRequest: 1,
          commandTimeout: 10_000
        })
        c.on("error", () => {})
        await c.connect()
        return c
      }),
      (c) => Effect.sync(() => c.disconnect())
    )
  })

  it.scopedLive("hung Redis (accepts, never answers): the check answers within the timeout", () =>
    Effect.gen(function* () {
      const client = yield* hungClient
      const limiter = yield* makeRedisLimiter(client, { timeout: "100 millis", cooldown: "300 millis" })
      const before = yield* fallbacks

      const [first, ms1] = yield* timed(limiter.check("outage:hung", 2))
      expect(first.allowed).toBe(true)
      expect(ms1).toBeGreaterThanOrEqual(95)
      expect(ms1).toBeLessThan(400)

      // within the cooldown Redis is not tried: no wait at all
      const [second, ms2] = yield* timed(limiter.check("outage:hung", 2))
      expect(second.allowed).toBe(true)
      expect(ms2).toBeLessThan(50)
      const [third] = yield* timed(limiter.check("outage:hung", 2))
      expect(third.allowed).toBe(false)

      // after the cooldown Redis is tried again, and bounded again
      yield* Effect.sleep("350 millis")
      const [, ms4] = yield* timed(limiter.check("outage:hung", 2))
      expect(ms4).toBeGreaterThanOrEqual(95)
      expect(ms4).toBeLessThan(400)
      expect((yield* fallbacks) - before).toBe(4)
    })
  )

  it.scopedLive("one breaker per connection: what one caller saw hung, every caller skips at once", () =>
    Effect.gen(function* () {
      const client = yield* hungClient
      // two callers on one connection, as the limiter and the key-change epoch are
      const a = yield* makeRedisLimiter(client, { timeout: "100 millis", cooldown: "2 seconds" })
      const b = yield* makeRedisLimiter(client, { timeout: "100 millis", cooldown: "2 seconds" })
      const [, waited] = yield* timed(a.check("breaker:a", 5))
      expect(waited).toBeGreaterThanOrEqual(95)
      expect(redisBreaker(client).open()).toBe(true)
      const [fromB, skipped] = yield* timed(b.check("breaker:b", 5))
      expect(fromB.allowed).toBe(true)
      expect(skipped).toBeLessThan(50)

      // tripped by another caller (the epoch read timing out): the limiter does not try Redis either
      const other = yield* hungClient
      const c = yield* makeRedisLimiter(other, { timeout: "100 millis" })
      expect(redisBreaker(other).open()).toBe(false)
      redisBreaker(other).trip(2_000)
      const [, atOnce] = yield* timed(c.check("breaker:c", 5))
      expect(atOnce).toBeLessThan(50)
    })
  )

  it.scopedLive("hung Redis with the service's own client settings: refused at once while its handshake hangs", () =>
    Effect.gen(function* () {
      const port = yield* silentServer
      // the production client (src/store/Redis.ts): its connect gives up after 3 s and keeps retrying
      const client = yield* makeRedis(`redis://127.0.0.1:${port}`)
      const limiter = yield* makeRedisLimiter(client, { cooldown: "0 millis" })
      const before = yield* fallbacks
      for (let i = 0; i < 3; i++) {
        const [d, ms] = yield* timed(limiter.check("outage:default", 2))
        expect(d.allowed).toBe(i < 2)
        expect(ms).toBeLessThan(200)
      }
      expect((yield* fallbacks) - before).toBe(3)
    })
  )
})

describe("RateLimiterLive", () => {
  it.effect("uses the in-process store without Redis", () =>
    Effect.gen(function* () {
      const limiter = yield* RateLimiter
      expect(limiter.store).toBe("memory")
    }).pipe(Effect.provide(RateLimiterLive.pipe(Layer.provide(Layer.succeed(Redis, Option.none())))))
  )

  it.scoped("uses the Redis store when REDIS_URL gave a connection", () =>
    Effect.gen(function* () {
      const client = yield* Effect.acquireRelease(
        Effect.sync(() => new IORedis("redis://127.0.0.1:1", { lazyConnect: true })),
        (c) => Effect.sync(() => c.disconnect())
      )
      const limiter = yield* Effect.provide(
        RateLimiter,
        RateLimiterLive.pipe(Layer.provide(Layer.succeed(Redis, Option.some(client))))
      )
      expect(limiter.store).toBe("redis")
    })
  )
})
