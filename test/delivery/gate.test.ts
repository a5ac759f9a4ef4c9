/**
 * The per-host permit gate: bounded, FIFO, and interruption never leaks or duplicates a permit.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { makeGate } from "../../src/delivery/gate.js"

describe("makeGate", () => {
  it.effect("runs at most `permits` at once, the rest in arrival order", () =>
    Effect.gen(function* () {
      const gate = makeGate(2)
      const started: Array<number> = []
      const releases = yield* Effect.all(Array.from({ length: 5 }, () => Deferred.make<void>()))
      const fibers = yield* Effect.forEach(releases, (d, i) =>
        Effect.fork(
          gate.withPermit(Effect.sync(() => started.push(i)).pipe(Effect.zipRight(Deferred.await(d)), Effect.as(i)))
        )
      )
      yield* Effect.yieldNow()
      expect(started).toEqual([0, 1])
      expect([gate.active(), gate.waiting()]).toEqual([2, 3])
      yield* Deferred.succeed(releases[1]!, undefined)
      yield* Fiber.join(fibers[1]!)
      yield* Effect.yieldNow()
      expect(started).toEqual([0, 1, 2])
      for (const d of releases) yield* Deferred.succeed(d, undefined)
      expect(yield* Fiber.join(Fiber.all(fibers))).toEqual([0, 1, 2, 3, 4])
      expect(started).toEqual([0, 1, 2, 3, 4])
      expect([gate.active(), gate.waiting()]).toEqual([0, 0])
    })
  )

  it.effect("an interrupted waiter leaves the queue; an interrupted holder releases", () =>
    Effect.gen(function* () {
      const gate = makeGate(1)
      const hold = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(gate.withPermit(Deferred.await(hold)))
      const waiter = yield* Effect.fork(gate.withPermit(Effect.void))
      yield* Effect.yieldNow()
      expect([gate.active(), gate.waiting()]).toEqual([1, 1])
      yield* Fiber.interrupt(waiter)
      expect([gate.active(), gate.waiting()]).toEqual([1, 0])
      yield* Fiber.interrupt(holder)
      expect([gate.active(), gate.waiting()]).toEqual([0, 0])
      expect(yield* gate.withPermit(Effect.succeed("free again"))).toBe("free again")
    })
  )

  it.effect("a waiter interrupted right after a permit was handed to it passes the permit on", () =>
    Effect.gen(function* () {
      const gate = makeGate(1)
      const ran: Array<string> = []
      const waiter = yield* gate.withPermit(
        Effect.gen(function* () {
          const w = yield* Effect.fork(gate.withPermit(Effect.sync(() => ran.push("waiter"))))
          yield* Effect.yieldNow()
          expect(gate.waiting()).toBe(1)
          return w
        })
      )
      // the release above handed the permit to the waiter, which has not run yet
      yield* Fiber.interrupt(waiter)
      expect(ran).toEqual([])
      expect([gate.active(), gate.waiting()]).toEqual([0, 0])
      expect(yield* gate.withPermit(Effect.succeed("free again"))).toBe("free again")
    })
  )

  it.live("random interruptions under load never leak, duplicate or exceed a permit", () =>
    Effect.gen(function* () {
      const gate = makeGate(3)
      let inside = 0
      let maxInside = 0
      const work = (ms: number) =>
        gate.withPermit(
          Effect.acquireUseRelease(
            Effect.sync(() => {
              inside++
              maxInside = Math.max(maxInside, inside)
            }),
            () => Effect.sleep(`${ms} millis`),
            () => Effect.sync(() => inside--)
          )
        )
      const fibers = yield* Effect.forEach(Array.from({ length: 300 }), () =>
        Effect.fork(work(Math.floor(Math.random() * 3)))
      )
      for (const f of fibers) {
        if (Math.random() < 0.5) {
          yield* Effect.sleep(`${Math.floor(Math.random() * 2)} millis`)
          yield* Effect.fork(Fiber.interrupt(f))
        }
      }
      yield* Fiber.await(Fiber.all(fibers))
      yield* Effect.sleep("10 millis")
      expect(maxInside).toBe(3)
      expect(inside).toBe(0)
      expect([gate.active(), gate.waiting()]).toEqual([0, 0])
      // all three permits are still there
      const hold = yield* Deferred.make<void>()
      const holders = yield* Effect.forEach(Array.from({ length: 4 }), () =>
        Effect.fork(gate.withPermit(Deferred.await(hold)))
      )
      yield* Effect.sleep("10 millis")
      expect([gate.active(), gate.waiting()]).toEqual([3, 1])
      yield* Deferred.succeed(hold, undefined)
      yield* Fiber.join(Fiber.all(holders))
      expect([gate.active(), gate.waiting()]).toEqual([0, 0])
    })
  )
})
