/**
 * Worker module of `workerShare.test.ts`: runs a generator of `steps` steps
 * of ~1 ms of busy work each within the gate's share, counting the steps done
 * in the shared `progress` cell, and answers the count. With `niceness` it
 * first lowers its thread's priority to it, and writes the niceness it ends
 * with into `progress[1]`.
 */

import { readlinkSync } from "node:fs"
import { getPriority } from "node:os"
import { performance } from "node:perf_hooks"
import { runWithinShare } from "../../src/workerShare.js"
import { answerParent, lowerThreadPriority } from "../../src/workerThread.js"

function* work(steps: number, progress: Int32Array): Generator<void, number> {
  for (let i = 0; i < steps; i++) {
    const until = performance.now() + 1
    while (performance.now() < until) {
      // busy
    }
    Atomics.add(progress, 0, 1)
    yield
  }
  return Atomics.load(progress, 0)
}

const threadId = () => Number(/task\/(\d+)$/.exec(readlinkSync("/proc/thread-self"))?.[1])

await answerParent(
  ({
    steps,
    gate,
    progress,
    niceness
  }: {
    steps: number
    gate: SharedArrayBuffer
    progress: SharedArrayBuffer
    niceness?: number
  }) => {
    const cells = new Int32Array(progress)
    if (niceness !== undefined) lowerThreadPriority(niceness)
    const done = runWithinShare(work(steps, cells), gate)
    if (niceness !== undefined) cells[1] = getPriority(threadId())
    return done
  }
)
