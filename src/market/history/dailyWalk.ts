/**
 * Walking the daily rows of many tickers over a range of days.
 *
 * A past day's row of a ticker is the preview of that day's bar on the state
 * holding every bar before it (see `MarketReader`). Reading one day of every
 * ticker (`snapshotAsOf`) rebuilds each ticker's state from a checkpoint;
 * reading many consecutive days that way repeats the rebuild every day. A
 * walk instead keeps one state per ticker and moves it bar by bar: each bar
 * is previewed (its row) and then committed, one preview and one commit per
 * bar.
 *
 * Order: the days are cut into chunks of `CHUNK_DAYS`; within a chunk the
 * walk goes ticker by ticker (all of one ticker's bars of the chunk, then the
 * next ticker), so a ticker's state stays in the CPU cache while its bars are
 * walked — going day by day across thousands of tickers instead costs a
 * cache miss on every state access and runs about twice as slow. The inputs
 * (fundamentals, vendor fields, news) of each day of a chunk are read once
 * per chunk, exactly as the as-of reads read them; a walk that needs no
 * input-derived column skips them (`inputs: "none"`), and one that needs no
 * news column skips the news (`"fundamentals"`).
 *
 * Each bar is previewed into a one-row buffer (`row`: every computed column,
 * or the ones the spec names) which the visitor reads right away. The walk is a generator that yields
 * every few hundred bars, so a caller can let other work run between slices.
 * It reads each ticker's series object and length as they were when the walk
 * started: bars appended meanwhile are not walked, and a series replaced
 * meanwhile (an import) is still read from the old object, so a caller can
 * tell stale results by comparing `series[k]` with the market's current one.
 */
import { closeInstant, isTradingDay } from "../calendar.js"
import { inputsInto, newInputs } from "../engine/inputs.js"
import type { MarketReader } from "../engine/MarketData.js"
import { VENDOR_FEED_START } from "../engine/specs.js"
import { DAY_MS } from "../indicators/days.js"
import {
  allocateColumns,
  bindColumns,
  commit,
  commitDeferred,
  configForAssetType,
  type DailyState,
  epochDay,
  familiesOf,
  finishCommits,
  type IndicatorConfig,
  isoDate,
  makeState,
  NO_INPUTS,
  preview,
  type RowSink,
  type TickerInputs
} from "../indicators/index.js"
import { allocateFundamentals, type FundamentalColumns } from "../sim/index.js"
import type { Column } from "../snapshot.js"
import { type BarSeries, barInto, newBar } from "./barSeries.js"

const VENDOR_DAY = epochDay(VENDOR_FEED_START)
/** bars previewed between two yields */
const SLICE_BARS = 256
/** days whose inputs are held at once */
export const CHUNK_DAYS = 32

/** Which non-bar inputs the walk reads: none, fundamentals and vendor fields, or those and news. */
export type WalkInputs = "none" | "fundamentals" | "all"

export interface WalkSpec {
  /** ticker slots (indexes into `md.tickers`) to walk; `k` in the visitor is the position here */
  readonly slots: ReadonlyArray<number>
  /**
   * bar index each walked ticker starts at; with `fresh` the state starts
   * empty, otherwise it is the market's state holding the bars before it
   */
  readonly start: (slot: number, series: BarSeries) => number
  readonly fresh: boolean
  /** last day walked (inclusive) */
  readonly toDay: number
  readonly inputs: WalkInputs
  /**
   * the columns `row` holds (default: every computed column); writing fewer costs less per bar, and
   * the walk then advances only the parts of each state they read (the other columns of `row` are
   * not computed)
   */
  readonly columns?: ReadonlyArray<string> | undefined
  /**
   * the bars previewed and visited (default: every bar walked); the others are only committed, in
   * runs whose `hot` refresh is deferred to the next preview — a walk that reads one bar in five
   * (a weekly backtest) costs little more than the commits
   */
  readonly wanted?: ((k: number, j: number) => boolean) | undefined
}

/**
 * What a walk reads of the market: `MarketReader` has it; so does a worker
 * thread's view of the same series (see `flagWorker.ts`).
 */
export type WalkMarket = Pick<MarketReader, "series" | "tickers" | "size" | "isCrypto" | "sim" | "stateAt"> &
  Partial<Pick<MarketReader, "startAt">>

/** Called for every walked bar with its row in `walk.row` (row 0): bar `j` of `slots[k]`, on `day`. */
export type BarVisitor = (k: number, j: number, day: number) => void

export class DailyWalk {
  /** the row of the bar being visited: every computed column, one row */
  readonly row: ReadonlyMap<string, Column>
  /** the series object each walked ticker is read from */
  readonly series: Array<BarSeries>
  private readonly sink: RowSink
  /** the parts of the state the kept columns read: the walk advances only those (families.ts) */
  private readonly families: number
  /** the bar being walked (a commit or preview keeps no reference to it) */
  private readonly bar = newBar()
  /** a state per config, refilled for each ticker walked without inputs (kept from run to run) */
  private readonly pool = new Map<IndicatorConfig, DailyState>()

  constructor(
    private readonly md: WalkMarket,
    readonly spec: WalkSpec
  ) {
    const all = allocateColumns(1)
    const row =
      spec.columns === undefined
        ? all
        : new Map(
            spec.columns.flatMap((c) => {
              const col = all.get(c)
              return col === undefined ? [] : [[c, col] as const]
            })
          )
    this.row = row
    this.sink = bindColumns(row)
    this.families = familiesOf(spec.columns)
    this.series = new Array(spec.slots.length)
  }

  /**
   * Walks the tickers at positions `from` … `to - 1` of `spec.slots` (default: all of them); a walk may be
   * run over parts of its tickers one after another (each ticker once), as a walk shared with another
   * thread takes its tickers a run at a time (`keptWalk.ts`).
   */
  *run(visit: BarVisitor, from = 0, to = this.spec.slots.length): Generator<void, void> {
    const { md, spec } = this
    const slots = spec.slots
    const n = slots.length
    const next = new Int32Array(n)
    const end = new Int32Array(n)
    for (let k = from; k < to; k++) {
      const s = md.series[slots[k]]
      this.series[k] = s
      end[k] = s.length
      next[k] = Math.max(0, spec.start(slots[k], s))
    }
    if (spec.inputs === "none") yield* this.tickerByTicker(visit, next, end, from, to)
    else yield* this.chunked(visit, next, end, from, to)
  }

  /**
   * Without inputs nothing is shared between the tickers of a day: each ticker is walked to the end
   * before the next, in one state per config refilled for each (13,000 states at once are ~180 MB
   * of new memory to touch).
   */
  private *tickerByTicker(
    visit: BarVisitor,
    next: Int32Array,
    end: Int32Array,
    from: number,
    to: number
  ): Generator<void, void> {
    const { md, spec } = this
    const pool = this.pool
    for (let k = from; k < to; k++) {
      const i = spec.slots[k]
      const config = configForAssetType(md.tickers[i].asset_type)
      let st: DailyState
      if (spec.fresh) {
        st = makeState(config)
      } else {
        st = md.stateAt(i, next[k], pool.get(config), this.families)
        if (st.config === config) pool.set(config, st)
      }
      for (let j = next[k]; j < end[k]; yield) {
        const to = this.walkTicker(visit, k, st, j, end[k], spec.toDay, NONE)
        if (to === j) break
        j = to
      }
    }
  }

  /**
   * With inputs, the days are cut into chunks (`CHUNK_DAYS`) whose inputs are read once, and within a
   * chunk the walk goes ticker by ticker (a ticker's state stays in the CPU cache while its bars are
   * walked); every ticker's state is kept from chunk to chunk.
   */
  private *chunked(
    visit: BarVisitor,
    next: Int32Array,
    end: Int32Array,
    from: number,
    to: number
  ): Generator<void, void> {
    const { md, spec } = this
    const slots = spec.slots
    const states: Array<DailyState> = new Array(slots.length)
    let first = Number.POSITIVE_INFINITY
    for (let k = from; k < to; k++) {
      const i = slots[k]
      const s = this.series[k]
      const j = next[k]
      states[k] = spec.fresh
        ? makeState(configForAssetType(md.tickers[i].asset_type))
        : md.stateAt(i, j, undefined, this.families)
      if (j < s.length && s.days[j] < first) first = s.days[j]
      // a fresh state per ticker is cheap but not for 13,000 at once: the event loop gets turns
      if (k % 64 === 63) yield
    }
    const inputs = new ChunkInputs(md, spec.inputs, slots)
    for (let c0 = first; c0 <= spec.toDay; c0 += CHUNK_DAYS) {
      const c1 = Math.min(c0 + CHUNK_DAYS - 1, spec.toDay)
      inputs.moveTo(c0)
      let work = 0
      for (let k = from; k < to; k++) {
        const from = next[k]
        let j = from
        for (let to = this.walkTicker(visit, k, states[k], j, end[k], c1, inputs); to > j; ) {
          j = to
          to = this.walkTicker(visit, k, states[k], j, end[k], c1, inputs)
        }
        next[k] = j
        work += j - from
        if (work >= SLICE_BARS) {
          work = 0
          yield
        }
      }
      yield
    }
  }

  /**
   * Walks bars `j` .. of walked ticker `k` up to day `lastDay` (and before bar `end`; at most
   * `SLICE_BARS` of them) on `st`: the wanted ones previewed, visited and committed, the others
   * committed with the refresh deferred (finished before the next preview, and after the last bar).
   * Returns the next bar.
   */
  private walkTicker(
    visit: BarVisitor,
    k: number,
    st: DailyState,
    j: number,
    end: number,
    lastDay: number,
    inputs: Pick<ChunkInputs, "of">
  ): number {
    const s = this.series[k]
    const i = this.spec.slots[k]
    const wanted = this.spec.wanted
    const families = this.families
    const bar = this.bar
    let deferred = false
    const stop = Math.min(end, j + SLICE_BARS)
    for (; j < stop && s.days[j] <= lastDay; j++) {
      const day = s.days[j]
      barInto(s, j, bar)
      if (wanted !== undefined && !wanted(k, j)) {
        commitDeferred(st, bar, families)
        deferred = true
      } else {
        if (deferred) finishCommits(st, families)
        deferred = false
        preview(st, bar, inputs.of(i, day), this.sink, 0, families)
        visit(k, j, day)
        commit(st, bar, families)
      }
    }
    if (deferred) finishCommits(st, families)
    return j
  }
}

/** The inputs of a walk without any: none. */
const NONE: Pick<ChunkInputs, "of"> = { of: () => NO_INPUTS }

/** The inputs of the days of one chunk, read the way the as-of reads read them. */
class ChunkInputs {
  private start = 0
  private readonly fundamentals: Array<FundamentalColumns | undefined> = new Array(CHUNK_DAYS)
  private readonly filled = new Int32Array(CHUNK_DAYS).fill(-1)
  private readonly news = new Map<number, readonly [Float64Array, Float64Array]>()

  /** the inputs handed out, refilled for each bar (a preview keeps no reference to them) */
  private readonly inputs = newInputs()
  /** the walked slots, when they are few enough that computing only theirs pays */
  private readonly only: ReadonlyArray<number> | undefined

  constructor(
    private readonly md: WalkMarket,
    private readonly need: WalkInputs,
    slots: ReadonlyArray<number>
  ) {
    this.only = slots.length * 2 <= md.size ? slots : undefined
  }

  moveTo(start: number): void {
    this.start = start
    this.news.clear()
  }

  private fundamentalsOn(day: number): FundamentalColumns {
    const slot = day - this.start
    let f = this.fundamentals[slot]
    if (this.filled[slot] !== day || f === undefined) {
      const out = f ?? allocateFundamentals(this.md.size)
      f =
        this.only === undefined
          ? this.md.sim.fundamentalsAt(isoDate(day), out)
          : this.md.sim.slotsFundamentalsAt(this.only, isoDate(day), out)
      this.fundamentals[slot] = f
      this.filled[slot] = day
    }
    return f
  }

  of(i: number, day: number): TickerInputs {
    if (this.need === "none") return NO_INPUTS
    const crypto = this.md.isCrypto[i] === 1
    let volume = 0
    let sentiment = 0
    if (this.need === "all") {
      const instant = stateInstant(crypto, day)
      const key = Math.floor(instant / 900_000)
      let cols = this.news.get(key)
      if (cols === undefined) {
        cols = [new Float64Array(this.md.size), new Float64Array(this.md.size)]
        this.md.sim.newsColumnsAt(instant, cols[0], cols[1])
        this.news.set(key, cols)
      }
      volume = cols[0][i]
      sentiment = cols[1][i]
    }
    return inputsInto(this.inputs, this.fundamentalsOn(day), i, volume, sentiment, crypto || day >= VENDOR_DAY)
  }
}

/** Epoch ms at which a day's daily state is taken: the 16:00 ET close (equities), 24:00 UTC (crypto). */
export const stateInstant = (crypto: boolean, day: number): number => {
  if (crypto) return (day + 1) * DAY_MS
  const date = isoDate(day)
  return isTradingDay(date) ? closeInstant(date) : (day + 1) * DAY_MS
}
