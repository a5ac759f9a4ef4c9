import { Clock, Effect } from "effect"

/** reader steps between yields (a step is a few hundred bars, one ticker's minutes or one evaluation: ≲ 1 ms) */
const SLICE_STEPS = 8

/**
 * Drives a history reader (a generator yielding `undefined` between slices of work and its results
 * as they come), handing each result to `visit` and letting other fibers run every few steps;
 * succeeds with false once the clock is past `deadline` (epoch ms), true when the reader is done.
 */
export const drive = <T>(steps: Generator<T | undefined, void>, visit: (t: T) => void, deadline: number) => {
  const loop: Effect.Effect<boolean> = Effect.suspend(() => {
    for (let n = 0; n < SLICE_STEPS; n++) {
      const next = steps.next()
      if (next.done) return Effect.succeed(true)
      if (next.value !== undefined) visit(next.value)
    }
    return Effect.flatMap(Clock.currentTimeMillis, (now) =>
      now > deadline ? Effect.succeed(false) : Effect.zipRight(Effect.yieldNow(), loop)
    )
  })
  // given up (past the deadline, interrupted, failed): the reader's `finally`s run (a walk shared with
  // the walk helper's thread tells it to stop)
  return Effect.ensuring(
    loop,
    Effect.sync(() => steps.return(undefined))
  )
}
