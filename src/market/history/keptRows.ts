/**
 * Some computed columns of the daily rows of many tickers, kept for a set of
 * each ticker's bars, from one `DailyWalk` — then read back day by day as the
 * as-of reads see them: on a day, each ticker's latest kept bar on or before
 * it, at most `CARRY_FORWARD_DAYS` older (the rule of `snapshotAsOf`).
 *
 * The readers of history over many days use it: a dry-run keeps every bar of
 * its window (`barsInRange`), a backtest only the bars its rebalance days read
 * (`barsAsOf`); the walk previews only the kept bars and merely commits the
 * others (`WalkSpec.wanted`).
 */
import { INPUT_COLUMNS } from "../engine/inputs.js"
import { CARRY_FORWARD_DAYS, type MarketReader } from "../engine/MarketData.js"
import { familiesOf } from "../indicators/index.js"
import { columnKernel } from "../indicators/kernels.js"
import type { BarSeries } from "./barSeries.js"
import type { WalkInputs } from "./dailyWalk.js"
import { type KeptPlan, keptWalker } from "./keptWalk.js"
import { handOverReads, SHARE_FROM_BARS, sharedWalk, type WalkShare } from "./walkHelper.js"

/** A kept column: one value per kept row (booleans as 0/1), and its validity. */
export interface KeptColumn {
  readonly name: string
  readonly values: Float64Array
  readonly valid: Uint8Array
}

/**
 * Which bars of a ticker's series are kept (the ticker: market slot `slot`): their indexes, ascending
 * (read before the next call: the answer may be a scratch array refilled by it).
 */
export type KeptBars = (series: BarSeries, slot: number) => ArrayLike<number>

/** Every bar from `lo` to `hi` (epoch days, inclusive). */
export const barsInRange =
  (lo: number, hi: number): KeptBars =>
  (s) => {
    const a = s.indexAtOrAfter(lo)
    const b = s.indexAtOrBefore(hi)
    const out = new Int32Array(Math.max(0, b - a + 1))
    for (let j = 0; j < out.length; j++) out[j] = a + j
    return out
  }

/**
 * The bars the as-of rows of `days` (ascending epoch days) are: each day's latest bar within the
 * carry-forward — of the days `wanted(slot, d)` says the ticker's row is read on (`d` indexes
 * `days`; default: all).
 */
export const barsAsOf = (days: ArrayLike<number>, wanted?: (slot: number, d: number) => boolean): KeptBars => {
  // one scratch list refilled per ticker (13,000 arrays a whole-market stretch were most of its young garbage)
  const scratch = new Int32Array(days.length)
  return (s, slot) => {
    let n = 0
    // the last bar on or before the day: searched over the series for the first day read, then among
    // the bars after the last day's (at most one a day)
    let j = Number.NaN
    let since = 0
    for (let d = 0; d < days.length; d++) {
      const day = days[d]!
      if (wanted !== undefined && !wanted(slot, d)) continue
      if (Number.isNaN(j)) j = s.indexAtOrBefore(day)
      else j = s.indexAtOrBefore(day, j + 1, j + day - since)
      since = day
      if (j >= 0 && day - s.days[j]! <= CARRY_FORWARD_DAYS && (n === 0 || scratch[n - 1] !== j)) scratch[n++] = j
    }
    return scratch.subarray(0, n)
  }
}

const NEWS_COLUMNS: ReadonlySet<string> = new Set(["news_volume", "news_volume_weighted_sentiment"])

/** The inputs the kept columns need: news only for the news columns (no other column reads it). */
const inputsFor = (columns: ReadonlyArray<string>): WalkInputs =>
  columns.some((c) => NEWS_COLUMNS.has(c)) ? "all" : columns.some((c) => INPUT_COLUMNS.has(c)) ? "fundamentals" : "none"

/**
 * Per day of a range, the walked tickers whose row holds a condition (`KeptRows.daysWhere`): day `d`'s
 * are `ks[start[d]] … ks[start[d + 1] - 1]` (positions in the slots, ascending), each one's row at the
 * same index of `ps`.
 */
export interface DayLists {
  readonly start: Int32Array
  readonly ks: Int32Array
  readonly ps: Int32Array
}

export class KeptRows {
  /** the kept columns, one value per kept bar (position) */
  readonly columns: ReadonlyArray<KeptColumn>
  /** k → its first position; its positions are `offset[k]` .. `offset[k + 1] - 1` */
  private readonly offset: Int32Array
  /** position → bar index in its ticker's series */
  private readonly barOf: Int32Array
  /** position → its bar's day */
  private readonly dayOf: Int32Array
  /** how the last walk was shared with the walk helper's thread (undefined: walked here alone) */
  shared: WalkShare | undefined
  /** k → the position `on` reached (-1 before its first) */
  private readonly at: Int32Array

  constructor(
    private readonly md: MarketReader,
    /** market slots, ascending; `k` is a position here */
    private readonly slots: ReadonlyArray<number>,
    names: ReadonlyArray<string>,
    kept: KeptBars
  ) {
    const n = slots.length
    this.offset = new Int32Array(n + 1)
    // each ticker's list copied as it comes (a list may be the next one's scratch)
    let lists = new Int32Array(1024)
    for (let k = 0; k < n; k++) {
      const list = kept(md.series[slots[k]!]!, slots[k]!)
      const at = this.offset[k]!
      if (at + list.length > lists.length) {
        const grown = new Int32Array(2 * (at + list.length))
        grown.set(lists.subarray(0, at))
        lists = grown
      }
      lists.set(list, at)
      this.offset[k + 1] = at + list.length
    }
    const total = this.offset[n]!
    // the walk helper's thread writes the columns and reads the bars' indexes too: shared memory
    this.barOf = new Int32Array(new SharedArrayBuffer(4 * total))
    this.barOf.set(lists.subarray(0, total))
    this.dayOf = new Int32Array(total)
    for (let k = 0; k < n; k++) {
      const days = md.series[slots[k]!]!.days
      for (let p = this.offset[k]!; p < this.offset[k + 1]!; p++) this.dayOf[p] = days[this.barOf[p]!]!
    }
    this.columns = names.map((name) => ({
      name,
      values: new Float64Array(new SharedArrayBuffer(8 * total)),
      valid: new Uint8Array(new SharedArrayBuffer(total))
    }))
    this.at = Int32Array.from({ length: n }, (_, k) => this.offset[k]! - 1)
  }

  /** how many bars are kept, over every ticker: the positions are 0 .. size - 1 */
  get size(): number {
    return this.offset[this.slots.length]!
  }

  /** one value per kept position: ticker `k`'s value at each of its positions */
  spread<A>(valueAt: (k: number) => A): Array<A> {
    const out = new Array<A>(this.size)
    for (let k = 0; k < this.slots.length; k++) out.fill(valueAt(k), this.offset[k]!, this.offset[k + 1]!)
    return out
  }

  /**
   * Walks the kept bars' rows into the columns; yields every few hundred bars. A walk of at least
   * `shareFrom` bars whose columns read only the bars is shared with the walk helper's thread
   * (`walkHelper.ts`; `helperFailsAfter`: tests make it fail after that many runs; `helperFirst`: tests
   * make this thread wait until the helper has taken a run, so that it walks some on a busy machine).
   */
  *walk(
    options: {
      readonly shareFrom?: number
      /** bars in a run of tickers either thread takes (`keptWalk.ts` RUN_BARS) */
      readonly runBars?: number
      readonly helperFailsAfter?: number | undefined
      readonly helperFirst?: boolean | undefined
    } = {}
  ): Generator<void, void> {
    const { md, offset, barOf } = this
    // only the tickers with a kept bar, from their first one to the last kept day
    const walked: Array<number> = []
    let toDay = Number.NEGATIVE_INFINITY
    let bars = 0
    for (let k = 0; k < this.slots.length; k++) {
      if (offset[k + 1]! === offset[k]!) continue
      walked.push(k)
      const s = md.series[this.slots[k]!]!
      toDay = Math.max(toDay, s.days[barOf[offset[k + 1]! - 1]!]!)
      bars += barOf[offset[k + 1]! - 1]! - barOf[offset[k]!]! + 1
    }
    if (walked.length === 0) return
    const names = this.columns.map((c) => c.name)
    // the walked tickers' positions: each one's follow the previous one's (a ticker without any holds none)
    const walkedOffset = new Int32Array(new SharedArrayBuffer(4 * (walked.length + 1)))
    for (let w = 0; w < walked.length; w++) walkedOffset[w] = offset[walked[w]!]!
    walkedOffset[walked.length] = offset[walked[walked.length - 1]! + 1]!
    const plan: KeptPlan = {
      slots: walked.map((k) => this.slots[k]!),
      offset: walkedOffset,
      barOf,
      toDay,
      names,
      values: this.columns.map((c) => c.values),
      valid: this.columns.map((c) => c.valid)
    }
    const inputs = inputsFor(names)
    const walkRun = keptWalker(md, plan, inputs)
    // a column kernel's walk (~15 ns a bar) is not shared: the helper reads the next stretch meanwhile
    // (that read takes longer than this thread's walk and days: sharing the walk slowed the whole)
    const byKernel = inputs === "none" && columnKernel(names) !== undefined
    if (inputs !== "none" || byKernel || bars < (options.shareFrom ?? SHARE_FROM_BARS)) {
      handOverReads()
      return yield* walkRun(0, walked.length)
    }
    this.shared = yield* sharedWalk(md, plan, familiesOf(names), walkRun, {
      runBars: options.runBars,
      failAfter: options.helperFailsAfter,
      helperFirst: options.helperFirst
    })
  }

  /**
   * Per day of `fromDay … toDay`, the walked tickers (positions `k`, ascending) whose row on that day
   * (as `on` finds it) is a kept bar with `bits[position] === 1`: the tickers of day `d` are
   * `ks[start[d - fromDay]] … ks[start[d - fromDay + 1] - 1]`, and `ps` beside `ks` the position of each
   * one's row. One pass over each ticker's kept bars in turn (no pass over every ticker each day); the
   * lists hold only the bits set.
   */
  daysWhere(bits: Uint8Array, fromDay: number, toDay: number): DayLists {
    const span = Math.max(0, toDay - fromDay + 1)
    const start = new Int32Array(span + 1)
    // the set bits found once, by the native search (most bits of a condition over years are clear)
    const { offset, dayOf } = this
    const size = offset[this.slots.length]!
    const hits: Array<number> = []
    for (let p = bits.indexOf(1); p >= 0 && p < size; p = bits.indexOf(1, p + 1)) hits.push(p)
    // each set bit's days: from its bar's day to the day before the next bar, at most the carry-forward
    const each = (visit: (k: number, d0: number, d1: number, p: number) => void) => {
      let k = 0
      for (const p of hits) {
        while (offset[k + 1]! <= p) k++
        const last = offset[k + 1]! - 1
        const d0 = Math.max(dayOf[p]!, fromDay)
        const until = p < last ? dayOf[p + 1]! - 1 : Number.POSITIVE_INFINITY
        const d1 = Math.min(until, dayOf[p]! + CARRY_FORWARD_DAYS, toDay)
        if (d0 <= d1) visit(k, d0 - fromDay, d1 - fromDay, p)
      }
    }
    each((_, a, b) => {
      for (let d = a; d <= b; d++) start[d + 1]!++
    })
    for (let d = 0; d < span; d++) start[d + 1]! += start[d]!
    const ks = new Int32Array(start[span]!)
    const ps = new Int32Array(start[span]!)
    const fill = start.slice(0, span)
    each((k, a, b, p) => {
      for (let d = a; d <= b; d++) {
        ps[fill[d]!] = p
        ks[fill[d]!++] = k
      }
    })
    return { start, ks, ps }
  }

  /** ticker `k`'s row on `day`: the position of its latest kept bar within the carry-forward (-1: none) */
  positionOn(k: number, day: number): number {
    const { offset, dayOf } = this
    let lo = offset[k]!
    let hi = offset[k + 1]!
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (dayOf[mid]! <= day) lo = mid + 1
      else hi = mid
    }
    const p = lo - 1
    return p >= offset[k]! && day - dayOf[p]! <= CARRY_FORWARD_DAYS ? p : -1
  }

  /** the index in its ticker's series of the bar kept at `position` */
  barAt(position: number): number {
    return this.barOf[position]!
  }

  /**
   * The rows on `day` (called for ascending days): per ticker the position of its latest kept bar on
   * or before the day within the carry-forward, and that bar's index in its series (-1 for both: no row).
   */
  on(day: number, positions: Int32Array, bars: Int32Array): void {
    const { offset, barOf, dayOf, at } = this
    for (let k = 0; k < this.slots.length; k++) {
      const last = offset[k + 1]! - 1
      let p = at[k]!
      while (p + 1 <= last && dayOf[p + 1]! <= day) p++
      at[k] = p
      if (p >= offset[k]! && day - dayOf[p]! <= CARRY_FORWARD_DAYS) {
        positions[k] = p
        bars[k] = barOf[p]!
      } else {
        positions[k] = -1
        bars[k] = -1
      }
    }
  }
}
