/**
 * A dry-run's time budget on the Effect clock (TestClock): the replay yields between slices and
 * stops once the clock passes its deadline (the endpoint then answers 400 naming the size), and
 * finishes a bounded reader within it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { type Evaluation, Replay } from "../../../src/alerts/dryRun/replay.js"
import { DEFAULT_FIRING } from "../../../src/alerts/firing/options.js"
import { DRY_RUN_BUDGET_MS, replay } from "../../../src/api/webhooks/dryRun.js"

function* endless(): Generator<Evaluation | undefined, void> {
  for (;;) yield undefined
}

function* days(n: number): Generator<Evaluation | undefined, void> {
  for (let d = 0; d < n; d++) {
    yield {
      at: d * 86_400_000,
      matched: Int32Array.of(d % 3),
      clear: undefined,
      price: () => 1,
      bar: () => d,
      closeAt: () => 1
    }
  }
}

describe("the dry-run's budget", () => {
  it.effect("stops a replay that outlives its deadline on the clock", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(replay(endless(), new Replay(DEFAULT_FIRING), DRY_RUN_BUDGET_MS))
      yield* TestClock.adjust(DRY_RUN_BUDGET_MS - 1)
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust(2)
      expect(yield* Fiber.join(fiber)).toBe(false)
    })
  )

  it.effect("finishes a bounded replay within it, every evaluation stepped", () =>
    Effect.gen(function* () {
      const r = new Replay(DEFAULT_FIRING)
      expect(yield* replay(days(100), r, DRY_RUN_BUDGET_MS)).toBe(true)
      expect(r.evaluations).toBe(100)
      expect(r.eventCount).toBe(100)
    })
  )
})
