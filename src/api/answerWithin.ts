/**
 * Work answered by a deadline on the Effect clock, its fiber left to stop in the background.
 *
 * Same meaning as `Effect.timeoutTo(Effect.disconnect(work), …)`: the work runs in a fiber of
 * its own; when it ends first its exit (and its fiber refs, e.g. the response headers a
 * middleware appended) is the caller's; when the deadline passes first the caller gets
 * `onTimeout()` at once while the work is interrupted without waiting for it (cancelling a
 * query on a frozen database can itself take seconds); when the caller is interrupted, so is
 * the work. Built from two plain forks and one callback instead of the three fibers and the race
 * of `timeoutTo` + `disconnect`, which cost ~70 µs of CPU on every /v2 request
 * (docs/benchmarks.md, "What a request costs").
 */
import { Clock, type Duration, Effect, Exit, type Fiber, FiberId } from "effect"

export const answerWithin = <A, E, R>(
  work: Effect.Effect<A, E, R>,
  deadline: Duration.Duration,
  onTimeout: () => A
): Effect.Effect<A, E, R> =>
  // masked between the forks and the wait, so an interruption in between cannot leave the work running
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkDaemon(restore(work)), (worker) =>
      // the timer is interruptible whatever the caller's region: the platform runs middleware uninterruptibly, and
      // an uninterruptible sleep kept every answered request's fibers and context alive until its deadline passed
      Effect.flatMap(Effect.forkDaemon(Effect.interruptible(Clock.sleep(deadline))), (timer) =>
        restore(
          Effect.async<A, E>((resume) => {
            let settled = false
            const settle = (other: Fiber.RuntimeFiber<unknown, unknown>, answer: Effect.Effect<A, E>) => {
              if (settled) return
              settled = true
              other.unsafeInterruptAsFork(FiberId.none)
              resume(answer)
            }
            worker.addObserver((exit) => settle(timer, Effect.zipRight(worker.inheritAll, exit)))
            timer.addObserver((exit) => {
              if (Exit.isSuccess(exit)) settle(worker, Effect.sync(onTimeout))
            })
            return Effect.sync(() => {
              settled = true
              worker.unsafeInterruptAsFork(FiberId.none)
              timer.unsafeInterruptAsFork(FiberId.none)
            })
          })
        )
      )
    )
  )
