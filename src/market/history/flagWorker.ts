/**
 * The worker thread that builds the flag history (see `FlagHistory`) from a
 * market's series, off the service's event loop. It reads the series'
 * arrays where the service keeps them (shared memory, no copy), rebuilds the
 * simulator's fundamentals from the seed (the only inputs a flag reads
 * besides the bars), walks every ticker's history once as the service would,
 * and hands the bits and the counts back (transferred, no copy).
 *
 * It runs at the lowest scheduling priority (nice 19): it uses the CPU the
 * request thread leaves idle (the second core), and next to nothing of a
 * core another thread wants (nice 10, a tenth of a core, still cost the
 * requests 28% of their throughput in one loaded run: docs/benchmarks.md).
 */
import { answerParent, lowerThreadPriority } from "../../workerThread.js"
import { runToEnd, simulatorFor } from "../engine/MarketData.js"
import type { TickerMeta } from "../tickers/index.js"
import { BarSeries, type SeriesArrays } from "./barSeries.js"
import type { WalkMarket } from "./dailyWalk.js"
import { type FlagBits, FlagHistory } from "./flagHistory.js"

export interface FlagWorkerInput {
  readonly seed: number
  readonly tickers: ReadonlyArray<TickerMeta>
  readonly isCrypto: Uint8Array
  readonly series: ReadonlyArray<SeriesArrays>
  /** tickers walked at once (see `FlagHistory.sync`) */
  readonly batch: number
  /** the worker thread's niceness (Linux) */
  readonly niceness: number
}

const build = (input: FlagWorkerInput): FlagBits => {
  lowerThreadPriority(input.niceness)
  const market: WalkMarket = {
    series: input.series.map(BarSeries.over),
    tickers: input.tickers,
    size: input.tickers.length,
    isCrypto: input.isCrypto,
    sim: simulatorFor(input.seed, input.tickers),
    stateAt: () => {
      throw new Error("a first build walks from empty states")
    }
  }
  const history = new FlagHistory(market.size, input.isCrypto)
  runToEnd(history.sync(market, input.batch))
  return history.bits()
}

await answerParent(build, (bits) =>
  [...bits.trues, ...bits.known, bits.done, bits.counts.counts, bits.counts.totals].map((a) => a.buffer as ArrayBuffer)
)
