/**
 * Worker module of `workerShare.test.ts`: runs a generator of `steps` steps
 * of ~1 ms of busy work each within the gate's share, counting the steps done
 * in the shared `progress` cell, and answers the count.
 */
import { performance } from "node:perf_hooks"
import { runWithinShare } from "../../src/workerShare.js"
import { answerParent } from "../../src/workerThread.js"

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

await answerParent(
  ({ steps, gate, progress }: { steps: number; gate: SharedArrayBuffer; progress: SharedArrayBuffer }) =>
    runWithinShare(work(steps, new Int32Array(progress)), gate)
)
