/**
 * A FIFO permit gate: at most `permits` effects run through it at once; the others wait in
 * arrival order and each release hands its permit straight to the next waiter.
 *
 * Why not `Effect.Semaphore`: on every release it wakes every waiter (each re-checks and all
 * but one wait again), so with W waiters a release costs O(W). With 56 POSTs queued behind
 * one host's 8 permits a local receiver got 250–400 POSTs/s through the transport with a
 * semaphore and 1,600–2,700 with this gate (same machine, same run), which wakes exactly one.
 *
 * Interruption: a waiter that is interrupted leaves the queue; one that is interrupted after
 * a permit was handed to it (but before it could use it) passes the permit on. A permit is
 * held only between a successful acquisition and the release that `withPermit` guarantees.
 */
import { Effect } from "effect"

interface Waiter {
  state: "waiting" | "granted"
  resume: (effect: Effect.Effect<void>) => void
}

export interface Gate {
  readonly withPermit: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** permits in use */
  readonly active: () => number
  /** effects waiting for a permit */
  readonly waiting: () => number
}

export const makeGate = (permits: number): Gate => {
  const limit = Math.max(1, Math.floor(permits))
  let active = 0
  // a queue with a moving head: O(1) shift; compacted when the dead prefix grows
  let queue: Array<Waiter | null> = []
  let head = 0
  let waiting = 0

  const release = () => {
    while (head < queue.length) {
      const next = queue[head]
      queue[head++] = null
      if (head > 1024 && head * 2 > queue.length) {
        queue = queue.slice(head)
        head = 0
      }
      if (next) {
        waiting--
        next.state = "granted" // the permit moves to `next`; `active` stays the same
        next.resume(Effect.void)
        return
      }
    }
    active--
  }

  const acquire: Effect.Effect<void> = Effect.suspend(() => {
    if (active < limit) {
      active++
      return Effect.void
    }
    let waiter: Waiter | undefined
    return Effect.async<void>((resume) => {
      waiter = { state: "waiting", resume }
      queue.push(waiter)
      waiting++
    }).pipe(
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          if (waiter === undefined) return
          if (waiter.state === "granted") {
            release()
          } else {
            const i = queue.indexOf(waiter, head)
            if (i >= 0) {
              queue[i] = null
              waiting--
            }
          }
        })
      )
    )
  })

  return {
    withPermit: (effect) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(restore(acquire), () => Effect.ensuring(restore(effect), Effect.sync(release)))
      ),
    active: () => active,
    waiting: () => waiting
  }
}
