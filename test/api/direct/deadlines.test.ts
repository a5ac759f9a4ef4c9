/**
 * The direct path's deadline (src/api/direct/deadlines.ts) on the TestClock: work still running
 * when its deadline passes is answered by its `timedOut` and interrupted; work that ends in time
 * is never answered by it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Runtime, TestClock } from "effect"
import { makeDeadlines } from "../../../src/api/direct/deadlines.js"

describe("direct path deadlines", () => {
  it.scoped("answers and interrupts work past its deadline, never work that ended in time", () =>
    Effect.gen(function* () {
      const clock = yield* Effect.clock
      const deadlines = yield* makeDeadlines(Duration.seconds(20), clock)
      const runFork = Runtime.runFork(yield* Effect.runtime<never>())
      const answered: Array<string> = []
      const interrupted = yield* Deferred.make<void>()
      const finish = yield* Deferred.make<void>()

      // stuck: never ends by itself
      deadlines.watch(
        (done) =>
          runFork(
            Effect.never.pipe(
              Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)),
              Effect.ensuring(Effect.sync(done))
            )
          ),
        () => answered.push("stuck")
      )
      // quick: ends when told, before the deadline
      let quick: Fiber.RuntimeFiber<unknown, unknown> | undefined
      deadlines.watch(
        (done) => {
          quick = runFork(Deferred.await(finish).pipe(Effect.ensuring(Effect.sync(done))))
          return quick
        },
        () => answered.push("quick")
      )
      expect(deadlines.size()).toBe(2)
      yield* TestClock.adjust(Duration.seconds(10))
      yield* Deferred.succeed(finish, undefined)
      yield* Fiber.await(quick!)
      expect(deadlines.size()).toBe(1)
      yield* TestClock.adjust(Duration.seconds(9))
      expect(answered).toEqual([])
      yield* TestClock.adjust(Duration.seconds(2))
      expect(answered).toEqual(["stuck"])
      yield* Deferred.await(interrupted)
      expect(deadlines.size()).toBe(0)
      yield* TestClock.adjust(Duration.seconds(60))
      expect(answered).toEqual(["stuck"])
    })
  )
})
