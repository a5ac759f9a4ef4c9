/**
 * What the API, the evaluator and the research tools read of the market: the
 * tickers, the latest snapshot, and the past (as-of snapshots and rows, series,
 * the minute tier, coverage, universe memberships). Read-only: only `Market.ts`
 * refreshes the market or imports bars into it (`MarketData`).
 */

import type { BarSeries } from "../history/barSeries.js"
import type { DeepGridSpec } from "../history/deepGrid.js"
import type { DeepTicker } from "../history/deepTicker.js"
import type { DailyState, RowSink } from "../indicators/index.js"
import type { Snapshot } from "../snapshot.js"
import type { MarketSource } from "../sources/MarketSource.js"
import type { TickerMeta } from "../tickers/index.js"
import type { Membership } from "../universes.js"
import type { SeriesPoint } from "./asOf.js"
import type { Bars } from "./bars.js"
import type { DailySnapshot, MarketDataOptions } from "./core.js"
import type { DeepGridReader } from "./deepAsOf.js"
import type { StretchReads, StretchRoom } from "./deepWalk.js"
import type { MinutePoint } from "./minutes.js"

export interface MarketReader {
  readonly options: MarketDataOptions
  readonly tickers: ReadonlyArray<TickerMeta>
  readonly size: number
  /** where bars, minute paths, fundamentals and news come from */
  readonly sim: MarketSource
  readonly index: ReadonlyMap<string, number>
  readonly isCrypto: Uint8Array
  /** every ticker's daily bars in the window (read, never written) */
  readonly series: ReadonlyArray<BarSeries>
  /** per ticker: the epoch day of its first daily bar */
  readonly firstDay: Int32Array
  readonly memberships: ReadonlyArray<Membership>
  /** first equity session of the readable window */
  readonly windowStart: string
  readonly latest: Snapshot
  readonly asOfCacheSize: number
  /** the earliest day any ticker has a bar in the window */
  readonly earliestDay: number
  /** the first day every ticker's window holds (as-of snapshots before it come from the deep grid) */
  readonly wholeMarketFrom: number

  /** every ticker's daily row as of `date` (carried forward at most 14 days); cached */
  snapshotAsOf(date: string): DailySnapshot
  /** one ticker's daily row on the latest state on or before `date`, with that state's date */
  rowAsOf(ticker: string, date: string): { date: string; values: Record<string, number | boolean | null> } | undefined
  dailySeries(ticker: string, column: string, fromDay: number, toDay: number): Array<SeriesPoint>
  /** one ticker's completed daily bars (no indicator replayed; `bars.ts`) */
  dailyBars(ticker: string, fromDay: number, toDay: number): Bars
  weeklySeries(ticker: string, column: string, fromDay: number, toDay: number): Array<SeriesPoint>
  intradaySeries(
    ticker: string,
    column: string,
    interval: "1m" | "1h",
    fromMs: number,
    toMs: number,
    limit: number
  ): Array<MinutePoint>
  minuteWalk(i: number, fromMs: number, toMs: number, sink: RowSink, visit: (t: number, j: number) => void): void
  /**
   * a fresh copy of ticker `i`'s state with its bars before index `j` committed (into `into`, of
   * the ticker's config, where given; only the parts `families` names: a walk's, state.ts `F`)
   */
  stateAt(i: number, j: number, into?: DailyState, families?: number): DailyState
  /**
   * the recipe `stateAt(i, j, …, families)` follows (`history/walkStart.ts`), written into `out` at `at`, for
   * another thread reading the same series; false when only this thread can build that state
   */
  startAt(i: number, j: number, out: Float64Array, at: number, families?: number): boolean
  /** the first day of ticker `i`'s history kept in memory */
  windowDayOf(i: number): number
  /** ticker `i`'s history before the window (built on demand, cached) */
  deepOf(i: number): DeepTicker | undefined
  dailyCoverage(i: number): { from: number; to: number } | undefined
  minuteCoverage(i: number): { from: number; to: number }
  membershipOn(day: number): Membership | undefined
  /** the whole-market grid of states before the window (as-of snapshots there), once built for these bars */
  readonly deepGrid: DeepGridReader | undefined
  /**
   * this market with the series of `slots` reaching back before the window to `fromDay` (and, with
   * `through`, ending there; with `families`, reaching as far back as their restores read), for a walk (needs the grid);
   * with `room`, its series kept where the walk's stretch before kept its own
   */
  reachingBack(
    slots: ReadonlyArray<number>,
    fromDay: number,
    through?: number,
    families?: number,
    room?: StretchRoom,
    reads?: StretchReads
  ): MarketReader
  /** what that grid is built from (`history/deepGrid.ts`) */
  deepGridSpec(): DeepGridSpec
}
