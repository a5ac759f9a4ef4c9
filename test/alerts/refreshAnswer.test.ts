/**
 * `POST /admin/refresh` in a split deployment (issue 15, item 3): answered once every slice has
 * committed the refresh's tick, or after the bound with the slices still behind named.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { awaitSlices, SLICES_WAIT_MS } from "../../src/alerts/refreshAnswer.js"
import type { Market } from "../../src/market/Market.js"
import type { Snapshot } from "../../src/market/snapshot.js"
import type { Tick, Ticks } from "../../src/store/ticks.js"

const tick: Tick = { seq: 7, asOf: 1_000, due: ["realtime"], imports: 0, request: 3 }
const snapshot = { asOf: 1_000 } as Snapshot
const market = { tickOf: (s: Snapshot) => (s === snapshot ? tick : undefined) } as unknown as Market

/** slices behind `tick` per look: each look answers the next list (the last one forever) */
const ticksAnswering = (looks: ReadonlyArray<ReadonlyArray<number>>) => {
  let n = 0
  const asked: Array<number> = []
  const ticks = {
    at: () => Effect.succeed(undefined),
    latest: Effect.succeed(undefined),
    slicesBehind: (seq: number) =>
      Effect.sync(() => {
        asked.push(seq)
        return looks[Math.min(n++, looks.length - 1)]!
      })
  } as unknown as Ticks
  return { ticks, asked }
}

describe("a refresh answered per slice", () => {
  it.effect("answers once every slice has committed the tick", () =>
    Effect.gen(function* () {
      const { ticks, asked } = ticksAnswering([[5, 9], [9], []])
      const fiber = yield* Effect.fork(awaitSlices(ticks, market, snapshot))
      yield* TestClock.adjust(1_000)
      const r = yield* Fiber.join(fiber)
      expect(r).toMatchObject({ ok: true, asOf: 1_000 })
      expect(asked).toEqual([7, 7, 7])
    })
  )

  it.effect("after the bound: not ok, naming the slices still behind", () =>
    Effect.gen(function* () {
      const { ticks } = ticksAnswering([[3, 17]])
      const fiber = yield* Effect.fork(awaitSlices(ticks, market, snapshot))
      yield* TestClock.adjust(SLICES_WAIT_MS + 1_000)
      const r = yield* Fiber.join(fiber)
      expect(r.ok).toBe(false)
      expect(r.behind).toEqual([3, 17])
      expect(r.error).toContain("2 of 1024 webhook slices did not evaluate tick 7")
    })
  )

  it.effect("no tick at all: not ok, saying a runner is needed", () =>
    Effect.gen(function* () {
      const { ticks } = ticksAnswering([[]])
      const r = yield* awaitSlices(ticks, market, { asOf: 5 } as Snapshot)
      expect(r.ok).toBe(false)
      expect(r.error).toContain("is a runner running?")
    })
  )
})
