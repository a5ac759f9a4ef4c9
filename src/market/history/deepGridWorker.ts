/**
 * The worker thread that builds the whole-market grid of states into its file
 * (`deepGridFile.ts`), off the service's event loop: every bar of every ticker
 * since 2003 regenerated from the seed and committed once (a minute or more of
 * CPU). Like the flag history's worker, it runs at the lowest scheduling
 * priority and within the share of the CPU the service sets (`workerShare.ts`).
 */
import { runWithinShare } from "../../workerShare.js"
import { answerParent, lowerThreadPriority } from "../../workerThread.js"
import { simulatorFor } from "../engine/core.js"
import type { ParsedBar } from "../sources/csvBars.js"
import type { TickerMeta } from "../tickers/index.js"
import type { DeepGridMeta } from "./deepGrid.js"
import { writeDeepGridFile } from "./deepGridFile.js"

export interface DeepGridWorkerInput {
  readonly seed: number
  readonly tickers: ReadonlyArray<TickerMeta>
  readonly firstDay: Int32Array
  /** imported bars by slot */
  readonly imported: ReadonlyArray<readonly [number, ReadonlyArray<ParsedBar>]>
  readonly origin: number
  readonly every: number
  readonly toDay: number
  readonly dir: string
  readonly key: string
  readonly niceness: number
  readonly gate: SharedArrayBuffer
}

const build = (input: DeepGridWorkerInput): DeepGridMeta => {
  lowerThreadPriority(input.niceness)
  const imported = new Map(input.imported)
  return runWithinShare(
    writeDeepGridFile(input.dir, input.key, {
      source: simulatorFor(input.seed, input.tickers),
      tickers: input.tickers,
      firstDay: input.firstDay,
      imported: (i) => imported.get(i),
      origin: input.origin,
      every: input.every,
      toDay: input.toDay
    }),
    input.gate
  )
}

await answerParent(build)
