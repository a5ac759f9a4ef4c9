/**
 * Why Vigil does not reuse `@effect/experimental`'s RateLimiter: its two
 * algorithms (fixed-window, token-bucket) both admit far more than `limit`
 * in a 60-second span. These tests pin that down with its own in-memory store,
 * so a future version that changes it shows up here.
 */
import { RateLimiter } from "@effect/experimental"
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"

const admittedWithin60s = (times: ReadonlyArray<number>) => {
  let best = 0
  for (let i = 0; i < times.length; i++) {
    let n = 0
    for (let j = i; j < times.length && times[j]! - times[i]! < 60_000; j++) n++
    best = Math.max(best, n)
  }
  return best
}

const run = (algorithm: "fixed-window" | "token-bucket", schedule: ReadonlyArray<number>) =>
  Effect.gen(function* () {
    const limiter = yield* RateLimiter.RateLimiter
    const admitted: Array<number> = []
    for (const t of schedule) {
      yield* TestClock.setTime(t)
      const ok = yield* limiter.consume({ algorithm, key: "k", limit: 60, window: "60 seconds" }).pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false))
      )
      if (ok) admitted.push(t)
    }
    return admitted
  }).pipe(Effect.provide(RateLimiter.layer), Effect.provide(RateLimiter.layerStoreMemory))

describe("@effect/experimental RateLimiter (not used: not a rolling window)", () => {
  it.effect("token-bucket admits 119 in under 60 s with limit 60", () =>
    Effect.gen(function* () {
      // a full bucket at t=0, then one request per second as it refills
      const schedule = [...Array.from({ length: 60 }, () => 0), ...Array.from({ length: 59 }, (_, i) => (i + 1) * 1000)]
      const admitted = yield* run("token-bucket", schedule)
      expect(admittedWithin60s(admitted)).toBe(119)
    })
  )

  it.effect("fixed-window admits 119 in under 60 s with limit 60", () =>
    Effect.gen(function* () {
      // one request every 999 ms keeps extending the same window; it resets as a whole once full
      const schedule = [
        ...Array.from({ length: 60 }, (_, i) => i * 999),
        ...Array.from({ length: 60 }, () => 60_000),
        ...Array.from({ length: 60 }, () => 60_001)
      ]
      const admitted = yield* run("fixed-window", schedule)
      expect(admittedWithin60s(admitted)).toBeGreaterThan(60)
      expect(admittedWithin60s(admitted)).toBe(119)
    })
  )
})
