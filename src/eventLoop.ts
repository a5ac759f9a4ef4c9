/**
 * Giving the event loop a turn from inside a long piece of work (the market's first build, deep history,
 * signal stats, news scans).
 *
 * `Effect.yieldNow` lets other fibers run but not the event loop: Effect's
 * scheduler runs its queue on microtasks, so sockets, timers and messages
 * from worker threads (the embedded database's answers) wait until the work
 * ends. A `setImmediate` runs after the loop's poll phase: everything that
 * arrived meanwhile is handled first.
 */
import { Effect } from "effect"

/** Lets the event loop run (HTTP requests, probes, worker threads' messages) before going on. */
export const yieldToEventLoop: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})
