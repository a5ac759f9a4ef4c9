/**
 * The worker thread that builds the flag history (see `FlagHistory`) from a
 * market's series, off the service's event loop. It reads the series'
 * arrays where the service keeps them (shared memory, no copy), rebuilds the
 * simulator's fundamentals from the seed (the only inputs a flag reads
 * besides the bars) with a live feed's laid over, walks every ticker's history once as the service would,
 * and hands the bits and the counts back (transferred, no copy).
 *
 * It runs at the lowest scheduling priority (nice 19), and within the share
 * of the CPU the service sets as it goes (`workerShare.ts`): all of it while
 * the request thread is idle or someone waits for the history, a twentieth
 * while requests keep the service busy.
 */

import { runWithinShare } from "../../workerShare.js"
import { answerParent, lowerThreadPriority } from "../../workerThread.js"
import { simulatorFor } from "../engine/MarketData.js"
import { FeedSource, type FundamentalsEntry } from "../sources/feedSource.js"
import type { TickerMeta } from "../tickers/index.js"
import { BarSeries, type SeriesArrays } from "./barSeries.js"
import type { WalkMarket } from "./dailyWalk.js"
import { type FlagBits, FlagHistory } from "./flagHistory.js"

export interface FlagWorkerInput {
  readonly seed: number
  readonly tickers: ReadonlyArray<TickerMeta>
  readonly isCrypto: Uint8Array
  readonly series: ReadonlyArray<SeriesArrays>
  /** a live feed's fundamentals (`FeedSource`) */
  readonly feed: ReadonlyArray<FundamentalsEntry>
  /** tickers walked at once (see `FlagHistory.sync`) */
  readonly batch: number
  /** the worker thread's niceness (Linux) */
  readonly niceness: number
  /** the share of the CPU it may take, set by the service as it goes (`ShareGate`) */
  readonly gate: SharedArrayBuffer
}

const build = (input: FlagWorkerInput): FlagBits => {
  lowerThreadPriority(input.niceness)
  const index = new Map(input.tickers.map((t, i) => [t.ticker, i]))
  const sim = new FeedSource(simulatorFor(input.seed, input.tickers), (t) => index.get(t) ?? -1)
  sim.addFundamentals(input.feed)
  const market: WalkMarket = {
    series: input.series.map(BarSeries.over),
    tickers: input.tickers,
    size: input.tickers.length,
    isCrypto: input.isCrypto,
    sim,
    stateAt: () => {
      throw new Error("a first build walks from empty states")
    }
  }
  const history = new FlagHistory(market.size, input.isCrypto)
  runWithinShare(history.sync(market, input.batch), input.gate)
  return history.bits()
}

await answerParent(build, (bits) =>
  [...bits.trues, ...bits.known, bits.done, bits.counts.counts, bits.counts.totals].map((a) => a.buffer as ArrayBuffer)
)
