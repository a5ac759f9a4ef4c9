/**
 * A worker's share of the CPU (src/workerShare.ts): the worker keeps to the
 * share the service sets, pauses without spinning, and resumes as soon as the
 * share rises; the service sets the share from its event loop's business.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import {
  BUSY_SHARE,
  BUSY_UTILIZATION,
  FULL_SHARE,
  makeShareGate,
  paceByEventLoop,
  shareFor
} from "../src/workerShare.js"
import { runWorker } from "../src/workerThread.js"

const shareWorker = new URL("./support/shareWorker.ts", import.meta.url)

/** real time passing (the worker's pacing is real CPU time, not the Effect clock) */
const wallSleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** keeps this thread busy for `ms` (what a loaded request thread looks like to its event loop) */
const spin = (ms: number) =>
  Effect.sync(() => {
    const until = performance.now() + ms
    while (performance.now() < until) {
      // busy
    }
  })

describe("a worker's share of the CPU", () => {
  it("is all of it while the event loop is idle or someone waits, a small share while it is busy", () => {
    expect(shareFor(0, false)).toBe(FULL_SHARE)
    expect(shareFor(BUSY_UTILIZATION / 2, false)).toBe(FULL_SHARE)
    expect(shareFor(BUSY_UTILIZATION, false)).toBe(BUSY_SHARE)
    expect(shareFor(1, false)).toBe(BUSY_SHARE)
    expect(shareFor(1, true)).toBe(FULL_SHARE)
    expect(BUSY_SHARE).toBeLessThanOrEqual(FULL_SHARE / 10)
  })

  it("clamps the share it is given to 1–1000 thousandths", () => {
    const gate = makeShareGate()
    gate.set(0)
    expect(gate.share()).toBe(1)
    gate.set(5000)
    expect(gate.share()).toBe(FULL_SHARE)
    gate.set(49.6)
    expect(gate.share()).toBe(50)
  })

  it.live(
    "pauses the worker while the share is low and lets it finish at once when the share is raised",
    () =>
      Effect.gen(function* () {
        // a share of one thousandth: after its first 10 ms slice the worker would pause ~10 s
        const gate = makeShareGate(1)
        const progress = new Int32Array(new SharedArrayBuffer(4))
        const run = yield* runWorker<number>("share worker", shareWorker, {
          steps: 200,
          gate: gate.buffer,
          progress: progress.buffer
        }).pipe(Effect.fork)
        // its first slice done (≥ 1 step), it makes no progress while paused
        while (Atomics.load(progress, 0) === 0) yield* wallSleep(10)
        yield* wallSleep(100)
        const paused = Atomics.load(progress, 0)
        yield* wallSleep(400)
        expect(Atomics.load(progress, 0)).toBe(paused)
        expect(paused).toBeLessThan(200)
        // raised: it wakes at once (not after its ~10 s pause) and finishes the 200 steps
        gate.set(FULL_SHARE)
        expect(yield* Fiber.join(run).pipe(Effect.timeout("5 seconds"))).toBe(200)
      }),
    30_000
  )

  it.live(
    "gives up the worker's low priority once someone waits for the work (as root; elsewhere it stays low)",
    () =>
      Effect.gen(function* () {
        const run = (urgent: boolean) =>
          Effect.gen(function* () {
            const gate = makeShareGate()
            if (urgent) gate.setUrgent()
            const progress = new Int32Array(new SharedArrayBuffer(8))
            const done = yield* runWorker<number>("share worker", shareWorker, {
              steps: 20,
              gate: gate.buffer,
              progress: progress.buffer,
              niceness: 19
            })
            expect(done).toBe(20)
            return progress[1]
          })
        expect(yield* run(false)).toBe(19)
        expect(yield* run(true)).toBe(process.getuid?.() === 0 ? 0 : 19)
      }),
    30_000
  )

  it.effect("is set from the event loop's business on each sample, and is full while someone waits", () =>
    Effect.gen(function* () {
      const gate = makeShareGate()
      let urgent = false
      const pacer = yield* Effect.fork(paceByEventLoop(gate, () => urgent))
      yield* TestClock.adjust("1 millis")
      // a sample after the loop was kept busy
      yield* spin(60)
      yield* TestClock.adjust("100 millis")
      expect(gate.share()).toBe(BUSY_SHARE)
      // a sample after the loop was idle (on a loaded machine a window may still count as busy —
      // the test runner's own work on this thread — so up to five idle windows)
      for (let tries = 0; tries < 5 && gate.share() !== FULL_SHARE; tries++) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 150)))
        yield* TestClock.adjust("100 millis")
      }
      expect(gate.share()).toBe(FULL_SHARE)
      // busy, but a request waits for the work
      expect(gate.urgent()).toBe(false)
      urgent = true
      yield* spin(60)
      yield* TestClock.adjust("100 millis")
      expect(gate.share()).toBe(FULL_SHARE)
      expect(gate.urgent()).toBe(true)
      yield* Fiber.interrupt(pacer)
    })
  )
})
