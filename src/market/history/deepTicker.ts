/**
 * One ticker's history before the window the market keeps in memory: its bars from its first day
 * (`tickerBars`: regenerated, bit for bit the market's), and its indicator state committed from
 * that first bar with a checkpoint every 64 bars, so a row or a series at any date replays at most
 * 63 bars. Built on the first read that needs it (a few milliseconds for twenty years) and kept in
 * a small cache by the market.
 */
import { HistoryCheckpoints } from "../engine/checkpoints.js"
import { commitDeferred, configForAssetType, type DailyState, makeState } from "../indicators/index.js"
import { type BarSeries, barInto, newBar } from "./barSeries.js"
import { type TickerBarsOptions, tickerBars } from "./tickerBars.js"

export interface DeepTicker {
  readonly series: BarSeries
  /** the indicator state of the series from its first bar (slot 0), sparse: every 64 bars */
  readonly checkpoints: HistoryCheckpoints
  readonly assetType: string
}

export const buildDeepTicker = (options: TickerBarsOptions & { readonly assetType: string }): DeepTicker => {
  const series = tickerBars(options)
  const checkpoints = new HistoryCheckpoints(1)
  // no dense part: a checkpoint every SPARSE_EVERY bars throughout
  checkpoints.reset(0, series.length)
  checkpoints.reserve(0, series.length)
  const st = makeState(configForAssetType(options.assetType))
  const bar = newBar()
  for (let j = 0; j < series.length; j++) {
    checkpoints.beforeCommit(0, j, st)
    commitDeferred(st, barInto(series, j, bar))
  }
  return { series, checkpoints, assetType: options.assetType }
}

/** A fresh state of `deep` with its bars before index `j` committed. */
export const deepStateBefore = (deep: DeepTicker, j: number, into?: DailyState): DailyState =>
  deep.checkpoints.stateBefore(0, j, deep.series, deep.assetType, into)
