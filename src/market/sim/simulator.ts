/**
 * The simulated market: the embedded default data source.
 *
 * Everything is a pure function of (seed, ticker specs, anchor date, calendar)
 * and the arguments of each call; caches only remember results. Prices are
 * pinned at the anchor date: every ticker's close on `anchorDate` (equities: the
 * last session on or before it) is its spec price, and because daily returns do
 * not depend on price levels, the close at any other date is
 * `price × exp(±Σ daily log returns in between)` (`closesAt`). So a backfill
 * started on any date, replayed any number of times, gives the same market.
 *
 * Dates are `YYYY-MM-DD`: New York dates for equities, UTC dates for crypto.
 * Ticker slots follow the order of `tickers`; ticker randomness is keyed by the
 * symbol, so the list order and membership never change another ticker's market.
 */
import type { NewsMention } from "../indicators/news.js"
import {
  addLogReturns,
  allocateDayBars,
  allocateReturnScratch,
  type DayBars,
  DayModel,
  fillDayBars,
  type ReturnScratch
} from "./daily.js"
import { EarningsSchedule } from "./earnings.js"
import { allocateFundamentals, type FundamentalColumns, Fundamentals } from "./fundamentals.js"
import { IntradaySession, type SessionKind } from "./intraday.js"
import { SimLevels } from "./levels.js"
import {
  collectMentions,
  type DayNews,
  fillNewsColumns,
  fillNewsRow,
  generateDayNews,
  newsInstant,
  tickerDayNews
} from "./news.js"
import { type SimTickerSpec, TickerParams } from "./params.js"
import { hash2 } from "./random.js"
import {
  CRYPTO_SESSION_MINUTES,
  DAY_MS,
  epochDay,
  isoDate,
  NYSE_CALENDAR,
  type SimCalendar,
  TradingDays
} from "./tradingDays.js"

export interface SimulatorOptions {
  /** MARKET_SEED: an integer; same seed, same market */
  readonly seed: number
  readonly tickers: ReadonlyArray<SimTickerSpec>
  /** the date at whose close every ticker trades at its spec `price` (e.g. the seed data's date) */
  readonly anchorDate: string
  /** defaults to the NYSE calendar of `src/market/calendar.ts` */
  readonly calendar?: SimCalendar | undefined
}

const NEWS_CACHE_DAYS = 4

export class MarketSimulator {
  readonly size: number
  readonly params: TickerParams
  readonly anchorDay: number
  readonly days: TradingDays
  private readonly seedKey: number
  private readonly earnings: EarningsSchedule
  private readonly fundamentals: Fundamentals
  private readonly index: ReadonlyMap<string, number>
  private readonly news = new Map<number, DayNews>()
  private readonly scratch: ReturnScratch
  /** the seekable price levels (`levels.ts`): what a history's closes are */
  readonly levels: SimLevels

  constructor(readonly options: SimulatorOptions) {
    if (!Number.isSafeInteger(options.seed)) throw new RangeError(`seed must be an integer, got ${options.seed}`)
    this.seedKey = hash2(options.seed | 0, Math.floor(options.seed / 2 ** 32) ^ 0x5eed)
    this.params = new TickerParams(this.seedKey, options.tickers)
    this.size = this.params.n
    this.scratch = allocateReturnScratch(this.size)
    this.anchorDay = epochDay(options.anchorDate)
    this.days = new TradingDays(options.calendar ?? NYSE_CALENDAR)
    this.earnings = new EarningsSchedule(this.params, this.days, this.seedKey)
    this.fundamentals = new Fundamentals(this.params, this.earnings, this.days, this.seedKey, this.anchorDay)
    const index = new Map<string, number>()
    this.params.symbols.forEach((t, i) => {
      if (index.has(t)) throw new RangeError(`duplicate ticker ${t}`)
      index.set(t, i)
    })
    this.index = index
    this.levels = new SimLevels(this.size, this.anchorDay, (day) => this.model(day), allocateReturnScratch(this.size))
  }

  /** Slot of a ticker symbol, or -1. */
  indexOf(ticker: string): number {
    return this.index.get(ticker) ?? -1
  }

  /** A slot given as a slot or a symbol; RangeError when unknown. */
  private slot(ticker: number | string): number {
    const i = typeof ticker === "number" ? ticker : this.indexOf(ticker)
    if (!Number.isInteger(i) || i < 0 || i >= this.size) throw new RangeError(`unknown ticker ${ticker}`)
    return i
  }

  /** The factor values and draw keys of one epoch day (cheap: no per-ticker work). */
  model(day: number): DayModel {
    return new DayModel(this.params, this.earnings, this.days, this.seedKey, day)
  }

  /**
   * The bars of `date` from each ticker's previous close. Tickers that do not
   * trade that date (equities on weekends and holidays) get `traded = 0`, NaN
   * prices and volume 0. Writes into `out` when given (arrays of `size`).
   */
  generateDay(
    date: string,
    prevClose: Float64Array,
    out?: DayBars,
    closes?: Float64Array,
    slots?: Int32Array
  ): DayBars {
    const bars = out ?? allocateDayBars(this.size)
    const day = epochDay(date)
    bars.date = date
    bars.day = day
    return fillDayBars(this.levels.modelOf(day), prevClose, bars, this.scratch, closes, slots)
  }

  /**
   * Every ticker's close at the end of `date` (equities: of the last session on
   * or before it). Costs one return evaluation per ticker per calendar day
   * between `date` and the anchor date.
   */
  closesAt(date: string): Float64Array {
    const target = epochDay(date)
    const acc = new Float64Array(this.size)
    const lo = Math.min(target, this.anchorDay)
    const hi = Math.max(target, this.anchorDay)
    for (let d = lo + 1; d <= hi; d++) addLogReturns(this.model(d), acc, this.scratch)
    const sign = target >= this.anchorDay ? 1 : -1
    const price = this.params.anchorPrice
    for (let i = 0; i < this.size; i++) acc[i] = price[i] * Math.exp(sign * acc[i])
    return acc
  }

  /**
   * Generates every calendar date from `from` to `to` (inclusive) in order and
   * hands each day's bars to `onDay`. The bars object and its arrays are reused
   * from one call to the next: copy what you keep. Starts from
   * `closesAt(day before from)` unless `prevClose` is given; returns the closes
   * after `to`.
   */
  simulate(from: string, to: string, onDay: (bars: DayBars) => void, prevClose?: Float64Array): Float64Array {
    const start = epochDay(from)
    const end = epochDay(to)
    const closes = prevClose ? Float64Array.from(prevClose) : this.closesAt(isoDate(start - 1))
    const bars = allocateDayBars(this.size)
    for (let d = start; d <= end; d++) {
      bars.date = isoDate(d)
      bars.day = d
      fillDayBars(this.model(d), closes, bars, this.scratch)
      onDay(bars)
      const { traded, close } = bars
      for (let i = 0; i < this.size; i++) if (traded[i] === 1) closes[i] = close[i]
    }
    return closes
  }

  /**
   * The minute paths of one day's bars: `equity` (the NYSE session of
   * `bars.date`, from its 09:30 ET open) or `crypto` (the UTC day).
   */
  intradaySession(bars: DayBars, kind: SessionKind): IntradaySession {
    if (kind === "crypto") {
      return new IntradaySession(this.params, this.seedKey, bars, kind, CRYPTO_SESSION_MINUTES, bars.day * DAY_MS)
    }
    const minutes = this.days.sessionMinutesOf(bars.day)
    if (minutes === 0) throw new RangeError(`${bars.date} is not a trading day`)
    const open = this.days.calendar.openInstant(bars.date)
    return new IntradaySession(this.params, this.seedKey, bars, kind, minutes, open)
  }

  /** Fundamentals of every ticker on `date` (see fundamentals.ts); writes into `out` when given. */
  fundamentalsAt(date: string, out?: FundamentalColumns): FundamentalColumns {
    return this.fundamentals.fill(epochDay(date), out ?? allocateFundamentals(this.size))
  }

  /**
   * One ticker's fundamentals on `date` (the values `fundamentalsAt` gives
   * it), written at slot `at` of `out`: no work for the other tickers.
   */
  tickerFundamentalsAt(ticker: number | string, date: string, out: FundamentalColumns, at = 0): FundamentalColumns {
    return this.fundamentals.fillTicker(epochDay(date), this.slot(ticker), out, at)
  }

  /** The `fundamentalsAt` values of tickers `slots` alone, each at its own slot of `out`. */
  slotsFundamentalsAt(slots: ReadonlyArray<number>, date: string, out: FundamentalColumns): FundamentalColumns {
    return this.fundamentals.fillSlots(epochDay(date), slots, out)
  }

  /** Whether the ticker (slot or symbol) reports earnings on `date`. */
  isEarningsDay(ticker: number | string, date: string): boolean {
    return this.earnings.isEarningsDay(this.slot(ticker), epochDay(date))
  }

  /** The first earnings date on or after `date`, or null (ETFs, crypto). */
  nextEarningsDate(ticker: number | string, date: string): string | null {
    const d = this.earnings.nextOnOrAfter(this.slot(ticker), epochDay(date))
    return d === null ? null : isoDate(d)
  }

  /** The last earnings date on or before `date`, or null (ETFs, crypto). */
  lastEarningsDate(ticker: number | string, date: string): string | null {
    const d = this.earnings.lastOnOrBefore(this.slot(ticker), epochDay(date))
    return d === null ? null : isoDate(d)
  }

  /** All mentions of one UTC epoch day (cached, a few days at a time). */
  dayNews(day: number): DayNews {
    let d = this.news.get(day)
    if (d === undefined) {
      d = generateDayNews(this.model(day), this.seedKey, this.scratch)
      if (this.news.size >= NEWS_CACHE_DAYS) this.news.delete(this.news.keys().next().value as number)
      this.news.set(day, d)
    }
    return d
  }

  /**
   * `news_volume` and `news_volume_weighted_sentiment` of every ticker at
   * `epochMs` quantized down to the 15-minute boundary, which is returned.
   */
  newsColumnsAt(epochMs: number, volumeOut: Float64Array, sentimentOut: Float64Array): number {
    const tq = newsInstant(epochMs)
    const day = Math.floor(tq / DAY_MS)
    fillNewsColumns(tq, this.dayNews(day - 1), this.dayNews(day), volumeOut, sentimentOut)
    return tq
  }

  /**
   * One ticker's news columns at `epochMs` (the values `newsColumnsAt` gives
   * it), written at slot `at` of the outputs: only that ticker's mentions are
   * generated (unless its days are cached).
   */
  tickerNewsColumnsAt(
    ticker: number | string,
    epochMs: number,
    volumeOut: Float64Array,
    sentimentOut: Float64Array,
    at = 0
  ): number {
    const i = this.slot(ticker)
    const tq = newsInstant(epochMs)
    const day = Math.floor(tq / DAY_MS)
    const of = (d: number) => this.news.get(d) ?? tickerDayNews(this.model(d), this.seedKey, this.scratch, i)
    fillNewsRow(tq, of(day - 1), of(day), i, volumeOut, sentimentOut, at)
    return tq
  }

  /** The ticker's (slot or symbol) mentions with fromMs < at <= toMs, in time order. */
  mentions(ticker: number | string, fromMs: number, toMs: number): Array<NewsMention> {
    const i = this.slot(ticker)
    const out: Array<NewsMention> = []
    if (!(toMs > fromMs)) return out
    const last = Math.floor(toMs / DAY_MS)
    for (let d = Math.floor(fromMs / DAY_MS); d <= last; d++) {
      const news = this.news.get(d) ?? tickerDayNews(this.model(d), this.seedKey, this.scratch, i)
      collectMentions(news, i, fromMs, toMs, out)
    }
    return out
  }
}
