/**
 * Where market data comes from. The engine (`MarketData`) asks a source for
 * each calendar day's daily bars of every ticker, for the minute path of a
 * session given its daily bars, and for fundamentals and news; it builds the
 * history, the indicator state and the snapshots from those.
 *
 * Implementations:
 * - `MarketSimulator` (src/market/sim): the embedded default, a pure function
 *   of MARKET_SEED;
 * - `ReplaySource` (./replay.ts): replays a real daily bar file for some
 *   tickers from a start date, one bar per session, over any other source;
 * - a live feed pushes its completed bars and trades into the market's
 *   ingest (`Market.push`, `../ingest/events.ts`) over this source: they
 *   replace the source's bars where they exist; its fundamentals and news
 *   are laid over this source's (`FeedSource`, ./feedSource.ts). See
 *   docs/market-data.md.
 */

import type { NewsMention } from "../indicators/news.js"
import type { DayBars, FundamentalColumns, IntradaySession, SessionKind } from "../sim/index.js"
import type { SimLevels } from "../sim/levels.js"

export interface MarketSource {
  /** number of tickers (slots follow the tracked tickers' order) */
  readonly size: number
  /**
   * Epoch day on which `anchorPrice` holds (the simulator pins its prices to
   * the seed data's date); a source without an anchor gives NaN.
   */
  readonly anchorDay: number
  readonly params: { readonly anchorPrice: Float64Array }
  /** every ticker's close at the end of `date` */
  closesAt(date: string): Float64Array
  /**
   * The seekable log price levels its simulated bars follow (`sim/levels.ts`): the close of a
   * simulated bar is `anchorPrice · e^level`; real bars (`realBar`) replace them.
   */
  readonly levels: SimLevels
  /**
   * The daily bars of `date` for every ticker (or only `slots`), from each ticker's previous
   * close; `closes`, when given, are the day's closes of the simulated bars.
   */
  generateDay(date: string, prevClose: Float64Array, out?: DayBars, closes?: Float64Array, slots?: Int32Array): DayBars
  /**
   * Whether the bar `generateDay` gives for a slot on a date is real (recorded
   * or live) rather than simulated: real bars are taken at their level, never
   * rescaled to the simulator's anchor.
   */
  realBar?(slot: number, date: string): boolean
  /** the minute path of a session consistent with its daily bars */
  intradaySession(bars: DayBars, kind: SessionKind): IntradaySession
  fundamentalsAt(date: string, out?: FundamentalColumns): FundamentalColumns
  /** one ticker's (slot's) `fundamentalsAt` values, written at index `at` of `out` (per-ticker history walks) */
  tickerFundamentalsAt(slot: number, date: string, out: FundamentalColumns, at?: number): FundamentalColumns
  /** the `fundamentalsAt` values of some slots, each written at its own index of `out` (walks over a subset) */
  slotsFundamentalsAt(slots: ReadonlyArray<number>, date: string, out: FundamentalColumns): FundamentalColumns
  /** one ticker's (slot's) news mentions with fromMs < at <= toMs, in time order (the news columns' inputs) */
  mentions(slot: number, fromMs: number, toMs: number): Array<NewsMention>
  /** news columns of every ticker at an instant (quantized to 15 minutes); returns the instant used */
  newsColumnsAt(epochMs: number, volumeOut: Float64Array, sentimentOut: Float64Array): number
  /** one ticker's (slot's) `newsColumnsAt` values, written at index `at` of the outputs */
  tickerNewsColumnsAt(
    slot: number,
    epochMs: number,
    volumeOut: Float64Array,
    sentimentOut: Float64Array,
    at?: number
  ): number
}
