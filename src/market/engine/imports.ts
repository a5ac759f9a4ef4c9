/**
 * Real bars laid over the simulated history: checked (tracked tickers, only
 * completed days), merged with earlier imports, then the tickers' bars and
 * states rebuilt and today's sessions re-opened on them.
 */
import { deepGridBarsTo } from "../history/deepGrid.js"
import { isoDate } from "../indicators/days.js"
import type { ParsedBar } from "../sources/csvBars.js"
import type { MarketCore } from "./core.js"
import { commitSeries, computeMemberships, deepGridSpec, generateSeries } from "./history.js"
import { refresh } from "./liveRow.js"
import { runToEnd } from "./runToEnd.js"
import { openSessions } from "./sessions.js"

export interface ImportSummary {
  readonly tickers: ReadonlyArray<string>
  readonly rows: number
  readonly from: string
  readonly to: string
}

export class ImportRangeError extends Error {}

/** Checks that imported bars may be applied now: tracked tickers, dates before the current session. */
export const validateImport = (
  core: MarketCore,
  byTicker: ReadonlyMap<string, ReadonlyArray<ParsedBar>>,
  now: number
): ImportSummary => {
  const which: Array<string> = []
  let rows = 0
  let from = "9999-12-31"
  let to = "0000-01-01"
  for (const [ticker, bars] of byTicker) {
    const i = core.index.get(ticker)
    if (i === undefined) throw new ImportRangeError(`ticker ${ticker} is not tracked`)
    if (bars.length === 0) continue
    const current = isoDate(core.sessionDay(i, now))
    const last = bars[bars.length - 1].date
    if (last >= current) {
      throw new ImportRangeError(
        `${ticker}: bar dated ${last} is not before the current session (${current}); only completed days can be imported`
      )
    }
    which.push(ticker)
    rows += bars.length
    if (bars[0].date < from) from = bars[0].date
    if (last > to) to = last
  }
  return { tickers: which.sort(), rows, from, to }
}

/**
 * Lays imported bars over the tickers' history, rebuilds their derived rows,
 * and re-opens today's sessions (their prior closes may have changed).
 */
export const importBars = (
  core: MarketCore,
  byTicker: ReadonlyMap<string, ReadonlyArray<ParsedBar>>,
  now: number
): ImportSummary => {
  const summary = validateImport(core, byTicker, now)
  const which = new Set(summary.tickers.map((t) => core.index.get(t)!))
  // the grid reads bars to `deepGridBarsTo`: an import after it (into the window, a live feed's days) keeps it
  const gridKept = core.deepGrid !== undefined && summary.from > isoDate(deepGridBarsTo(deepGridSpec(core)))
  for (const [ticker, bars] of byTicker) {
    if (bars.length === 0) continue
    core.imported.set(ticker, mergeImported(core.imported.get(ticker) ?? [], bars))
    // quote bars of the days imported are imported bars now (`quotes.ts`)
    const quoted = core.closedQuoteBars.get(ticker)
    if (quoted !== undefined) {
      const rest = quoted.filter((b) => b.date < bars[0].date || b.date > bars[bars.length - 1].date)
      if (rest.length === 0) core.closedQuoteBars.delete(ticker)
      else core.closedQuoteBars.set(ticker, rest)
    }
  }
  runToEnd(generateSeries(core, which, now))
  runToEnd(commitSeries(core, which, now))
  openSessions(core, now)
  core.asOfCache.clear()
  core.deepCache.clear()
  // otherwise the grid was walked over the bars this import replaced: a new one is built (`DeepHistory`)
  if (!gridKept) core.deepGrid = undefined
  core.memberships = computeMemberships(core)
  refresh(core, now)
  return summary
}

/** Imported bars replace earlier imported bars over their own range. */
const mergeImported = (old: ReadonlyArray<ParsedBar>, incoming: ReadonlyArray<ParsedBar>): ReadonlyArray<ParsedBar> => {
  if (old.length === 0) return incoming
  const from = incoming[0].date
  const to = incoming[incoming.length - 1].date
  return [...old.filter((b) => b.date < from || b.date > to), ...incoming].sort((a, b) =>
    a.date < b.date ? -1 : a.date > b.date ? 1 : 0
  )
}
