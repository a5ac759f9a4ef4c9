/**
 * Rate-limiter throughput, each store against a baseline measured in the same
 * run, and the memory a key costs.
 *
 *   node --expose-gc --import tsx bench/ratelimit.ts                                  # in-process only
 *   REDIS_URL=redis://127.0.0.1:6379 node --expose-gc --import tsx bench/ratelimit.ts # and Redis
 *
 * In-process: baseline = a bare Map<string, number> increment over the same
 * keys. Redis: baseline = a bare PING, one at a time (round trip) and 64 in
 * flight (throughput).
 */
import { Effect } from "effect"
import { Redis as IORedis } from "ioredis"
import { makeMemoryLimiter, makeRedisLimiter } from "../src/ratelimit/RateLimiter.js"
import { KEY_PREFIX, makeRedisWindow } from "../src/ratelimit/redisStore.js"
import { makeMemoryWindow } from "../src/ratelimit/window.js"

const KEYS = Array.from({ length: 10_000 }, (_, i) => `key:${i}`)
const fmt = (n: number) => Math.round(n).toLocaleString("en-US")
const line = (name: string, perSec: number, baseline: number) =>
  console.log(`  ${name.padEnd(44)} ${fmt(perSec).padStart(12)} /s   ${(baseline / perSec).toFixed(2)}× baseline time`)

const rate = (n: number, ms: number) => (n / ms) * 1000

const memoryBench = async () => {
  const N = 2_000_000
  console.log(`in-process, ${fmt(N)} checks over ${fmt(KEYS.length)} keys`)
  // baseline: the cheapest possible per-key counter
  const map = new Map<string, number>()
  let t0 = performance.now()
  for (let i = 0; i < N; i++) {
    const k = KEYS[i % KEYS.length]!
    map.set(k, (map.get(k) ?? 0) + 1)
  }
  const base = rate(N, performance.now() - t0)
  console.log(`  ${"baseline: bare Map increment".padEnd(44)} ${fmt(base).padStart(12)} /s`)

  // the window itself, time advancing 1 ms per 100 checks (about 100k checks/s, every key active)
  const w = makeMemoryWindow()
  t0 = performance.now()
  for (let i = 0; i < N; i++) w.take(KEYS[i % KEYS.length]!, 60_000, 60_000, Math.floor(i / 100))
  line("window.take (no Effect)", rate(N, performance.now() - t0), base)

  // through the service, as a request would call it (Effect, Clock)
  const limiter = await Effect.runPromise(makeMemoryLimiter)
  const M = 500_000
  t0 = performance.now()
  await Effect.runPromise(
    Effect.gen(function* () {
      for (let i = 0; i < M; i++) yield* limiter.check(KEYS[i % KEYS.length]!, 60_000)
    })
  )
  line("RateLimiter.check (Effect, memory store)", rate(M, performance.now() - t0), base)
}

const memoryPerKey = () => {
  const heap = () => {
    globalThis.gc?.()
    globalThis.gc?.()
    return process.memoryUsage().heapUsed
  }
  const h0 = heap()
  const idle = makeMemoryWindow()
  for (let i = 0; i < 100_000; i++) idle.take(`ip:${i}`, 60, 60_000, 0)
  const perOneBucketKey = (heap() - h0) / 100_000
  const h1 = heap()
  const full = makeMemoryWindow()
  for (let k = 0; k < 10_000; k++) for (let s = 0; s < 61; s++) full.take(`scale:${k}`, 60_000, 60_000, s * 1000 - 500)
  const perFullKey = (heap() - h1) / 10_000
  console.log(
    `in-process memory: ~${fmt(perOneBucketKey)} B per key with one bucket, ~${fmt(perFullKey)} B per key with 61 buckets (${idle.size() + full.size()} keys held)${globalThis.gc ? "" : " — run with --expose-gc for steady figures"}`
  )
}

const redisBench = async (url: string) => {
  const client = new IORedis(url, { enableOfflineQueue: false, lazyConnect: true })
  await client.connect()
  try {
    const limiter = await Effect.runPromise(makeRedisLimiter(client, { timeout: "2 seconds" }))
    const N = 20_000
    console.log(`redis at ${new URL(url).host}, ${fmt(N)} checks`)
    const run = (n: number, parallel: number, f: (i: number) => Promise<unknown>) =>
      (async () => {
        const t0 = performance.now()
        let next = 0
        await Promise.all(
          Array.from({ length: parallel }, async () => {
            while (next < n) await f(next++)
          })
        )
        return rate(n, performance.now() - t0)
      })()

    const tag = `bench:${process.pid}:`
    for (const parallel of [1, 64]) {
      const ping = await run(N, parallel, () => client.ping())
      console.log(`  ${`baseline: PING, ${parallel} in flight`.padEnd(44)} ${fmt(ping).padStart(12)} /s`)
      const checks = await run(N, parallel, (i) =>
        Effect.runPromise(limiter.check(`${tag}${KEYS[i % KEYS.length]!}`, 60_000))
      )
      line(`RateLimiter.check (redis), ${parallel} in flight`, checks, ping)
    }

    // a Scale key at its limit: 1,000 admissions in each of 60 seconds
    const window = makeRedisWindow(client, 2_000)
    const scaleKey = `${tag}scale`
    await Effect.runPromise(
      Effect.gen(function* () {
        for (let s = 0; s < 60; s++) {
          yield* Effect.all(
            Array.from({ length: 1_000 }, (_, j) => window(scaleKey, 60_000, 60_000, s * 1000 + j)),
            { concurrency: 100 }
          )
        }
      })
    )
    // worst case for the script: every check reads and parses all 60 buckets of one hot key
    for (const [what, limit] of [
      ["refused", 60_000],
      ["admitted", 1_000_000]
    ] as const) {
      const hot = await run(5_000, 64, (i) => Effect.runPromise(window(scaleKey, limit, 60_000, 59_999 + (i % 2))))
      line(`one key holding 60 buckets, ${what}, 64 in flight`, hot, await run(5_000, 64, () => client.ping()))
    }
    const hashBytes = Number(await client.memory("USAGE", `${KEY_PREFIX}${scaleKey}`))
    const hashFields = await client.hlen(`${KEY_PREFIX}${scaleKey}`)
    // what a sorted-set log of the same 60,000 admissions would hold
    const zKey = `${KEY_PREFIX}${tag}zset-log`
    for (let s = 0; s < 60; s++) {
      const args: Array<string | number> = []
      for (let j = 0; j < 1_000; j++) args.push(s * 1000 + j, `${s * 1000 + j}-${j}`)
      await client.zadd(zKey, ...args)
    }
    await client.pexpire(zKey, 61_000)
    const zsetBytes = Number(await client.memory("USAGE", zKey))
    console.log(
      `  memory of a Scale key at 60,000/min: buckets ${fmt(hashBytes)} B (${hashFields} fields), a sorted-set log would take ${fmt(zsetBytes)} B`
    )
    const leftovers = await client.keys(`${KEY_PREFIX}${tag}*`)
    if (leftovers.length > 0) await client.del(...leftovers)
  } finally {
    await client.quit()
  }
}

memoryPerKey()
await memoryBench()
const url = process.env.REDIS_URL
if (url !== undefined && url !== "") await redisBench(url)
else console.log("redis: REDIS_URL not set, skipped")
