/**
 * `answerWithin` (src/api/answerWithin.ts), the request deadline's combinator, on the Effect
 * clock: the work's own outcome when it ends first (success, failure, and the fiber refs it
 * set, which carry the headers a middleware appends), `onTimeout` at the deadline without
 * waiting for the work to stop, and the work interrupted when the caller is.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber, FiberRef, Option, TestClock } from "effect"
import { answerWithin } from "../../src/api/answerWithin.js"

const DEADLINE = Duration.seconds(20)
const mark = FiberRef.unsafeMake("unset")

describe("answerWithin", () => {
  it.effect("answers with the work's value, and keeps the fiber refs the work set", () =>
    Effect.gen(function* () {
      const work = Effect.as(Effect.zipRight(Effect.sleep("1 second"), FiberRef.set(mark, "set by the work")), 42)
      const fiber = yield* answerWithin(work, DEADLINE, () => 0).pipe(
        Effect.flatMap((value) => Effect.map(FiberRef.get(mark), (seen) => [value, seen] as const)),
        Effect.fork
      )
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(fiber)).toStrictEqual([42, "set by the work"])
    })
  )

  it.effect("fails with the work's failure", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(answerWithin(Effect.fail("boom" as const), DEADLINE, () => 0))
      expect(exit).toStrictEqual(Exit.fail("boom"))
    })
  )

  it.effect("answers onTimeout exactly at the deadline, the work interrupted in the background", () =>
    Effect.gen(function* () {
      const stopping = yield* Deferred.make<void>()
      const stopped = yield* Deferred.make<void>()
      // the work takes 10 s to stop once interrupted: the answer must not wait for it
      const work = Effect.never.pipe(
        Effect.onInterrupt(() =>
          Effect.zipRight(Deferred.succeed(stopping, undefined), Effect.sleep("10 seconds")).pipe(
            Effect.zipRight(Deferred.succeed(stopped, undefined))
          )
        )
      )
      const fiber = yield* Effect.fork(answerWithin(work, DEADLINE, () => "late"))
      yield* TestClock.adjust(Duration.subtract(DEADLINE, Duration.millis(1)))
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* Fiber.join(fiber)).toBe("late")
      yield* Deferred.await(stopping)
      expect(yield* Deferred.isDone(stopped)).toBe(false)
      yield* TestClock.adjust("10 seconds")
      yield* Deferred.await(stopped)
    })
  )

  it.effect("interrupts the work when the caller is interrupted", () =>
    Effect.gen(function* () {
      const interrupted = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(
        answerWithin(
          Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))),
          DEADLINE,
          () => 0
        )
      )
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(fiber)
      yield* Deferred.await(interrupted)
    })
  )

  it.live("leaves no timer behind on the live clock once the work has answered", () =>
    Effect.gen(function* () {
      const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length
      const before = timers()
      for (let i = 0; i < 100; i++) expect(yield* answerWithin(Effect.succeed(i), DEADLINE, () => -1)).toBe(i)
      yield* Effect.sleep("10 millis")
      expect(timers()).toBeLessThanOrEqual(before)
    })
  )

  // the platform runs every middleware uninterruptibly (HttpApp.toHandled): an uninterruptible timer kept each
  // answered request's fibers and context alive for the whole deadline (~20 KB a request, 20 s)
  it.live("leaves no timer behind when the caller runs uninterruptibly, as the platform runs middleware", () =>
    Effect.gen(function* () {
      const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length
      const before = timers()
      for (let i = 0; i < 100; i++) {
        expect(yield* Effect.uninterruptible(answerWithin(Effect.succeed(i), DEADLINE, () => -1))).toBe(i)
      }
      yield* Effect.sleep("10 millis")
      expect(timers()).toBeLessThanOrEqual(before)
    })
  )

  it.effect("still answers onTimeout at the deadline when the caller runs uninterruptibly", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(Effect.uninterruptible(answerWithin(Effect.never, DEADLINE, () => "late")))
      yield* TestClock.adjust(DEADLINE)
      expect(yield* Fiber.join(fiber)).toBe("late")
    })
  )
})
