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
 */

import {
  addTradingDays,
  closeInstant,
  cryptoTradingDate,
  equityTradingDate,
  isTradingDay,
  previousTradingDay
} from "../calendar.js"
import { BarSeries, barAt, barInto, newBar, SeriesArena } from "../history/barSeries.js"
import { historyStartDay } from "../history/coverage.js"
import { buildDeepTicker, type DeepTicker, deepStateBefore } from "../history/deepTicker.js"
import { generateBars } from "../history/generateBars.js"
import { DAY_MS, epochDay, isoDate } from "../indicators/days.js"
import {
  allocateColumns,
  bindColumns,
  commit,
  commitDeferred,
  configForAssetType,
  type DailyBar,
  type DailyState,
  finishCommits,
  makeState,
  NO_INPUTS,
  preview,
  previewAll,
  type RowSink,
  type TickerInputs
} from "../indicators/index.js"
import {
  allocateDayBars as allocateDayBarsFor,
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
import type { MarketSource } from "../sources/MarketSource.js"
import type { TickerMeta } from "../tickers/index.js"
import { computeMemberships, type Membership, membershipOn } from "../universes.js"
import { HistoryCheckpoints } from "./checkpoints.js"
import { INPUT_COLUMNS, tickerInputs } from "./inputs.js"
import { SIM_ANCHOR_DATE, simSpec, tickRound, VENDOR_FEED_START } from "./specs.js"

export const EQUITY_WARMUP_SESSIONS = 252
/** crypto's 52 weeks are 365 daily bars: a year of warm-up plus a week's margin */
export const CRYPTO_WARMUP_DAYS = 372
/** as-of reads carry a ticker's last state forward at most this many days */
export const CARRY_FORWARD_DAYS = 14
/** as-of universe snapshots kept in memory (each about 15 MB) */
export const AS_OF_CACHE_SIZE = 8
/** Tickers whose history before the window is kept after a read (`deepOf`; ~150 KB each for twenty years) */
export const DEEP_CACHE_SIZE = 64

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
}

export interface ImportSummary {
  readonly tickers: ReadonlyArray<string>
  readonly rows: number
  readonly from: string
  readonly to: string
}

/** A historical snapshot: the rows that have a state within the carry-forward window, with their dates. */
export interface DailySnapshot extends Snapshot {
  /** epoch day of the state used for each row */
  readonly rowDays: Int32Array
}

export class ImportRangeError extends Error {}

interface Session {
  date: string
  day: number
  bars: DayBars
  intraday: IntradaySession
  /** epoch ms of the session's end */
  closesAt: number
}

export class MarketData {
  readonly tickers: ReadonlyArray<TickerMeta>
  readonly size: number
  /** where bars, minute paths, fundamentals and news come from (the simulator by default) */
  readonly sim: MarketSource
  readonly index: ReadonlyMap<string, number>
  readonly isCrypto: Uint8Array
  series: Array<BarSeries>
  private readonly states: Array<DailyState>
  private readonly checkpoints: HistoryCheckpoints
  private imported: Map<string, ReadonlyArray<ParsedBar>>
  private readonly stringColumns: ReadonlyMap<string, Column>
  private equity!: Session
  private crypto!: Session
  private readonly partialEquity: PartialBars
  private readonly partialCrypto: PartialBars
  private readonly newsVolume: Float64Array
  private readonly newsSentiment: Float64Array
  /** per ticker: what its simulated closes are multiplied by after real bars (`generateSeries`) */
  private readonly levelOffset: Float64Array
  /** every ticker slot, in order */
  private readonly allSlots: Int32Array
  /** per ticker: the epoch day of its first daily bar (`history/coverage.ts`) */
  readonly firstDay: Int32Array
  private fundamentalsCache = new Map<number, FundamentalColumns>()
  private asOfCache = new Map<number, DailySnapshot>()
  memberships: Array<Membership> = []
  /** first equity session of the readable window (`HISTORY_DAYS` sessions to the current one) */
  readonly windowStart: string
  private readonly startEquityDay: number
  private readonly startCryptoDay: number
  latest!: Snapshot

  constructor(readonly options: MarketDataOptions) {
    this.tickers = options.tickers
    this.size = options.tickers.length
    this.index = new Map(options.tickers.map((t, i) => [t.ticker, i]))
    this.isCrypto = Uint8Array.from(options.tickers, (t) => (t.asset_type === "CRYPTO" ? 1 : 0))
    const simulator = simulatorFor(options.seed, options.tickers)
    this.sim = options.source?.(simulator) ?? simulator
    this.imported = new Map(options.imported ?? [])
    this.partialEquity = allocatePartialBars(this.size)
    this.partialCrypto = allocatePartialBars(this.size)
    this.newsVolume = new Float64Array(this.size)
    this.newsSentiment = new Float64Array(this.size)
    this.levelOffset = new Float64Array(this.size).fill(1)
    this.allSlots = Int32Array.from(options.tickers, (_, i) => i)
    this.firstDay = Int32Array.from(options.tickers, historyStartDay)
    this.stringColumns = this.buildStringColumns(options.tickers)

    const sessionE = equityTradingDate(options.now)
    this.windowStart = addTradingDays(sessionE, -(options.historyDays - 1))
    this.startEquityDay = epochDay(addTradingDays(this.windowStart, -EQUITY_WARMUP_SESSIONS))
    this.startCryptoDay = epochDay(this.windowStart) - CRYPTO_WARMUP_DAYS

    this.series = options.tickers.map(() => new BarSeries(0))
    // made by `commitSeries` (making them here too would allocate ~186 MB twice)
    this.states = new Array(this.size)
    this.checkpoints = new HistoryCheckpoints(this.size)
  }

  /**
   * Builds the history and the first snapshot. A generator that yields every
   * few milliseconds of work, so a caller can let other work (HTTP requests,
   * probes) run while the market loads; `MarketData.build` runs it to the end.
   */
  *load(): Generator<void, Snapshot> {
    const all = new Set(this.options.tickers.map((_, i) => i))
    yield* this.generateSeries(all, this.options.now)
    yield* this.commitSeries(all, this.options.now)
    this.openSessions(this.options.now)
    this.memberships = this.computeMemberships()
    return this.refresh(this.options.now)
  }

  /** A market built synchronously (tests, benchmarks). */
  static build(options: MarketDataOptions): MarketData {
    const md = new MarketData(options)
    runToEnd(md.load())
    return md
  }

  // ---------------------------------------------------------------- building

  private buildStringColumns(tickers: ReadonlyArray<TickerMeta>): ReadonlyMap<string, Column> {
    const columns = new Map<string, Column>()
    for (const name of STRING_COLUMNS) {
      columns.set(name, { kind: "string", values: tickers.map((t) => (t as any)[name] as string) })
    }
    return columns
  }

  /** The last day a ticker's series may hold at `now`: the last completed session (equities) or UTC day (crypto). */
  private lastCompleteDay(crypto: boolean, now: number): number {
    if (crypto) return epochDay(cryptoTradingDate(now)) - 1
    const session = equityTradingDate(now)
    return epochDay(now >= closeInstant(session) ? session : previousTradingDay(session))
  }

  /**
   * (Re)generates the daily bars of `which` tickers from the start of history
   * to the last completed day, laying imported bars over the simulated ones.
   *
   * A simulated close is the ticker's level (`sim/levels.ts`: seekable, the same bits however
   * the day is reached) times its offset: 1 until a real bar (imported or replayed) was laid,
   * then that bar's close over the simulated close of its day, so the simulation resumes from
   * the real close.
   */
  private *generateSeries(which: ReadonlySet<number>, now: number): Generator<void, void> {
    const lastE = this.lastCompleteDay(false, now)
    const lastC = this.lastCompleteDay(true, now)
    const first = Math.min(this.startEquityDay, this.startCryptoDay)
    const last = Math.max(lastE, lastC)
    const slots = Int32Array.from(which).sort()
    for (const i of slots) this.levelOffset[i] = 1
    const fresh: Array<BarSeries | undefined> = new Array(this.size)
    const capacityOf = (i: number) => Math.ceil((last - first) * (this.isCrypto[i] ? 1 : 0.72)) + 8
    // the opens, highs and lows of every series while they are built: one allocation, which
    // `compact` below leaves whole to be freed (see BarSeries)
    let scratchSize = 0
    for (const i of slots) scratchSize += 3 * capacityOf(i)
    const scratch = new Float64Array(scratchSize)
    // the rest of their arrays: views of a few shared buffers (see BarSeries)
    const arena = new SeriesArena(scratchSize / 3)
    let scratchAt = 0
    for (const i of slots) {
      const capacity = capacityOf(i) + (this.imported.get(this.tickers[i].ticker)?.length ?? 0)
      fresh[i] = new BarSeries(capacity, scratch.subarray(scratchAt, scratchAt + 3 * capacity), arena)
      scratchAt += 3 * capacity
    }
    yield* generateBars({
      source: this.sim,
      slots,
      fromDay: (i) => (this.isCrypto[i] === 1 ? this.startCryptoDay : this.startEquityDay),
      toDay: (i) => (this.isCrypto[i] === 1 ? lastC : lastE),
      origin: (i) => this.firstDay[i],
      crypto: (i) => this.isCrypto[i] === 1,
      imported: (i) => this.imported.get(this.tickers[i].ticker),
      offset: this.levelOffset,
      onBar: (i, day, open, high, low, close, volume) =>
        (fresh[i] as BarSeries).push(day, open, high, low, close, volume),
      onProgress: (done, total) => this.options.onProgress?.("history", done, total)
    })
    for (const i of slots) {
      const s = fresh[i] as BarSeries
      s.compact()
      this.series[i] = s
    }
  }

  /** The epoch day of each ticker's current session at `now` (bars before it are committed). */
  private sessionDay(i: number, now: number): number {
    return epochDay(this.isCrypto[i] === 1 ? cryptoTradingDate(now) : equityTradingDate(now))
  }

  /** Rebuilds the committed state and checkpoints of `which` tickers from their series. */
  private *commitSeries(which: ReadonlySet<number>, now: number): Generator<void, void> {
    let done = 0
    for (const i of which) {
      const st = makeState(configForAssetType(this.tickers[i].asset_type))
      const s = this.series[i]
      const until = this.sessionDay(i, now)
      // dense checkpoints inside the history window; the warm-up year before it gets sparse ones
      this.checkpoints.reset(i, s.indexAtOrAfter(epochDay(this.windowStart)))
      this.checkpoints.reserve(i, s.length)
      // the checkpoints read only the recursive scalars, which a deferred commit keeps current
      const bar = newBar()
      for (let j = 0; j < s.length && s.days[j] < until; j++) {
        this.checkpoints.beforeCommit(i, j, st)
        commitDeferred(st, barInto(s, j, bar))
      }
      finishCommits(st)
      this.states[i] = st
      if (++done % 500 === 0) {
        this.options.onProgress?.("indicators", done, which.size)
        yield
      }
    }
    this.options.onProgress?.("indicators", which.size, which.size)
  }

  private makeSession(date: string, kind: "equity" | "crypto"): Session {
    const day = epochDay(date)
    // the bars the history will hold for the day (`generateSeries`): from the levels and offsets
    const anchorPrice = this.sim.params.anchorPrice
    const prevClose = new Float64Array(this.size)
    const closes = new Float64Array(this.size)
    this.sim.levels.walk(this.allSlots, day, day, (_, sPrev, sCur) => {
      for (let i = 0; i < this.size; i++) {
        prevClose[i] = anchorPrice[i] * Math.exp(sPrev[i]) * this.levelOffset[i]
        closes[i] = anchorPrice[i] * Math.exp(sCur[i]) * this.levelOffset[i]
      }
    })
    const bars = this.sim.generateDay(date, prevClose, undefined, closes)
    // the session's bar in ticks, as the history will hold it once the session closed
    for (let i = 0; i < this.size; i++) {
      if (bars.traded[i] !== 1) continue
      const c = this.isCrypto[i] === 1
      bars.open[i] = tickRound(bars.open[i], c)
      bars.high[i] = tickRound(bars.high[i], c)
      bars.low[i] = tickRound(bars.low[i], c)
      bars.close[i] = tickRound(bars.close[i], c)
      bars.volume[i] = Math.round(bars.volume[i])
    }
    const intraday = this.sim.intradaySession(bars, kind)
    return { date, day, bars, intraday, closesAt: kind === "equity" ? closeInstant(date) : (day + 1) * DAY_MS }
  }

  private openSessions(now: number): void {
    this.equity = this.makeSession(equityTradingDate(now), "equity")
    this.crypto = this.makeSession(cryptoTradingDate(now), "crypto")
  }

  private computeMemberships(): Array<Membership> {
    const first = Math.min(this.startEquityDay, this.startCryptoDay) + 30
    return computeMemberships(
      first,
      this.crypto.day,
      this.tickers.map((t) => t.ticker),
      this.series
    )
  }

  // ---------------------------------------------------------------- live

  /**
   * Advances to `now`: rolls sessions that ended (their final bars join the
   * history and the committed state), then builds the live snapshot from
   * today's partial bars.
   */
  refresh(now: number): Snapshot {
    const rolledE = this.roll("equity", equityTradingDate(now), now)
    const rolledC = this.roll("crypto", cryptoTradingDate(now), now)
    if (rolledE || rolledC) {
      this.fundamentalsCache.clear()
      const month = new Date(now).getUTCMonth()
      const lastMembership = this.memberships[this.memberships.length - 1]
      if (lastMembership === undefined || new Date(lastMembership.effectiveDay * DAY_MS).getUTCMonth() !== month) {
        this.memberships = this.computeMemberships()
      }
    }
    this.appendIfClosed(this.equity, now)
    this.appendIfClosed(this.crypto, now)

    const n = this.size
    const eqMinute = this.minuteOf(this.equity, now)
    const crMinute = this.minuteOf(this.crypto, now)
    this.equity.intraday.partialBars(eqMinute, this.partialEquity)
    this.crypto.intraday.partialBars(crMinute, this.partialCrypto)
    this.sim.newsColumnsAt(now, this.newsVolume, this.newsSentiment)
    const fEquity = this.fundamentalsOn(this.equity.day)
    const fCrypto = this.fundamentalsOn(this.crypto.day)
    const vendorE = this.equity.date >= VENDOR_FEED_START
    const bars: Array<DailyBar | undefined> = new Array(n)
    const inputs: Array<TickerInputs> = new Array(n)
    for (let i = 0; i < n; i++) {
      const crypto = this.isCrypto[i] === 1
      const session = crypto ? this.crypto : this.equity
      const p = crypto ? this.partialCrypto : this.partialEquity
      if (session.intraday.slotOf[i] < 0) {
        bars[i] = undefined
      } else {
        bars[i] = {
          day: session.day,
          open: tickRound(p.open[i], crypto),
          high: tickRound(p.high[i], crypto),
          low: tickRound(p.low[i], crypto),
          close: tickRound(p.close[i], crypto),
          volume: Math.round(p.volume[i]),
          vwap: p.vwap[i]
        }
      }
      inputs[i] = tickerInputs(
        crypto ? fCrypto : fEquity,
        i,
        this.newsVolume[i],
        this.newsSentiment[i],
        crypto || vendorE
      )
    }
    const computed = allocateColumns(n)
    previewAll(this.states, bars, inputs, bindColumns(computed))
    const columns = new Map<string, Column>(this.stringColumns)
    for (const [name, col] of computed) columns.set(name, col)
    this.latest = {
      asOf: now,
      size: n,
      tickers: this.tickers.map((t) => t.ticker),
      index: this.index,
      columns
    }
    return this.latest
  }

  private minuteOf(session: Session, now: number): number {
    if (now >= session.closesAt) return session.intraday.minutes
    return session.intraday.minuteAt(now)
  }

  /** When `session` has closed by `now`, its final bar joins the history (not yet the committed state). */
  private appendIfClosed(session: Session, now: number): void {
    if (now < session.closesAt) return
    for (const i of this.sessionMembers(session)) {
      const s = this.series[i]
      if (s.length > 0 && s.days[s.length - 1] >= session.day) continue
      const b = session.bars
      const c = this.isCrypto[i] === 1
      s.push(
        session.day,
        tickRound(b.open[i], c),
        tickRound(b.high[i], c),
        tickRound(b.low[i], c),
        tickRound(b.close[i], c),
        Math.round(b.volume[i])
      )
    }
  }

  private *sessionMembers(session: Session): Iterable<number> {
    const t = session.intraday.tickers
    for (let k = 0; k < t.length; k++) yield t[k]
  }

  /** Moves a kind's session forward to `date`: the old session's final bar is appended and committed. */
  private roll(kind: "equity" | "crypto", date: string, now: number): boolean {
    let session = kind === "equity" ? this.equity : this.crypto
    if (session.date === date) return false
    while (session.date < date) {
      this.appendIfClosed(session, Math.max(now, session.closesAt))
      for (const i of this.sessionMembers(session)) {
        const s = this.series[i]
        const j = s.length - 1
        if (j >= 0 && s.days[j] === session.day && this.checkpoints.committed(i) === j) {
          this.checkpoints.beforeCommit(i, j, this.states[i])
          commit(this.states[i], barAt(s, j))
        }
      }
      const next = kind === "equity" ? nextSessionAfter(session.date) : isoDate(session.day + 1)
      session = this.makeSession(next > date ? date : next, kind)
      if (kind === "equity") this.equity = session
      else this.crypto = session
    }
    this.asOfCache.clear()
    return true
  }

  private fundamentalsOn(day: number): FundamentalColumns {
    let f = this.fundamentalsCache.get(day)
    if (f === undefined) {
      f = this.sim.fundamentalsAt(isoDate(day), allocateFundamentals(this.size))
      if (this.fundamentalsCache.size > 16) this.fundamentalsCache.clear()
      this.fundamentalsCache.set(day, f)
    }
    return f
  }

  // ---------------------------------------------------------------- history

  /** Reusable states for rebuilding past rows, one per indicator configuration (equity, crypto). */
  private readonly scratch = new Map<string, DailyState>()

  /**
   * The state of ticker `i` with its bars before index `j` committed, for a
   * preview: the live state itself, or a rebuilt one in a scratch state that
   * the next call reuses (so it must be used before calling again).
   */
  private stateBefore(i: number, j: number): DailyState {
    if (this.checkpoints.committed(i) === j) return this.states[i]
    const assetType = this.tickers[i].asset_type
    const key = this.isCrypto[i] === 1 ? "crypto" : "equity"
    const into = this.scratch.get(key)
    const st = this.checkpoints.stateBefore(i, j, this.series[i], assetType, into)
    if (into === undefined) this.scratch.set(key, st)
    return st
  }

  /** Epoch ms at which a day's daily state is taken: the 16:00 ET close (equities), 24:00 UTC (crypto). */
  private stateInstant(i: number, day: number): number {
    if (this.isCrypto[i] === 1) return (day + 1) * DAY_MS
    const date = isoDate(day)
    return isTradingDay(date) ? closeInstant(date) : (day + 1) * DAY_MS
  }

  private inputsAt(i: number, day: number, news: Map<number, [Float64Array, Float64Array]>): TickerInputs {
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
  private tickerInputsAt(i: number, day: number): TickerInputs {
    const date = isoDate(day)
    this.sim.tickerNewsColumnsAt(i, this.stateInstant(i, day), this.oneNews[0], this.oneNews[1], 0)
    this.sim.tickerFundamentalsAt(i, date, this.oneFundamentals, 0)
    const vendor = this.isCrypto[i] === 1 || date >= VENDOR_FEED_START
    return tickerInputs(this.oneFundamentals, 0, this.oneNews[0][0], this.oneNews[1][0], vendor)
  }

  /**
   * Every ticker's daily row as of `date`: for each ticker the latest daily
   * state on or before the date, if it is at most 14 days older. Cached.
   */
  snapshotAsOf(date: string): DailySnapshot {
    const day = epochDay(date)
    const cached = this.asOfCache.get(day)
    if (cached !== undefined) {
      this.asOfCache.delete(day)
      this.asOfCache.set(day, cached)
      return cached
    }
    const rows: Array<number> = []
    const barIndex: Array<number> = []
    for (let i = 0; i < this.size; i++) {
      const s = this.series[i]
      const j = s.indexAtOrBefore(day)
      if (j < 0 || day - s.days[j] > CARRY_FORWARD_DAYS) continue
      rows.push(i)
      barIndex.push(j)
    }
    const n = rows.length
    const computed = allocateColumns(n)
    const sink = bindColumns(computed)
    const news = new Map<number, [Float64Array, Float64Array]>()
    const rowDays = new Int32Array(n)
    for (let r = 0; r < n; r++) {
      const i = rows[r]
      const j = barIndex[r]
      const s = this.series[i]
      rowDays[r] = s.days[j]
      preview(this.stateBefore(i, j), barAt(s, j), this.inputsAt(i, s.days[j], news), sink, r)
    }
    const columns = new Map<string, Column>()
    for (const name of STRING_COLUMNS) {
      const source = (this.stringColumns.get(name) as { values: ReadonlyArray<string | null> }).values
      columns.set(name, { kind: "string", values: rows.map((i) => source[i]) })
    }
    for (const [name, col] of computed) columns.set(name, col)
    const tickers = rows.map((i) => this.tickers[i].ticker)
    const snapshot: DailySnapshot = {
      asOf: (day + 1) * DAY_MS - 1,
      date,
      size: n,
      tickers,
      index: new Map(tickers.map((t, r) => [t, r])),
      columns,
      rowDays
    }
    if (this.asOfCache.size >= AS_OF_CACHE_SIZE) this.asOfCache.delete(this.asOfCache.keys().next().value as number)
    this.asOfCache.set(day, snapshot)
    return snapshot
  }

  /** A fresh copy of ticker `i`'s indicator state with its bars before index `j` committed (history walks). */
  stateAt(i: number, j: number): DailyState {
    return this.checkpoints.stateBefore(i, j, this.series[i], this.tickers[i].asset_type)
  }

  /** The first day of ticker `i`'s history kept in memory (earlier days: `deepOf`). */
  windowDayOf(i: number): number {
    return this.isCrypto[i] === 1 ? this.startCryptoDay : this.startEquityDay
  }

  /** Tickers' histories before the window, built on demand (`history/deepTicker.ts`), least recently read first. */
  private readonly deepCache = new Map<number, DeepTicker>()

  /** Ticker `i`'s history from its first day to the day before its window; undefined when it has none. */
  deepOf(i: number): DeepTicker | undefined {
    const toDay = this.windowDayOf(i) - 1
    const imported = this.imported.get(this.tickers[i].ticker)
    if (this.firstDay[i] > toDay && (imported === undefined || epochDay(imported[0].date) > toDay)) return undefined
    let deep = this.deepCache.get(i)
    if (deep !== undefined) {
      this.deepCache.delete(i)
    } else {
      deep = buildDeepTicker({
        source: this.sim,
        slot: i,
        crypto: this.isCrypto[i] === 1,
        imported,
        fromDay: this.firstDay[i],
        toDay,
        assetType: this.tickers[i].asset_type
      })
      if (this.deepCache.size >= DEEP_CACHE_SIZE) this.deepCache.delete(this.deepCache.keys().next().value as number)
    }
    this.deepCache.set(i, deep)
    return deep
  }

  /** The epoch days of ticker `i`'s first and last completed daily bars (undefined: none yet). */
  dailyCoverage(i: number): { from: number; to: number } | undefined {
    const s = this.series[i]
    if (s.length === 0) return undefined
    const imported = this.imported.get(this.tickers[i].ticker)
    const firstImported = imported === undefined || imported.length === 0 ? s.days[0] : epochDay(imported[0].date)
    return { from: Math.min(this.firstDay[i], firstImported, s.days[0]), to: s.days[s.length - 1] }
  }

  /**
   * The epoch days of ticker `i`'s first and last sessions with minute bars: `MINUTE_HISTORY_DAYS`
   * back from the latest refresh (not before its first bar), to the current session.
   */
  minuteCoverage(i: number): { from: number; to: number } {
    const crypto = this.isCrypto[i] === 1
    const session = crypto ? this.crypto : this.equity
    const retention = Math.floor(this.latest.asOf / DAY_MS) - (this.options.minuteHistoryDays ?? 730)
    let from = Math.max(retention, this.firstDay[i])
    if (!crypto) while (!isTradingDay(isoDate(from))) from++
    return { from: Math.min(from, session.day), to: session.day }
  }

  /** The number of as-of snapshots held in memory. */
  get asOfCacheSize(): number {
    return this.asOfCache.size
  }

  /**
   * One ticker's daily row on the latest state on or before `date` (no
   * look-back limit), with the date of that state; undefined when none.
   */
  rowAsOf(ticker: string, date: string): { date: string; values: Record<string, number | boolean | null> } | undefined {
    const i = this.index.get(ticker)
    if (i === undefined) return undefined
    const day = epochDay(date)
    const s = this.series[i]
    const j = s.indexAtOrBefore(day)
    const one = allocateColumns(1)
    if (j < 0 || s.days[j] < this.windowDayOf(i)) {
      // before the window: from the ticker's whole history
      const deep = this.deepOf(i)
      const k = deep === undefined ? -1 : deep.series.indexAtOrBefore(day)
      if (deep === undefined || k < 0) return undefined
      const d = deep.series.days[k]
      preview(deepStateBefore(deep, k), barAt(deep.series, k), this.tickerInputsAt(i, d), bindColumns(one), 0)
      return { date: isoDate(d), values: readRow(one, 0) }
    }
    preview(this.stateBefore(i, j), barAt(s, j), this.tickerInputsAt(i, s.days[j]), bindColumns(one), 0)
    return { date: isoDate(s.days[j]), values: readRow(one, 0) }
  }

  /**
   * One column's daily values for one ticker over [fromDay, toDay] (epoch
   * days), oldest first: one row per daily bar in the range.
   */
  dailySeries(
    ticker: string,
    column: string,
    fromDay: number,
    toDay: number
  ): Array<{ day: number; value: number | boolean | null }> {
    const i = this.index.get(ticker)
    if (i === undefined) return []
    const out: Array<{ day: number; value: number | boolean | null }> = []
    const windowDay = this.windowDayOf(i)
    if (fromDay < windowDay) {
      // the days before the window, from the ticker's whole history
      const deep = this.deepOf(i)
      if (deep !== undefined)
        this.seriesOf(i, deep.series, column, fromDay, Math.min(toDay, windowDay - 1), out, (j) =>
          deepStateBefore(deep, j)
        )
      fromDay = windowDay
    }
    const s = this.series[i]
    return this.seriesOf(i, s, column, Math.max(fromDay, windowDay), toDay, out, (j) =>
      this.checkpoints.stateBefore(i, j, s, this.tickers[i].asset_type)
    )
  }

  /** `dailySeries` over one series of ticker `i` (the window's or its deep history), appended to `out`. */
  private seriesOf(
    i: number,
    s: BarSeries,
    column: string,
    fromDay: number,
    toDay: number,
    out: Array<{ day: number; value: number | boolean | null }>,
    stateBefore: (j: number) => DailyState
  ): Array<{ day: number; value: number | boolean | null }> {
    const start = s.indexAtOrAfter(fromDay)
    const end = s.indexAtOrBefore(toDay)
    if (start > end) return out
    const needsInputs = INPUT_COLUMNS.has(column)
    const one = allocateColumns(1)
    const col = one.get(column)
    if (col === undefined) return out
    const sink = bindColumns(new Map([[column, col]]))
    const st = stateBefore(start)
    for (let j = start; j <= end; j++) {
      const bar = barAt(s, j)
      preview(st, bar, needsInputs ? this.tickerInputsAt(i, s.days[j]) : NO_INPUTS, sink as RowSink, 0)
      out.push({
        day: s.days[j],
        value: col.valid[0] === 0 ? null : col.kind === "boolean" ? col.values[0] === 1 : col.values[0]
      })
      commit(st, bar)
    }
    return out
  }

  /** Weekly values: each week's last daily row (weeks run Monday to Sunday), dated by that row's day. */
  weeklySeries(ticker: string, column: string, fromDay: number, toDay: number) {
    const daily = this.dailySeries(ticker, column, fromDay, toDay)
    const out: typeof daily = []
    // epoch day 4 was a Monday: (day - 4) / 7 numbers the weeks
    for (let k = 0; k < daily.length; k++) {
      const week = Math.floor((daily[k].day - 4) / 7)
      const next = daily[k + 1]
      if (next === undefined || Math.floor((next.day - 4) / 7) !== week) out.push(daily[k])
    }
    return out
  }

  /**
   * Minute-tier columns at minute resolution, walking back from `toMs`: the
   * value at every minute (`1m`) or at the end of every hour (`1h`) of each
   * session, newest first, until `limit` points or `fromMs`. Sessions from
   * imported bars have no minute data and are skipped; so is the open session
   * beyond the latest refresh.
   */
  intradaySeries(
    ticker: string,
    column: string,
    interval: "1m" | "1h",
    fromMs: number,
    toMs: number,
    limit: number
  ): Array<{ t: number; value: number | boolean | null }> {
    const i = this.index.get(ticker)
    const out: Array<{ t: number; value: number | boolean | null }> = []
    if (i === undefined) return out
    const crypto = this.isCrypto[i] === 1
    const s = this.series[i]
    const one = allocateColumns(1)
    const col = one.get(column)
    if (col === undefined) return out
    const sink = bindColumns(new Map([[column, col]]))
    const latest = this.latest.asOf
    const end = Math.min(toMs, latest)
    const retention = latest - (this.options.minuteHistoryDays ?? 730) * DAY_MS
    fromMs = Math.max(fromMs, retention)
    const session = crypto ? this.crypto : this.equity
    // the open session first (from the live state), then completed sessions from the history
    const days: Array<{ day: number; j: number }> = []
    if (session.intraday.slotOf[i] >= 0 && session.intraday.startMs <= end) days.push({ day: session.day, j: -1 })
    for (let j = s.indexAtOrBefore(epochDay(isoDate(Math.floor(end / DAY_MS)))); j >= 0; j--) {
      if (s.days[j] === session.day) continue
      days.push({ day: s.days[j], j })
      if (days.length > 800) break
    }
    for (const { day, j } of days) {
      if (out.length >= limit) break
      const points: Array<{ t: number; value: number | boolean | null }> = []
      this.sessionMinutes(i, day, j, sink, fromMs, end, interval, (t) => {
        points.push({
          t,
          value: col.valid[0] === 0 ? null : col.kind === "boolean" ? col.values[0] === 1 : col.values[0]
        })
      })
      for (let p = points.length - 1; p >= 0 && out.length < limit; p--) out.push(points[p])
      if (days.length > 0 && (j >= 0 ? s.days[j] : day) * DAY_MS + DAY_MS < fromMs) break
    }
    return out
  }

  /**
   * Every minute (`1m`) or every hour's end (`1h`) of ticker `i`'s session on `day` within
   * [fromMs, toMs]: the row at that minute previewed into `sink` (row 0), then `visit(t)`. `j` is
   * the session's daily bar (-1: the open session, from the live state). Sessions from imported
   * bars have no minute data, nor equity days off: nothing is visited.
   */
  private sessionMinutes(
    i: number,
    day: number,
    j: number,
    sink: RowSink,
    fromMs: number,
    toMs: number,
    interval: "1m" | "1h",
    visit: (t: number) => void
  ): void {
    if (this.isImportedDay(i, day)) return
    const crypto = this.isCrypto[i] === 1
    const s = this.series[i]
    const bars = this.singleTickerBars ?? allocateDayBarsFor(this.size)
    this.singleTickerBars = bars
    const session = crypto ? this.crypto : this.equity
    // the session's paths of this ticker alone (a path depends on its own bar only): the open
    // session's shared paths would advance every ticker of the market at each minute
    bars.traded.fill(0)
    bars.traded[i] = 1
    if (j < 0) {
      const live = session.bars
      bars.open[i] = live.open[i]
      bars.high[i] = live.high[i]
      bars.low[i] = live.low[i]
      bars.close[i] = live.close[i]
      bars.volume[i] = live.volume[i]
    } else {
      bars.open[i] = s.openAt(j)
      bars.high[i] = s.highAt(j)
      bars.low[i] = s.lowAt(j)
      bars.close[i] = s.close[j]
      bars.volume[i] = s.volume[j]
    }
    bars.day = day
    bars.date = isoDate(day)
    if (!crypto && !isTradingDay(bars.date)) return
    const intraday = this.sim.intradaySession(bars, crypto ? "crypto" : "equity")
    const state = j < 0 ? this.states[i] : this.stateBefore(i, j)
    const inputs = this.tickerInputsAt(i, day)
    const partial = this.singleTickerPartial ?? allocatePartialBars(this.size)
    this.singleTickerPartial = partial
    const k = intraday.minutes
    for (let m = 1; m <= k; m++) {
      // 1h: every minute on the hour (UTC), and the session's last minute
      if (interval === "1h" && (intraday.startMs + m * 60_000) % 3_600_000 !== 0 && m !== k) continue
      const t = intraday.startMs + m * 60_000
      if (t > toMs || t < fromMs) continue
      intraday.partialBars(m, partial)
      const bar: DailyBar = {
        day,
        open: tickRound(partial.open[i], crypto),
        high: tickRound(partial.high[i], crypto),
        low: tickRound(partial.low[i], crypto),
        close: tickRound(partial.close[i], crypto),
        volume: Math.round(partial.volume[i]),
        vwap: partial.vwap[i]
      }
      preview(state, bar, inputs, sink, 0)
      visit(t)
    }
  }

  /**
   * Ticker `i`'s rows at every minute of its sessions within [fromMs, toMs] (within the minute
   * history), oldest first: each previewed into `sink` (row 0), then `visit(t, j)` with `j` the
   * session's daily bar (-1: the open session). Slot-based, for replays over many tickers.
   */
  minuteWalk(i: number, fromMs: number, toMs: number, sink: RowSink, visit: (t: number, j: number) => void): void {
    const s = this.series[i]
    const latest = this.latest.asOf
    const end = Math.min(toMs, latest)
    const from = Math.max(fromMs, latest - (this.options.minuteHistoryDays ?? 730) * DAY_MS)
    if (from > end) return
    const session = this.isCrypto[i] === 1 ? this.crypto : this.equity
    const lastDay = Math.floor(end / DAY_MS)
    for (let j = Math.max(0, s.indexAtOrAfter(Math.floor(from / DAY_MS) - 1)); j < s.length; j++) {
      const day = s.days[j]
      if (day > lastDay) break
      if (day === session.day) continue
      this.sessionMinutes(i, day, j, sink, from, end, "1m", (t) => visit(t, j))
    }
    if (session.intraday.slotOf[i] >= 0 && session.intraday.startMs <= end && session.day <= lastDay) {
      this.sessionMinutes(i, session.day, -1, sink, from, end, "1m", (t) => visit(t, -1))
    }
  }

  private singleTickerBars: DayBars | undefined
  private singleTickerPartial: PartialBars | undefined

  /** Whether ticker `i`'s bar on `day` came from an imported file. */
  private isImportedDay(i: number, day: number): boolean {
    const bars = this.imported.get(this.tickers[i].ticker)
    if (bars === undefined || bars.length === 0) return false
    const date = isoDate(day)
    return date >= bars[0].date && date <= bars[bars.length - 1].date
  }

  /** The system universe membership in effect on `day`. */
  membershipOn(day: number): Membership | undefined {
    return membershipOn(this.memberships, day)
  }

  /** The earliest day any ticker has a bar. */
  get earliestDay(): number {
    let min = Number.POSITIVE_INFINITY
    for (const s of this.series) if (s.length > 0 && s.days[0] < min) min = s.days[0]
    return min
  }

  // ---------------------------------------------------------------- import

  /**
   * Lays imported bars over the tickers' history, rebuilds their derived rows,
   * and re-opens today's sessions (their prior closes may have changed).
   * Dates must be before each ticker's current session.
   */
  /** Checks that imported bars may be applied now: tracked tickers, dates before the current session. */
  validateImport(byTicker: ReadonlyMap<string, ReadonlyArray<ParsedBar>>, now: number): ImportSummary {
    const which: Array<string> = []
    let rows = 0
    let from = "9999-12-31"
    let to = "0000-01-01"
    for (const [ticker, bars] of byTicker) {
      const i = this.index.get(ticker)
      if (i === undefined) throw new ImportRangeError(`ticker ${ticker} is not tracked`)
      if (bars.length === 0) continue
      const current = isoDate(this.sessionDay(i, now))
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
  importBars(byTicker: ReadonlyMap<string, ReadonlyArray<ParsedBar>>, now: number): ImportSummary {
    const summary = this.validateImport(byTicker, now)
    const which = new Set(summary.tickers.map((t) => this.index.get(t)!))
    for (const [ticker, bars] of byTicker) {
      const merged = mergeImported(this.imported.get(ticker) ?? [], bars)
      this.imported.set(ticker, merged)
    }
    runToEnd(this.generateSeries(which, now))
    runToEnd(this.commitSeries(which, now))
    this.openSessions(now)
    this.asOfCache.clear()
    this.memberships = this.computeMemberships()
    this.refresh(now)
    return summary
  }
}

/** The simulated market of a seed: what a `MarketData` of those options simulates (also in a worker thread). */
export const simulatorFor = (seed: number, tickers: ReadonlyArray<TickerMeta>): MarketSimulator =>
  new MarketSimulator({ seed, tickers: tickers.map(simSpec), anchorDate: SIM_ANCHOR_DATE })

/** Runs a work generator to its end. */
export const runToEnd = <A>(gen: Generator<void, A>): A => {
  for (;;) {
    const step = gen.next()
    if (step.done) return step.value
  }
}

const nextSessionAfter = (date: string): string => addTradingDays(date, 1)

/** Imported bars replace earlier imported bars over their own range. */
const mergeImported = (old: ReadonlyArray<ParsedBar>, incoming: ReadonlyArray<ParsedBar>): ReadonlyArray<ParsedBar> => {
  if (old.length === 0) return incoming
  const from = incoming[0].date
  const to = incoming[incoming.length - 1].date
  return [...old.filter((b) => b.date < from || b.date > to), ...incoming].sort((a, b) =>
    a.date < b.date ? -1 : a.date > b.date ? 1 : 0
  )
}

/** Reads row `r` of computed columns as plain values. */
export const readRow = (columns: ReadonlyMap<string, Column>, r: number): Record<string, number | boolean | null> => {
  const out: Record<string, number | boolean | null> = {}
  for (const [name, col] of columns) {
    if (col.kind === "string") continue
    out[name] = col.valid[r] === 0 ? null : col.kind === "boolean" ? col.values[r] === 1 : col.values[r]
  }
  return out
}
