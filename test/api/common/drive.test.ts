/**
 * `drive`: a history reader driven to its end, or given up at its deadline — and then closed, so its
 * `finally` blocks run (a walk shared with the walk helper's thread stops the helper taking runs).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { drive } from "../../../src/api/common/drive.js"

/** a reader of `n` results with a yield between each, counting what it gave and whether it was closed */
const reader = (n: number) => {
  const seen = { given: 0, closed: false }
  function* steps(): Generator<number | undefined, void> {
    try {
      for (let k = 0; k < n; k++) {
        yield undefined
        seen.given++
        yield k
      }
    } finally {
      seen.closed = true
    }
  }
  return { steps: steps(), seen }
}

describe("drive", () => {
  it.effect("visits every result and answers true when the reader ends", () =>
    Effect.gen(function* () {
      const { steps, seen } = reader(100)
      const visited: Array<number> = []
      expect(yield* drive(steps, (k) => visited.push(k), Number.POSITIVE_INFINITY)).toBe(true)
      expect(visited).toEqual([...Array(100).keys()])
      expect(seen.closed).toBe(true)
    })
  )

  it.effect("answers false past the deadline and closes the reader there", () =>
    Effect.gen(function* () {
      const { steps, seen } = reader(1_000_000)
      yield* TestClock.setTime(10_000)
      expect(yield* drive(steps, () => {}, 5_000)).toBe(false)
      expect(seen.closed).toBe(true)
      // stopped at the first look at the clock: one slice of steps
      expect(seen.given).toBeLessThan(10)
    })
  )

  it.effect("closes the reader when a visit fails", () =>
    Effect.gen(function* () {
      const { steps, seen } = reader(100)
      const result = yield* Effect.exit(
        drive(
          steps,
          (k) => {
            if (k === 3) throw new Error("boom")
          },
          Number.POSITIVE_INFINITY
        )
      )
      expect(result._tag).toBe("Failure")
      expect(seen.closed).toBe(true)
    })
  )
})
