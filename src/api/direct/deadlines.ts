/**
 * The deadline of the work the direct path runs in fibers (a create: the
 * database, the key store, a Redis limiter may each stop answering): work
 * still running when its deadline passes on the Effect clock is answered by
 * its `timedOut` (the API's 503) and interrupted, as the API's own deadline
 * does (requestMiddleware.ts, `REQUEST_DEADLINE`). One sweep a second for all
 * of it, not a timer per request.
 */
import { type Clock, Duration, Effect, type Fiber, FiberId, Schedule, type Scope } from "effect"

export interface Deadlines {
  /** Runs `start()`'s fiber under the deadline; `timedOut` answers it if the deadline passes first. */
  readonly watch: (start: (done: () => void) => Fiber.RuntimeFiber<unknown, unknown>, timedOut: () => void) => void
  /** how many are watched now */
  readonly size: () => number
}

interface Watched {
  readonly by: number
  readonly timedOut: () => void
  fiber?: Fiber.RuntimeFiber<unknown, unknown>
}

export const makeDeadlines = (
  deadline: Duration.DurationInput,
  clock: Clock.Clock
): Effect.Effect<Deadlines, never, Scope.Scope> =>
  Effect.gen(function* () {
    const ms = Duration.toMillis(deadline)
    const watched = new Set<Watched>()
    yield* Effect.forkScoped(
      Effect.repeat(
        Effect.sync(() => {
          const now = clock.unsafeCurrentTimeMillis()
          for (const w of watched) {
            if (w.by > now) continue
            watched.delete(w)
            w.timedOut()
            w.fiber?.unsafeInterruptAsFork(FiberId.none)
          }
        }),
        Schedule.spaced(Duration.seconds(1))
      )
    )
    return {
      watch: (start, timedOut) => {
        const w: Watched = { by: clock.unsafeCurrentTimeMillis() + ms, timedOut }
        watched.add(w)
        // `done` may come before `start` returns (work that ends at once)
        w.fiber = start(() => watched.delete(w))
      },
      size: () => watched.size
    }
  })
