/**
 * Incremental daily indicators: the public surface for ingest, the
 * simulator and history rebuilds.
 *
 *   const st = makeState(EQUITY_DAILY)             // or restore(checkpoint), per ticker
 *   commit(st, completedBar)                       // once per completed day
 *   const columns = allocateColumns(size)          // per snapshot: every computed column
 *   const sink = bindColumns(columns)              // once per set of column arrays
 *   preview(st, partialBar, inputs, sink, row)     // every refresh, row by row (one bar, one inputs reused)
 *   previewAll(states, bars, inputs, sink)         // or every row from arrays of them
 *   const cp = checkpoint(st)                      // JSON-safe, restorable
 *   const sc = recursiveScalars(st)                // or 25 doubles, where the bars are kept:
 *   restoreFromBars(config, sc, count, bars, end)  // rebuilds the rest from the bar arrays
 *
 * The daily row of a completed day (history) is the preview of its final bar
 * on the state before it: `preview(st, bar, ...)` then `commit(st, bar)`.
 */
export * as batch from "./batch.js"
export { checkpoint, type IndicatorCheckpoint, restore } from "./checkpoint.js"
export { CRYPTO_DAILY, configForAssetType, EQUITY_DAILY, type IndicatorConfig } from "./config.js"
export { epochDay, epochDayOfMillis, isoDate, weekdayOfDay, yearOfDay } from "./days.js"
export {
  commit,
  commitAll,
  commitDeferred,
  computeDay,
  finishCommits,
  preview,
  previewAll,
  previewValues
} from "./engine.js"
export { familiesOf } from "./families.js"
export { NO_INPUTS, type TickerInputs } from "./fundamentals.js"
export { NEWS_RELEVANCE_MIN, NEWS_WINDOW_MS, type NewsMention, type NewsValues, newsColumns } from "./news.js"
export {
  type BarArrays,
  copyLongSum,
  copyRecursiveScalars,
  LONG_SUM_SIZE,
  recursiveScalars,
  restoreFromBars,
  restoreNeeds
} from "./rebuild.js"
export { type Cell, referenceColumns } from "./reference.js"
export { Scratch, scratch } from "./scratch.js"
export {
  allocateColumnBlock,
  allocateColumns,
  bindColumns,
  blockColumns,
  COMPUTED_COLUMN_NAMES,
  type ColumnBlock,
  type RowSink,
  writeRow
} from "./sink.js"
export { ALL_FAMILIES, type DailyBar, DailyState, makeState, SC_COUNT } from "./state.js"
