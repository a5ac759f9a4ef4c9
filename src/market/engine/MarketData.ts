/**
 * The market: every tracked ticker's daily bars, its committed indicator
 * state, today's session and the snapshots built from them — live, and as of
 * any past date.
 *
 * Sessions. Equities belong to NYSE sessions (a trading date's state is taken
 * at its 16:00 ET close); crypto to UTC days (state at 00:00 UTC at the end of
 * the day). The indicator state of a ticker has every bar *before* its current
 * session committed; the current session's bar is partial while it runs and
 * final once it closed, and the live row is the preview of that bar. The bar
 * is committed when the next session begins.
 *
 * History. The simulated market is a pure function of the seed, so its bars
 * are regenerated at start (HISTORY_DAYS trading days plus 252 warm-up days
 * for equities, a year more for crypto) rather than stored; imported bars
 * replace a ticker's simulated bars over their range and the simulation
 * resumes from the imported close. A past day's row is the preview of that
 * day's bar on the state before it — the same code as the live row — with the
 * state rebuilt from a checkpoint of its recursive scalars taken every few
 * bars plus the bars themselves.
 *
 * This class is the facade over the parts (see `core.ts`): the state lives in
 * a `MarketCore`, each job in a module of its own. Readers take it as a
 * `MarketReader` (read-only); `Market.ts` alone moves it.
 */

import type { DeepGridSpec } from "../history/deepGrid.js"
import type { DailyState, RowSink } from "../indicators/index.js"
import type { Snapshot } from "../snapshot.js"
import type { ParsedBar } from "../sources/csvBars.js"
import type { FeedInputs, FeedMention, FundamentalsEntry } from "../sources/feedSource.js"
import { membershipOn } from "../universes.js"
import { dailySeries, rowAsOf, snapshotAsOf, weeklySeries } from "./asOf.js"
import { dailyBars } from "./bars.js"
import { type DailySnapshot, MarketCore, type MarketDataOptions } from "./core.js"
import type { DeepGridReader } from "./deepAsOf.js"
import { reachingBack, type StretchReads, type StretchRoom } from "./deepWalk.js"
import {
  applyFundamentals,
  applyMentions,
  type FundamentalsUpdate,
  fundamentalsEntries,
  type NewsItem,
  newsMentions,
  reloadFeed
} from "./feedInputs.js"
import {
  commitSeries,
  computeMemberships,
  dailyCoverage,
  deepGridSpec,
  deepOf,
  earliestDay,
  generateSeries,
  stateAt,
  wholeMarketFrom
} from "./history.js"
import { type ImportSummary, importBars, validateImport } from "./imports.js"
import { refresh } from "./liveRow.js"
import type { MarketReader } from "./MarketReader.js"
import { intradaySeries, minuteWalk } from "./minutes.js"
import { applyQuotes, completedQuoteBars, type Quote, type QuotesOutcome } from "./quotes.js"
import { runToEnd } from "./runToEnd.js"
import { minuteCoverage, openSessions, rollSessions } from "./sessions.js"

export { AS_OF_CACHE_SIZE, CARRY_FORWARD_DAYS, readRow } from "./asOf.js"
export {
  CRYPTO_WARMUP_DAYS,
  type DailySnapshot,
  EQUITY_WARMUP_SESSIONS,
  type MarketDataOptions,
  STRING_COLUMNS,
  simulatorFor
} from "./core.js"
export type { DeepGridReader } from "./deepAsOf.js"
export { DEEP_CACHE_SIZE } from "./history.js"
export { ImportRangeError, type ImportSummary } from "./imports.js"
export type { MarketReader } from "./MarketReader.js"
export type { Quote, QuoteRejection, QuotesOutcome } from "./quotes.js"
export { runToEnd } from "./runToEnd.js"

export class MarketData implements MarketReader {
  private readonly core: MarketCore

  constructor(readonly options: MarketDataOptions) {
    this.core = new MarketCore(options)
  }

  /**
   * Builds the history and the first snapshot. A generator that yields every
   * few milliseconds of work, so a caller can let other work (HTTP requests,
   * probes) run while the market loads; `MarketData.build` runs it to the end.
   */
  *load(): Generator<void, Snapshot> {
    const core = this.core
    const all = new Set(this.options.tickers.map((_, i) => i))
    yield* generateSeries(core, all, this.options.now)
    yield* commitSeries(core, all, this.options.now)
    openSessions(core, this.options.now)
    core.memberships = computeMemberships(core)
    return refresh(core, this.options.now)
  }

  /** A market built synchronously (tests, benchmarks). */
  static build(options: MarketDataOptions): MarketData {
    const md = new MarketData(options)
    runToEnd(md.load())
    return md
  }

  // ---------------------------------------------------------------- what it is

  get tickers() {
    return this.core.tickers
  }
  get size() {
    return this.core.size
  }
  get sim() {
    return this.core.sim
  }
  get index() {
    return this.core.index
  }
  get isCrypto() {
    return this.core.isCrypto
  }
  get series() {
    return this.core.series
  }
  get firstDay() {
    return this.core.firstDay
  }
  get memberships() {
    return this.core.memberships
  }
  get windowStart() {
    return this.core.windowStart
  }
  get latest() {
    return this.core.latest
  }
  /** The number of as-of snapshots held in memory. */
  get asOfCacheSize(): number {
    return this.core.asOfCache.size
  }
  /** The earliest day any ticker has a bar in the window. */
  get earliestDay(): number {
    return earliestDay(this.core)
  }
  /** The first day every ticker's window holds: as-of snapshots before it are read off the deep grid. */
  get wholeMarketFrom(): number {
    return wholeMarketFrom(this.core)
  }

  // ---------------------------------------------------------------- moving it (Market.ts)

  /** Advances to `now` (`liveRow.ts`): sessions that ended roll into the history; answers the live snapshot. */
  refresh(now: number): Snapshot {
    return refresh(this.core, now)
  }

  validateImport(byTicker: ReadonlyMap<string, ReadonlyArray<ParsedBar>>, now: number): ImportSummary {
    return validateImport(this.core, byTicker, now)
  }

  importBars(byTicker: ReadonlyMap<string, ReadonlyArray<ParsedBar>>, now: number): ImportSummary {
    return importBars(this.core, byTicker, now)
  }

  /** Takes a live feed's trades into today's session bars (`quotes.ts`); the next `refresh` shows them. */
  applyQuotes(quotes: ReadonlyArray<Quote>, now: number): QuotesOutcome {
    rollSessions(this.core, now)
    return applyQuotes(this.core, quotes, now)
  }

  /** A live feed's fundamentals checked (throws `FeedInputRejected`), as entries in force from each ticker's next row. */
  fundamentalsEntries(updates: ReadonlyArray<FundamentalsUpdate>, now: number): Array<FundamentalsEntry> {
    return fundamentalsEntries(this.core, updates, now)
  }

  /** A live feed's news checked (throws `FeedInputRejected`), to store. */
  newsMentions(items: ReadonlyArray<NewsItem>, now: number): Array<Omit<FeedMention, "seq">> {
    return newsMentions(this.core, items, now)
  }

  /** Lays a feed's stored fundamentals and mentions over the market (`feedInputs.ts`); the next `refresh` shows them. */
  applyFeedInputs(inputs: FeedInputs): void {
    applyFundamentals(this.core, inputs.fundamentals)
    applyMentions(this.core, inputs.mentions)
  }

  /** What the feed told of `tickers`, as read back from the store, in place of what was held (a follower). */
  reloadFeedInputs(tickers: ReadonlyArray<string>, stored: FeedInputs): void {
    reloadFeed(this.core, tickers, stored)
  }

  /** The bars quotes made of sessions over at `now`, to store and import (`quotes.ts`). */
  completedQuoteBars(now: number): Map<string, ReadonlyArray<ParsedBar>> {
    return completedQuoteBars(this.core, now)
  }

  // ---------------------------------------------------------------- reading it

  snapshotAsOf(date: string): DailySnapshot {
    return snapshotAsOf(this.core, date)
  }
  rowAsOf(ticker: string, date: string) {
    return rowAsOf(this.core, ticker, date)
  }
  dailyBars(ticker: string, fromDay: number, toDay: number) {
    return dailyBars(this.core, ticker, fromDay, toDay)
  }
  dailySeries(ticker: string, column: string, fromDay: number, toDay: number) {
    return dailySeries(this.core, ticker, column, fromDay, toDay)
  }
  weeklySeries(ticker: string, column: string, fromDay: number, toDay: number) {
    return weeklySeries(this.core, ticker, column, fromDay, toDay)
  }
  intradaySeries(ticker: string, column: string, interval: "1m" | "1h", fromMs: number, toMs: number, limit: number) {
    return intradaySeries(this.core, ticker, column, interval, fromMs, toMs, limit)
  }
  minuteWalk(i: number, fromMs: number, toMs: number, sink: RowSink, visit: (t: number, j: number) => void): void {
    minuteWalk(this.core, i, fromMs, toMs, sink, visit)
  }
  stateAt(i: number, j: number, into?: DailyState, families?: number) {
    return stateAt(this.core, i, j, into, families)
  }
  startAt(i: number, j: number, out: Float64Array, at: number): boolean {
    this.core.checkpoints.startBefore(i, j, out, at)
    return true
  }
  windowDayOf(i: number): number {
    return this.core.windowDayOf(i)
  }
  deepOf(i: number) {
    return deepOf(this.core, i)
  }
  dailyCoverage(i: number) {
    return dailyCoverage(this.core, i)
  }
  minuteCoverage(i: number) {
    return minuteCoverage(this.core, i)
  }
  membershipOn(day: number) {
    const window = this.core.memberships
    const deep = this.core.deepGrid?.meta.memberships
    // before the window's first 1st: the grid's, built from the same bars by the same rule
    if (deep !== undefined && (window.length === 0 || day < window[0].effectiveDay)) return membershipOn(deep, day)
    return membershipOn(window, day)
  }

  /** The whole-market grid of states before the window, once built for this market's bars (`DeepHistory`). */
  get deepGrid(): DeepGridReader | undefined {
    return this.core.deepGrid
  }
  /** This market with the series of `slots` reaching back before the window to `fromDay` (to `through`), for a walk (`deepWalk.ts`). */
  reachingBack(
    slots: ReadonlyArray<number>,
    fromDay: number,
    through?: number,
    families?: number,
    room?: StretchRoom,
    reads?: StretchReads
  ): MarketReader {
    return reachingBack(this.core, this, slots, fromDay, through, families, room, reads)
  }
  /** What that grid is built from: this market's source, tickers and imported bars, to the day before the window. */
  deepGridSpec(): DeepGridSpec {
    return deepGridSpec(this.core)
  }
  adoptDeepGrid(grid: DeepGridReader): void {
    this.core.deepGrid = grid
    this.core.asOfCache.clear()
  }
}
