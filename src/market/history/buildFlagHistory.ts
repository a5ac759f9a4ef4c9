/**
 * The first build of the flag history in a worker thread (`flagWorker.ts`):
 * tens of seconds of CPU on the full market that would otherwise run on the
 * event loop serving requests. The result is the history a synchronous
 * `sync` of the same series gives, bit for bit.
 */
import { extname } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { makeShareGate, type ShareGate } from "../../workerShare.js"
import { runWorker } from "../../workerThread.js"
import type { MarketReader } from "../engine/MarketData.js"
import { MarketSimulator } from "../sim/index.js"
import { baseOf, FeedSource } from "../sources/feedSource.js"
import { ReplaySource } from "../sources/replay.js"
import { type FlagBits, FlagHistory } from "./flagHistory.js"
import type { FlagWorkerInput } from "./flagWorker.js"

/** niceness of the worker thread (the lowest priority): it takes the CPU no other thread wants */
export const FLAG_WORKER_NICENESS = 19
/** tickers the worker walks at once: ~15 MB of indicator states instead of ~186 MB for all */
export const FLAG_WORKER_BATCH = 1024

const workerModule = new URL(`./flagWorker${extname(fileURLToPath(import.meta.url))}`, import.meta.url)

/**
 * Whether a worker can rebuild the market's inputs: its fundamentals are the
 * simulator's (the simulator itself, or a replay over it), which the worker
 * regenerates from the seed, with a live feed's laid over (handed over).
 */
export const workerCanBuild = (md: MarketReader): boolean => {
  const fed = baseOf(md.sim)
  const source = fed instanceof ReplaySource ? fed.base : fed
  return source instanceof MarketSimulator
}

/**
 * A flag history of every ticker's current series, built in a worker thread
 * that keeps to the share of the CPU `gate` gives it (all of it by default).
 */
export const buildFlagHistoryInWorker = (
  md: MarketReader,
  options: { readonly batch?: number; readonly gate?: ShareGate } = {}
): Effect.Effect<FlagHistory, Error> =>
  Effect.suspend(() => {
    // the series objects the worker reads: the history describes these (a later import replaces some)
    const series = md.series.slice()
    const input: FlagWorkerInput = {
      seed: md.options.seed,
      tickers: md.tickers,
      isCrypto: md.isCrypto,
      series: series.map((s) => s.arrays()),
      feed: md.sim instanceof FeedSource ? md.sim.fundamentalEntries(md.tickers.map((t) => t.ticker)) : [],
      batch: options.batch ?? FLAG_WORKER_BATCH,
      niceness: FLAG_WORKER_NICENESS,
      gate: (options.gate ?? makeShareGate()).buffer
    }
    return Effect.map(runWorker<FlagBits>("flag history worker", workerModule, input), (bits) => {
      const history = new FlagHistory(md.size, md.isCrypto)
      history.adopt(series, bits)
      return history
    })
  })
