/**
 * A share of the CPU for background work in a worker thread, set from the
 * service's thread as it goes: all of it while the request thread is idle (or
 * someone waits for the result), a small share while the request thread is
 * busy.
 *
 * A low scheduling priority (`lowerThreadPriority`) is not enough on its own:
 * on this 2-core machine a worker at nice 19 still cut the requests served in
 * the first minute after ready to 0.40–0.76 of the settled figure
 * (docs/benchmarks.md): it takes whatever core goes idle for a moment (the
 * load generator's, the database's), and the cores it shares caches and
 * memory with slow down meanwhile. Paused, it takes nothing.
 *
 * The gate is two shared integers: the share in thousandths, and whether
 * someone waits for the work. The worker runs its work generator in slices
 * (`runWithinShare`) and after each slice sleeps (`Atomics.wait`: no CPU) long
 * enough to keep to the share; a change of share wakes it at once. Once
 * someone waits, the worker also gives up its low priority (back to nice 0,
 * where the system lets it: on a machine busy with other processes a nice-19
 * thread gets almost nothing, and the request waiting for it with it).
 */
import { performance } from "node:perf_hooks"
import { Effect } from "effect"
import { setThreadNiceness } from "./workerThread.js"

/** the whole CPU (thousandths) */
export const FULL_SHARE = 1000

/** the share the worker keeps to while the request thread is busy (thousandths) */
export const BUSY_SHARE = 50

/** the request thread counts as busy above this share of its time spent working (event loop utilization) */
export const BUSY_UTILIZATION = 0.2

/** how often the request thread's business is sampled */
export const PACE_EVERY = "100 millis"

/** work between two looks at the gate (worker side: real CPU time, not the Effect clock) */
const SLICE_MS = 10

/** The service's side of a gate: the buffer to hand to the worker, the share to set, whether someone waits. */
export interface ShareGate {
  readonly buffer: SharedArrayBuffer
  readonly share: () => number
  readonly set: (thousandths: number) => void
  readonly urgent: () => boolean
  /** someone waits for the work: the worker leaves its low priority (once; it does not go back) */
  readonly setUrgent: () => void
}

export const makeShareGate = (initial = FULL_SHARE): ShareGate => {
  const buffer = new SharedArrayBuffer(8)
  const cell = new Int32Array(buffer)
  cell[0] = initial
  return {
    buffer,
    share: () => Atomics.load(cell, 0),
    set: (thousandths) => {
      const share = Math.max(1, Math.min(FULL_SHARE, Math.round(thousandths)))
      if (Atomics.exchange(cell, 0, share) !== share) Atomics.notify(cell, 0)
    },
    urgent: () => Atomics.load(cell, 1) === 1,
    setUrgent: () => {
      Atomics.store(cell, 1, 1)
    }
  }
}

/**
 * Worker side: runs `work` to its end, `SLICE_MS` at a time, pausing after
 * each slice for as long as the gate's share asks (a slice of 10 ms at a
 * share of 50 thousandths: 190 ms of pause).
 */
export const runWithinShare = <A>(work: Generator<void, A>, gate: SharedArrayBuffer): A => {
  const cell = new Int32Array(gate)
  let raised = false
  for (;;) {
    if (!raised && cell.length > 1 && Atomics.load(cell, 1) === 1) {
      // someone waits: back to the default priority (best effort: needs CAP_SYS_NICE to raise it)
      setThreadNiceness(0)
      raised = true
    }
    const start = performance.now()
    let step = work.next()
    while (!step.done && performance.now() - start < SLICE_MS) step = work.next()
    if (step.done) return step.value
    const share = Atomics.load(cell, 0)
    if (share < FULL_SHARE) {
      const busy = performance.now() - start
      Atomics.wait(cell, 0, share, (busy * (FULL_SHARE - share)) / share)
    }
  }
}

/**
 * The share a worker gets for the event loop utilization of the last sample:
 * all while the loop is idle or someone waits for the work (`urgent`), `BUSY_SHARE` otherwise.
 */
export const shareFor = (utilization: number, urgent: boolean): number =>
  urgent || utilization < BUSY_UTILIZATION ? FULL_SHARE : BUSY_SHARE

/**
 * Sets the gate's share from this thread's event loop utilization every
 * `PACE_EVERY` (Effect clock) until interrupted; `urgent` says whether someone
 * waits for the work.
 */
export const paceByEventLoop = (gate: ShareGate, urgent: () => boolean): Effect.Effect<never> =>
  Effect.suspend(() => {
    let last = performance.eventLoopUtilization()
    return Effect.sync(() => {
      const now = performance.eventLoopUtilization()
      const waiting = urgent()
      if (waiting) gate.setUrgent()
      gate.set(shareFor(performance.eventLoopUtilization(now, last).utilization, waiting))
      last = now
    }).pipe(Effect.zipRight(Effect.sleep(PACE_EVERY)), Effect.forever)
  })
