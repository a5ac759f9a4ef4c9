/**
 * One suite, run against every store (`stores()`: in-process always, Redis
 * with REDIS_URL). Time is the TestClock, which both stores read.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import fc from "fast-check"
import { type Decision, RateLimiter, rateLimitHeaders } from "../../src/ratelimit/RateLimiter.js"
import { freshTag, stores, withStore } from "./stores.js"

const checkAt = (t: number, key: string, limit: number, n = 1) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(t)
    const limiter = yield* RateLimiter
    return yield* Effect.all(
      Array.from({ length: n }, () => limiter.check(key, limit)),
      { concurrency: "unbounded" }
    )
  })

const allowedCount = (ds: ReadonlyArray<Decision>) => ds.filter((d) => d.allowed).length

/** Most admissions in any span of 60,000 consecutive milliseconds, (t − 60 s, t]. */
const maxIn60s = (admitted: ReadonlyArray<number>) => {
  let best = 0
  let lo = 0
  for (let hi = 0; hi < admitted.length; hi++) {
    while (admitted[lo]! <= admitted[hi]! - 60_000) lo++
    best = Math.max(best, hi - lo + 1)
  }
  return best
}

/**
 * Adversarial arrival schedules: bursts, gaps at and around second and minute
 * boundaries, and now and then the clock stepping back (`back` ms) while real
 * time goes on.
 */
const scheduleArb = fc.record({
  limit: fc.integer({ min: 1, max: 12 }),
  steps: fc.array(
    fc.record({
      gap: fc.oneof(
        fc.constantFrom(0, 1, 999, 1000, 1001, 59_000, 59_999, 60_000, 60_001, 61_000),
        fc.integer({ min: 0, max: 5_000 })
      ),
      burst: fc.integer({ min: 1, max: 6 }),
      back: fc.oneof(
        { weight: 9, arbitrary: fc.constant(0) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 40_000 }) }
      )
    }),
    { minLength: 5, maxLength: 50 }
  )
})

for (const store of stores()) {
  describe(`RateLimiter (${store.name})`, () => {
    it.effect("admits exactly the limit out of 200 concurrent checks", () =>
      Effect.gen(function* () {
        const key = freshTag()
        const ds = yield* checkAt(10_000, key, 50, 200)
        expect(allowedCount(ds)).toBe(50)
        // every admitted check saw a distinct remaining: 49, 48, ..., 0
        const remaining = ds
          .filter((d) => d.allowed)
          .map((d) => d.remaining)
          .sort((a, b) => a - b)
        expect(remaining).toEqual(Array.from({ length: 50 }, (_, i) => i))
        for (const d of ds.filter((d) => !d.allowed)) {
          // the true wait is 60 s (all 50 at this very millisecond); Retry-After stays under 60
          expect(d).toEqual({ allowed: false, limit: 50, remaining: 0, resetSeconds: 60, retryAfterSeconds: 59 })
        }
        // a second wave in the same window admits nothing
        expect(allowedCount(yield* checkAt(30_000, key, 50, 200))).toBe(0)
      }).pipe(withStore(store))
    )

    it.effect("headers at each step: limit, remaining, reset, and Retry-After on refusal", () =>
      Effect.gen(function* () {
        const key = freshTag()
        const step = (t: number) => Effect.map(checkAt(t, key, 3), ([d]) => rateLimitHeaders(d!))
        const h = (limit: number, remaining: number, reset: number, retry?: number) => ({
          "x-ratelimit-limit": String(limit),
          "x-ratelimit-remaining": String(remaining),
          "x-ratelimit-reset": String(reset),
          ...(retry === undefined ? {} : { "retry-after": String(retry) })
        })
        expect(yield* step(0)).toEqual(h(3, 2, 60))
        expect(yield* step(10_000)).toEqual(h(3, 1, 60))
        expect(yield* step(20_000)).toEqual(h(3, 0, 60))
        // full reset when the newest (t=20 s) leaves; one more when the oldest (t=0) leaves
        expect(yield* step(30_000)).toEqual(h(3, 0, 50, 30))
        expect(yield* step(59_999)).toEqual(h(3, 0, 21, 1))
        expect(yield* step(60_000)).toEqual(h(3, 0, 60))
        expect(yield* step(60_500)).toEqual(h(3, 0, 60, 10))
        // nothing counted any more: a full quota again
        expect(yield* step(200_000)).toEqual(h(3, 2, 60))
      }).pipe(withStore(store))
    )

    it.effect("refused requests are not counted", () =>
      Effect.gen(function* () {
        const key = freshTag()
        expect(allowedCount(yield* checkAt(0, key, 5, 5))).toBe(5)
        // hammering while refused moves nothing
        for (let t = 1_000; t < 60_000; t += 1_000) {
          expect(allowedCount(yield* checkAt(t, key, 5, 20))).toBe(0)
        }
        const ds = yield* checkAt(60_000, key, 5, 6)
        expect(allowedCount(ds)).toBe(5)
      }).pipe(withStore(store))
    )

    it.effect("across a minute boundary: 60 at t=59.9 s block every request until t=119.9 s", () =>
      Effect.gen(function* () {
        const key = freshTag()
        expect(allowedCount(yield* checkAt(59_900, key, 60, 60))).toBe(60)
        // the fixed-window / token-bucket 2× burst: refused every half second up to 119.5 s
        for (let t = 60_000; t < 119_900; t += 500) {
          const [d] = yield* checkAt(t, key, 60)
          expect(d!.allowed).toBe(false)
          expect(d!.retryAfterSeconds).toBe(Math.min(59, Math.ceil((119_900 - t) / 1000)))
          expect(d!.resetSeconds).toBe(Math.ceil((119_900 - t) / 1000))
        }
        const [last] = yield* checkAt(119_899, key, 60)
        expect([last!.allowed, last!.retryAfterSeconds]).toEqual([false, 1])
        // (59.9 s, 119.9 s] no longer holds them: a full minute's quota, and not one more
        expect(allowedCount(yield* checkAt(119_900, key, 60, 61))).toBe(60)
      }).pipe(withStore(store))
    )

    it.effect(
      "a bucket's oldest admission leaves on time, the rest with its latest: at most 1 s stricter than a log",
      () =>
        Effect.gen(function* () {
          const key = freshTag()
          expect(allowedCount(yield* checkAt(0, key, 60))).toBe(1)
          expect(allowedCount(yield* checkAt(1, key, 60))).toBe(1)
          expect(allowedCount(yield* checkAt(999, key, 60, 58))).toBe(58)
          // the t=0 admission leaves at t=60 s, as in a timestamp log
          const [before] = yield* checkAt(59_999, key, 60)
          expect(before).toEqual({ allowed: false, limit: 60, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 })
          expect(allowedCount(yield* checkAt(60_000, key, 60, 2))).toBe(1)
          // a log would admit the t=1 ms one's successor at t=60.001 s; the second-0 bucket keeps it until t=60.999 s
          const [d] = yield* checkAt(60_001, key, 60)
          expect(d).toEqual({ allowed: false, limit: 60, remaining: 0, resetSeconds: 60, retryAfterSeconds: 1 })
          expect(allowedCount(yield* checkAt(60_998, key, 60))).toBe(0)
          expect(allowedCount(yield* checkAt(60_999, key, 60, 60))).toBe(59)
        }).pipe(withStore(store))
    )

    it.effect("Retry-After is the true wait, under 60: a Free key that spent its 60 over two seconds", () =>
      Effect.gen(function* () {
        const key = freshTag()
        // 60 requests from t=0.7 s to t=1.88 s, 20 ms apart (the case: the 61st was told 60,
        // the wait until the second-0 bucket's latest admission, t=0.98 s, left)
        for (let i = 0; i < 60; i++) {
          expect(allowedCount(yield* checkAt(700 + 20 * i, key, 60))).toBe(1)
        }
        // the 61st: the t=0.7 s admission leaves at t=60.7 s, 58.8 s from now
        const [d] = yield* checkAt(1_900, key, 60)
        expect(d).toEqual({ allowed: false, limit: 60, remaining: 0, resetSeconds: 60, retryAfterSeconds: 59 })
        const [later] = yield* checkAt(30_200, key, 60)
        expect(later!.retryAfterSeconds).toBe(31)
        // and it is true: refused 1 ms before, one admitted when the wait is over
        expect(allowedCount(yield* checkAt(60_699, key, 60))).toBe(0)
        expect(allowedCount(yield* checkAt(60_700, key, 60, 3))).toBe(1)
        // the same 60 in one instant: the true wait is the whole window, and 59 is answered
        const burst = freshTag()
        const ds = yield* checkAt(3_000, burst, 60, 61)
        expect(ds.filter((x) => !x.allowed).map((x) => x.retryAfterSeconds)).toEqual([59])
        const [soon] = yield* checkAt(3_400, burst, 60)
        expect(soon!.retryAfterSeconds).toBe(59)
        const [end] = yield* checkAt(62_000, burst, 60)
        expect(end!.retryAfterSeconds).toBe(1)
        expect(allowedCount(yield* checkAt(63_000, burst, 60, 61))).toBe(60)
      }).pipe(withStore(store))
    )

    it.effect("keys are isolated, and the history scope has its own count", () =>
      Effect.gen(function* () {
        const tag = freshTag()
        const limiter = yield* RateLimiter
        yield* TestClock.setTime(5_000)
        const [a, b, hist] = yield* Effect.all(
          [
            Effect.all(
              Array.from({ length: 100 }, () => limiter.check(`${tag}:a`, 60)),
              { concurrency: "unbounded" }
            ),
            Effect.all(
              Array.from({ length: 100 }, () => limiter.check(`${tag}:b`, 10)),
              { concurrency: "unbounded" }
            ),
            Effect.all(
              Array.from({ length: 100 }, () => limiter.check(`hist:${tag}:a`, 30)),
              { concurrency: "unbounded" }
            )
          ],
          { concurrency: "unbounded" }
        )
        expect([allowedCount(a), allowedCount(b), allowedCount(hist)]).toEqual([60, 10, 30])
        expect(allowedCount(yield* checkAt(5_000, `${tag}:c`, 60, 1))).toBe(1)
      }).pipe(withStore(store))
    )

    it.effect("invariants on every decision: remaining ≥ 0, Retry-After 1..59 only on refusal", () =>
      Effect.gen(function* () {
        const key = freshTag()
        let t = 0
        for (let i = 0; i < 200; i++) {
          t += (i * 7919) % 1_700
          const [d] = yield* checkAt(t, key, 7)
          expect(d!.remaining).toBeGreaterThanOrEqual(0)
          expect(d!.remaining).toBeLessThanOrEqual(6)
          expect(d!.resetSeconds).toBeGreaterThanOrEqual(1)
          expect(d!.resetSeconds).toBeLessThanOrEqual(60)
          if (d!.allowed) {
            expect(d!.retryAfterSeconds).toBeUndefined()
            expect(d!.resetSeconds).toBe(60)
          } else {
            expect(d!.retryAfterSeconds).toBeGreaterThanOrEqual(1)
            expect(d!.retryAfterSeconds).toBeLessThanOrEqual(Math.min(59, d!.resetSeconds))
          }
        }
      }).pipe(withStore(store))
    )

    it.effect("a limit of 0 refuses everything and counts nothing", () =>
      Effect.gen(function* () {
        const key = freshTag()
        const [d] = yield* checkAt(1_000, key, 0)
        expect(d).toEqual({ allowed: false, limit: 0, remaining: 0, resetSeconds: 0, retryAfterSeconds: 59 })
        expect(allowedCount(yield* checkAt(1_000, key, 2, 3))).toBe(2)
      }).pipe(withStore(store))
    )

    it.effect("a window that is not a whole number of milliseconds ≥ 1000 is a defect", () =>
      Effect.gen(function* () {
        const limiter = yield* RateLimiter
        const exit = yield* Effect.exit(limiter.check(freshTag(), 10, 500))
        expect(exit._tag).toBe("Failure")
      }).pipe(withStore(store))
    )

    // The guarantee, on adversarial schedules, measured in real time while the clock may step back:
    // never more than `limit` in any 60,000 ms, and never a refusal unless `limit` admissions fall
    // within the last 61 s (the price of one-second buckets) plus however far the clock stepped back.
    const runs = store.name === "redis" ? 40 : 100
    it.effect(`guarantee on ${runs} random schedules: ≤ limit in every 60 s span, no refusal without cause`, () =>
      Effect.gen(function* () {
        const limiter = yield* RateLimiter
        const samples = fc.sample(scheduleArb, { numRuns: runs, seed: 20260526 })
        for (const { limit, steps } of samples) {
          const key = freshTag()
          const admitted: Array<number> = []
          let real = 200_000
          let behind = 0
          for (const { gap, burst, back } of steps) {
            real += gap
            behind += back
            yield* TestClock.setTime(real - behind)
            const ds = yield* Effect.all(
              Array.from({ length: burst }, () => limiter.check(key, limit)),
              { concurrency: "unbounded" }
            )
            for (const d of ds) {
              if (d.allowed) {
                admitted.push(real)
              } else {
                const recent = admitted.filter((a) => a > real - 61_000 - behind).length
                expect(recent).toBeGreaterThanOrEqual(limit)
              }
              expect(d.remaining).toBeGreaterThanOrEqual(0)
              if (!d.allowed) expect(d.retryAfterSeconds).toBeLessThanOrEqual(59)
            }
          }
          expect(maxIn60s(admitted)).toBeLessThanOrEqual(limit)
        }
      }).pipe(withStore(store))
    )
  })
}
