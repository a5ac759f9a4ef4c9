/**
 * What only the Redis store has: TTLs, the NOSCRIPT fallback, bounded keys,
 * and answers identical to the in-process store. The fake-client test always
 * runs; the rest run when REDIS_URL is set (CI sets it) and are skipped,
 * saying so, without it; a set but unreachable REDIS_URL fails them.
 */
import { createHash, randomBytes } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import type { Redis as IORedis } from "ioredis"
import { type Decision, makeMemoryLimiter, makeRedisLimiter } from "../../src/ratelimit/RateLimiter.js"
import { CHECK_SCRIPT, evalScript, KEY_PREFIX } from "../../src/ratelimit/redisStore.js"
import { NEEDS_REDIS } from "../support/servers.js"
import { connectedRedis, freshTag, noFallback, redisUrl } from "./stores.js"

const keysUnder = (client: IORedis, pattern: string) =>
  Effect.promise(async () => {
    const found: Array<string> = []
    let cursor = "0"
    do {
      const [next, batch] = await client.scan(cursor, "MATCH", pattern, "COUNT", 1000)
      cursor = next
      found.push(...batch)
    } while (cursor !== "0")
    return found
  })

describe("RateLimiter Redis store, against a fake client", () => {
  it.effect(
    "sends one EVALSHA per check with the vigil:rl: key, the Clock's time and a 61 s TTL; EVAL on NOSCRIPT",
    () =>
      Effect.gen(function* () {
        const calls: Array<{ command: string; args: ReadonlyArray<unknown> }> = []
        let loaded = false
        const fake = {
          evalsha: async (...args: ReadonlyArray<unknown>) => {
            calls.push({ command: "evalsha", args })
            if (!loaded) throw new Error("NOSCRIPT No matching script. Please use EVAL.")
            return [1, 2, 60_000, 0]
          },
          eval: async (...args: ReadonlyArray<unknown>) => {
            calls.push({ command: "eval", args })
            loaded = true
            return [1, 1, 60_000, 0]
          }
        } as unknown as IORedis
        const limiter = yield* makeRedisLimiter(fake)
        yield* TestClock.setTime(123_456)
        expect(yield* limiter.check("key:abc", 60)).toEqual({
          allowed: true,
          limit: 60,
          remaining: 59,
          resetSeconds: 60
        })
        expect(yield* limiter.check("key:abc", 60)).toEqual({
          allowed: true,
          limit: 60,
          remaining: 58,
          resetSeconds: 60
        })
        expect(calls.map((c) => c.command)).toEqual(["evalsha", "eval", "evalsha"])
        const sha = createHash("sha1").update(CHECK_SCRIPT).digest("hex")
        // numkeys 1, the key, then now, limit, window, bucket, ttl
        expect(calls[0]!.args).toEqual([sha, 1, "vigil:rl:key:abc", 123_456, 60, 60_000, 1_000, 61_000])
        expect(calls[1]!.args).toEqual([CHECK_SCRIPT, 1, "vigil:rl:key:abc", 123_456, 60, 60_000, 1_000, 61_000])
      })
  )
})

const url = redisUrl()
describe.skipIf(url === undefined)(`RateLimiter Redis store (${NEEDS_REDIS})`, () => {
  it.scoped("every key it writes carries a TTL of at most 61 s, under vigil:rl:", () =>
    noFallback(
      Effect.gen(function* () {
        const client = yield* connectedRedis(url!)
        const limiter = yield* makeRedisLimiter(client, { timeout: "2 seconds" })
        const tag = freshTag()
        for (let t = 0; t < 90_000; t += 700) {
          yield* TestClock.setTime(t)
          yield* Effect.all(
            [limiter.check(`${tag}:a`, 5), limiter.check(`${tag}:b`, 1_000), limiter.check(`${tag}:c`, 0)],
            { concurrency: "unbounded" }
          )
        }
        const keys = yield* keysUnder(client, `${KEY_PREFIX}${tag}:*`)
        // `c` (limit 0) was only ever refused: a refusal never creates a key
        expect(keys.sort()).toEqual([`${KEY_PREFIX}${tag}:a`, `${KEY_PREFIX}${tag}:b`])
        for (const key of keys) {
          const pttl = yield* Effect.promise(() => client.pttl(key))
          expect(pttl, key).toBeGreaterThan(0)
          expect(pttl, key).toBeLessThanOrEqual(61_000)
        }
        // at most 61 one-second buckets per key, whatever the limit (plus the n, lo, hi fields)
        const fields = yield* Effect.promise(() => client.hkeys(`${KEY_PREFIX}${tag}:b`))
        expect(fields.filter((f) => /^\d+$/.test(f)).length).toBeLessThanOrEqual(61)
        expect(fields.filter((f) => !/^\d+$/.test(f)).sort()).toEqual(["hi", "lo", "n"])
        // a check after everything left the window drops the dead buckets, and with them the key
        yield* TestClock.setTime(500_000)
        yield* limiter.check(`${tag}:a`, 0)
        expect(yield* Effect.promise(() => client.exists(`${KEY_PREFIX}${tag}:a`))).toBe(0)
      })
    )
  )

  it.scoped("falls back from EVALSHA to EVAL on NOSCRIPT, then uses the cached script", () =>
    Effect.gen(function* () {
      const client = yield* connectedRedis(url!)
      // a script this server has never seen: the first EVALSHA gets NOSCRIPT
      const script = `return ARGV[1] .. ":${randomBytes(8).toString("hex")}"`
      const digest = createHash("sha1").update(script).digest("hex")
      const exists = Effect.promise(() => client.script("EXISTS", digest) as Promise<Array<number>>)
      const run = evalScript(client, script)
      expect(yield* exists).toEqual([0])
      expect(String(yield* Effect.promise(() => run("k", ["first"])))).toMatch(/^first:/)
      expect(yield* exists).toEqual([1])
      expect(String(yield* Effect.promise(() => run("k", ["second"])))).toMatch(/^second:/)
    })
  )

  it.scoped("reads a bucket an earlier version wrote as count:latest, all of it leaving at its latest", () =>
    noFallback(
      Effect.gen(function* () {
        const client = yield* connectedRedis(url!)
        const limiter = yield* makeRedisLimiter(client, { timeout: "2 seconds" })
        const tag = freshTag()
        yield* Effect.promise(() =>
          client.hset(`${KEY_PREFIX}${tag}`, "10", "3:10500", "n", "3", "lo", "10", "hi", "10")
        )
        yield* TestClock.setTime(11_000)
        expect(yield* limiter.check(tag, 3)).toMatchObject({ allowed: false, retryAfterSeconds: 59 })
        yield* TestClock.setTime(70_499)
        expect((yield* limiter.check(tag, 3)).allowed).toBe(false)
        yield* TestClock.setTime(70_500)
        expect(yield* limiter.check(tag, 3)).toMatchObject({ allowed: true, remaining: 2 })
      })
    )
  )

  it.scoped("answers exactly as the in-process store on the same schedule", () =>
    noFallback(
      Effect.gen(function* () {
        const client = yield* connectedRedis(url!)
        const redis = yield* makeRedisLimiter(client, { timeout: "2 seconds" })
        const memory = yield* makeMemoryLimiter
        const tag = freshTag()
        const fromRedis: Array<Decision> = []
        const fromMemory: Array<Decision> = []
        let t = 3_000
        // gaps that land exactly on, just before and just after a bucket leaving the window
        const gaps = [0, 1, 250, 999, 1000, 4_000, 20_000, 59_999, 60_000, 60_001]
        for (let i = 0; i < 400; i++) {
          t += gaps[(i * 7) % 13 < 10 ? (i * 7) % 13 : i % 4]!
          yield* TestClock.setTime(t)
          const key = `${tag}:${i % 3}`
          const limit = [4, 9, 2][i % 3]!
          fromRedis.push(yield* redis.check(key, limit))
          fromMemory.push(yield* memory.check(key, limit))
        }
        expect(fromRedis).toEqual(fromMemory)
        expect(fromRedis.some((d) => !d.allowed)).toBe(true)
      })
    )
  )
})
