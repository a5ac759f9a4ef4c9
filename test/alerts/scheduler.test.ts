/**
 * The actors' scheduler: Effect's default with one task queue for every
 * fiber, so 100,000 actors keep no queue (and no WeakMap entry) each.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, FiberRef, Scheduler } from "effect"
import { SharedQueueScheduler } from "../../src/alerts/actor.js"

const fiberA = {} as Fiber.RuntimeFiber<unknown, unknown>
const fiberB = {} as Fiber.RuntimeFiber<unknown, unknown>

const order = (scheduler: Scheduler.Scheduler) =>
  new Promise<Array<number>>((resolve) => {
    const ran: Array<number> = []
    scheduler.scheduleTask(() => ran.push(1), 0, fiberA)
    scheduler.scheduleTask(() => ran.push(2), 0, fiberB)
    scheduler.scheduleTask(() => ran.push(3), 0, fiberA)
    setTimeout(() => resolve(ran), 20)
  })

describe("SharedQueueScheduler", () => {
  it("runs every fiber's tasks from one queue, in the order they came", async () => {
    expect(await order(new SharedQueueScheduler())).toEqual([1, 2, 3])
    // Effect's default keeps a queue per fiber: the same tasks run fiber by fiber
    expect(await order(new Scheduler.MixedScheduler(2048))).toEqual([1, 3, 2])
  })

  it.effect("runs fibers forked onto it to the end", () =>
    Effect.gen(function* () {
      const fibers = yield* Effect.forEach(
        Array.from({ length: 100 }, (_, i) => i),
        (i) => Effect.fork(Effect.yieldNow().pipe(Effect.as(i * 2)))
      )
      const results = yield* Fiber.joinAll(fibers)
      expect(results).toEqual(Array.from({ length: 100 }, (_, i) => i * 2))
    }).pipe(Effect.locally(FiberRef.currentScheduler, new SharedQueueScheduler()))
  )
})
