/**
 * The state every part of the market reads and writes: the tickers, each one's
 * daily bars (`series`), its committed indicator state and checkpoints, the
 * imported bars, today's two sessions, the latest snapshot, and the small
 * lookups the parts share (which day a ticker's history starts, the state
 * before a bar, the inputs of a day). The parts are functions of this core:
 * `history.ts` builds the bars and states, `sessions.ts` moves the sessions,
 * `liveRow.ts` makes the live snapshot, `asOf.ts` and `series.ts` read the past,
 * `minutes.ts` the minute tier, `imports.ts` lays real bars over the simulation.
 * `MarketData` is their facade; the API and the evaluator read it through
 * `MarketReader`.
 */
import {
  addTradingDays,
  closeInstant,
  cryptoTradingDate,
  equityTradingDate,
  isTradingDay,
  previousTradingDay
} from "../calendar.js"
import { BarSeries } from "../history/barSeries.js"
import { historyStartDay } from "../history/coverage.js"
import type { DeepTicker } from "../history/deepTicker.js"
import { DAY_MS, epochDay, isoDate } from "../indicators/days.js"
import type { DailyState, TickerInputs } from "../indicators/index.js"
import {
  allocateFundamentals,
  allocatePartialBars,
  type DayBars,
  type FundamentalColumns,
  type IntradaySession,
  MarketSimulator,
  type PartialBars
} from "../sim/index.js"
import type { Column, Snapshot } from "../snapshot.js"
import type { ParsedBar } from "../sources/csvBars.js"
import { type FeedInputs, FeedSource } from "../sources/feedSource.js"
import type { MarketSource } from "../sources/MarketSource.js"
import type { TickerMeta } from "../tickers/index.js"
import type { Membership } from "../universes.js"
import { HistoryCheckpoints } from "./checkpoints.js"
import { ColumnBlocks } from "./columnBlocks.js"
import type { DeepGridReader } from "./deepAsOf.js"
import { tickerInputs } from "./inputs.js"
import type { QuoteBar } from "./quotes.js"
import { SIM_ANCHOR_DATE, simSpec, VENDOR_FEED_START } from "./specs.js"

/** as-of reads carry a ticker's last state forward at most this many days */
export const CARRY_FORWARD_DAYS = 14

export const EQUITY_WARMUP_SESSIONS = 252
/** crypto's 52 weeks are 365 daily bars: a year of warm-up plus a week's margin */
export const CRYPTO_WARMUP_DAYS = 372

export const STRING_COLUMNS = ["ticker", "name", "asset_type", "exchange", "country", "sector", "industry"] as const

export interface MarketDataOptions {
  readonly seed: number
  readonly tickers: ReadonlyArray<TickerMeta>
  /** trading days of history readable as of any date */
  readonly historyDays: number
  /** imported bars by canonical ticker, dates ascending */
  readonly imported?: ReadonlyMap<string, ReadonlyArray<ParsedBar>> | undefined
  /** epoch ms of the first refresh */
  readonly now: number
  readonly onProgress?: ((phase: string, done: number, total: number) => void) | undefined
  /** calendar days of minute-tier (1m/1h) history kept readable; default 730 */
  readonly minuteHistoryDays?: number | undefined
  /** wraps the simulator in another source (e.g. a replay); default: the simulator itself */
  readonly source?: ((simulator: MarketSource) => MarketSource) | undefined
  /** what a live feed told of fundamentals and news, as stored (laid over the source: `FeedSource`) */
  readonly feed?: FeedInputs | undefined
}

/** One kind's current session (equities: the NYSE session; crypto: the UTC day). */
export interface Session {
  date: string
  day: number
  bars: DayBars
  intraday: IntradaySession
  /** epoch ms of the session's end */
  closesAt: number
}

/** A historical snapshot: the rows that have a state within the carry-forward window, with their dates. */
export interface DailySnapshot extends Snapshot {
  /** epoch day of the state used for each row */
  readonly rowDays: Int32Array
}

/**
 * The as-of snapshot of `date` (epoch day `day`) over the tickers `rows` (ascending slots): their
 * static columns beside the computed ones (`computed`, one row per entry of `rows`).
 */
export const dailySnapshotOf = (
  core: MarketCore,
  rows: ReadonlyArray<number>,
  computed: ReadonlyMap<string, Column>,
  rowDays: Int32Array,
  date: string,
  day: number
): DailySnapshot => {
  const columns = new Map<string, Column>()
  for (const name of STRING_COLUMNS) {
    const source = (core.stringColumns.get(name) as { values: ReadonlyArray<string | null> }).values
    columns.set(name, { kind: "string", values: rows.map((i) => source[i]) })
  }
  for (const [name, col] of computed) columns.set(name, col)
  const tickers = rows.map((i) => core.tickers[i].ticker)
  return {
    asOf: (day + 1) * DAY_MS - 1,
    date,
    size: rows.length,
    tickers,
    index: new Map(tickers.map((t, r) => [t, r])),
    columns,
    rowDays
  }
}

/** The simulated market of a seed: what a `MarketData` of those options simulates (also in a worker thread). */
export const simulatorFor = (seed: number, tickers: ReadonlyArray<TickerMeta>): MarketSimulator =>
  new MarketSimulator({ seed, tickers: tickers.map(simSpec), anchorDate: SIM_ANCHOR_DATE })

export class MarketCore {
  readonly tickers: ReadonlyArray<TickerMeta>
  readonly size: number
  /** where bars, minute paths, fundamentals and news come from (the simulator by default, a feed's laid over) */
  readonly sim: MarketSource
  /** the live feed's fundamentals and news over the source (`sim` is this) */
  readonly feed: FeedSource
  readonly index: ReadonlyMap<string, number>
  /** the tickers' symbols in row order (one array, shared by every live snapshot) */
  readonly symbols: ReadonlyArray<string>
  /** the live rows' computed columns, their blocks recycled once no snapshot reads them */
  readonly liveBlocks: ColumnBlocks
  readonly isCrypto: Uint8Array
  /** every ticker's daily bars in the window (its warm-up year, then `HISTORY_DAYS` sessions) */
  series: Array<BarSeries>
  /** every ticker's indicator state, its bars before the current session committed */
  readonly states: Array<DailyState>
  readonly checkpoints: HistoryCheckpoints
  imported: Map<string, ReadonlyArray<ParsedBar>>
  readonly stringColumns: ReadonlyMap<string, Column>
  equity!: Session
  crypto!: Session
  readonly partialEquity: PartialBars
  readonly partialCrypto: PartialBars
  /** the live row's news columns, rewritten by every refresh */
  readonly newsVolume: Float64Array
  readonly newsSentiment: Float64Array
  /** per ticker: what its simulated closes are multiplied by after real bars (`history.generateSeries`) */
  readonly levelOffset: Float64Array
  /** every ticker slot, in order */
  readonly allSlots: Int32Array
  /** per ticker: the epoch day of its first daily bar (`history/coverage.ts`) */
  readonly firstDay: Int32Array
  readonly fundamentalsCache = new Map<number, FundamentalColumns>()
  readonly asOfCache = new Map<number, DailySnapshot>()
  /** tickers' histories before the window, built on demand, least recently read first */
  readonly deepCache = new Map<number, DeepTicker>()
  memberships: Array<Membership> = []
  /** per ticker slot: its current session's bar made of the quotes a live feed pushed (`quotes.ts`) */
  readonly quoteBars = new Map<number, QuoteBar>()
  /** by ticker: the quote bars of sessions that closed, in the history, not yet laid over it as imported bars */
  readonly closedQuoteBars = new Map<string, Array<ParsedBar>>()
  /** the whole market's history before the window as a grid of states (`deepAsOf.ts`), once built for this market's bars */
  deepGrid: DeepGridReader | undefined = undefined
  /** first equity session of the readable window (`HISTORY_DAYS` sessions to the current one) */
  readonly windowStart: string
  readonly startEquityDay: number
  readonly startCryptoDay: number
  latest!: Snapshot
  /** reusable states for rebuilding past rows, one per indicator configuration (equity, crypto) */
  readonly scratch = new Map<string, DailyState>()

  constructor(readonly options: MarketDataOptions) {
    this.tickers = options.tickers
    this.size = options.tickers.length
    this.index = new Map(options.tickers.map((t, i) => [t.ticker, i]))
    this.symbols = options.tickers.map((t) => t.ticker)
    this.liveBlocks = new ColumnBlocks(this.size)
    this.isCrypto = Uint8Array.from(options.tickers, (t) => (t.asset_type === "CRYPTO" ? 1 : 0))
    const simulator = simulatorFor(options.seed, options.tickers)
    this.feed = new FeedSource(options.source?.(simulator) ?? simulator, (t) => this.index.get(t) ?? -1)
    this.sim = this.feed
    if (options.feed !== undefined) {
      this.feed.addFundamentals(options.feed.fundamentals)
      this.feed.addMentions(options.feed.mentions)
    }
    this.imported = new Map(options.imported ?? [])
    this.partialEquity = allocatePartialBars(this.size)
    this.partialCrypto = allocatePartialBars(this.size)
    this.newsVolume = new Float64Array(this.size)
    this.newsSentiment = new Float64Array(this.size)
    this.levelOffset = new Float64Array(this.size).fill(1)
    this.allSlots = Int32Array.from(options.tickers, (_, i) => i)
    this.firstDay = Int32Array.from(options.tickers, historyStartDay)
    const columns = new Map<string, Column>()
    for (const name of STRING_COLUMNS) {
      columns.set(name, { kind: "string", values: options.tickers.map((t) => (t as any)[name] as string) })
    }
    this.stringColumns = columns

    const sessionE = equityTradingDate(options.now)
    this.windowStart = addTradingDays(sessionE, -(options.historyDays - 1))
    this.startEquityDay = epochDay(addTradingDays(this.windowStart, -EQUITY_WARMUP_SESSIONS))
    this.startCryptoDay = epochDay(this.windowStart) - CRYPTO_WARMUP_DAYS

    this.series = options.tickers.map(() => new BarSeries(0))
    // made by `history.commitSeries` (making them here too would allocate ~186 MB twice)
    this.states = new Array(this.size)
    this.checkpoints = new HistoryCheckpoints(this.size)
  }

  /** The current session of ticker `i`'s kind. */
  sessionOf(i: number): Session {
    return this.isCrypto[i] === 1 ? this.crypto : this.equity
  }

  /** The last day a ticker's series may hold at `now`: the last completed session (equities) or UTC day (crypto). */
  lastCompleteDay(crypto: boolean, now: number): number {
    if (crypto) return epochDay(cryptoTradingDate(now)) - 1
    const session = equityTradingDate(now)
    return epochDay(now >= closeInstant(session) ? session : previousTradingDay(session))
  }

  /** The epoch day of each ticker's current session at `now` (bars before it are committed). */
  sessionDay(i: number, now: number): number {
    return epochDay(this.isCrypto[i] === 1 ? cryptoTradingDate(now) : equityTradingDate(now))
  }

  /** The first day of ticker `i`'s history kept in memory (earlier days: `history.deepOf`). */
  windowDayOf(i: number): number {
    return this.isCrypto[i] === 1 ? this.startCryptoDay : this.startEquityDay
  }

  /** Calendar days of minute-tier history kept readable. */
  get minuteHistoryDays(): number {
    return this.options.minuteHistoryDays ?? 730
  }

  fundamentalsOn(day: number): FundamentalColumns {
    let f = this.fundamentalsCache.get(day)
    if (f === undefined) {
      f = this.sim.fundamentalsAt(isoDate(day), allocateFundamentals(this.size))
      if (this.fundamentalsCache.size > 16) this.fundamentalsCache.clear()
      this.fundamentalsCache.set(day, f)
    }
    return f
  }

  /** Epoch ms at which a day's daily state is taken: the 16:00 ET close (equities), 24:00 UTC (crypto). */
  stateInstant(i: number, day: number): number {
    if (this.isCrypto[i] === 1) return (day + 1) * DAY_MS
    const date = isoDate(day)
    return isTradingDay(date) ? closeInstant(date) : (day + 1) * DAY_MS
  }

  /** Ticker `i`'s inputs (fundamentals, news) on `day`, the news columns of each instant computed once in `news`. */
  inputsAt(i: number, day: number, news: Map<number, [Float64Array, Float64Array]>): TickerInputs {
    const instant = this.stateInstant(i, day)
    const key = Math.floor(instant / 900_000)
    let cols = news.get(key)
    if (cols === undefined) {
      cols = [new Float64Array(this.size), new Float64Array(this.size)]
      this.sim.newsColumnsAt(instant, cols[0], cols[1])
      news.set(key, cols)
    }
    const vendor = this.isCrypto[i] === 1 || isoDate(day) >= VENDOR_FEED_START
    return tickerInputs(this.fundamentalsOn(day), i, cols[0][i], cols[1][i], vendor)
  }

  private readonly oneFundamentals = allocateFundamentals(1)
  private readonly oneNews: [Float64Array, Float64Array] = [new Float64Array(1), new Float64Array(1)]

  /**
   * `inputsAt` for one ticker alone: only its own fundamentals and news are
   * computed (a per-ticker history walk would otherwise compute every
   * ticker's, each day).
   */
  tickerInputsAt(i: number, day: number): TickerInputs {
    const date = isoDate(day)
    this.sim.tickerNewsColumnsAt(i, this.stateInstant(i, day), this.oneNews[0], this.oneNews[1], 0)
    this.sim.tickerFundamentalsAt(i, date, this.oneFundamentals, 0)
    const vendor = this.isCrypto[i] === 1 || date >= VENDOR_FEED_START
    return tickerInputs(this.oneFundamentals, 0, this.oneNews[0][0], this.oneNews[1][0], vendor)
  }

  /** Whether ticker `i`'s bar on `day` is made of a live feed's quotes (not yet imported). */
  isQuotedDay(i: number, day: number): boolean {
    if (this.quoteBars.get(i)?.day === day) return true
    const date = isoDate(day)
    return this.closedQuoteBars.get(this.tickers[i].ticker)?.some((b) => b.date === date) ?? false
  }

  /** Whether ticker `i`'s bar on `day` came from an imported file. */
  isImportedDay(i: number, day: number): boolean {
    const bars = this.imported.get(this.tickers[i].ticker)
    if (bars === undefined || bars.length === 0) return false
    const date = isoDate(day)
    return date >= bars[0].date && date <= bars[bars.length - 1].date
  }
}
