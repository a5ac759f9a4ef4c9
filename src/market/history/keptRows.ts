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
import type { Column } from "../snapshot.js"
import type { BarSeries } from "./barSeries.js"
import { DailyWalk, type WalkInputs } from "./dailyWalk.js"

/** A kept column: one value per kept row (booleans as 0/1), and its validity. */
export interface KeptColumn {
  readonly name: string
  readonly values: Float64Array
  readonly valid: Uint8Array
}

/** Which bars of a ticker's series are kept (the ticker: market slot `slot`): their indexes, ascending. */
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
export const barsAsOf =
  (days: ArrayLike<number>, wanted?: (slot: number, d: number) => boolean): KeptBars =>
  (s, slot) => {
    const out: Array<number> = []
    for (let d = 0; d < days.length; d++) {
      const day = days[d]!
      if (wanted !== undefined && !wanted(slot, d)) continue
      const j = s.indexAtOrBefore(day)
      if (j >= 0 && day - s.days[j]! <= CARRY_FORWARD_DAYS && out[out.length - 1] !== j) out.push(j)
    }
    return out
  }

const NEWS_COLUMNS: ReadonlySet<string> = new Set(["news_volume", "news_volume_weighted_sentiment"])

/** The inputs the kept columns need: news only for the news columns (no other column reads it). */
const inputsFor = (columns: ReadonlyArray<string>): WalkInputs =>
  columns.some((c) => NEWS_COLUMNS.has(c)) ? "all" : columns.some((c) => INPUT_COLUMNS.has(c)) ? "fundamentals" : "none"

export class KeptRows {
  /** the kept columns, one value per kept bar (position) */
  readonly columns: ReadonlyArray<KeptColumn>
  /** k → its first position; its positions are `offset[k]` .. `offset[k + 1] - 1` */
  private readonly offset: Int32Array
  /** position → bar index in its ticker's series */
  private readonly barOf: Int32Array
  /** position → its bar's day */
  private readonly dayOf: Int32Array
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
    const lists = slots.map((slot) => kept(md.series[slot]!, slot))
    this.offset = new Int32Array(n + 1)
    for (let k = 0; k < n; k++) this.offset[k + 1] = this.offset[k]! + lists[k]!.length
    const total = this.offset[n]!
    this.barOf = new Int32Array(total)
    this.dayOf = new Int32Array(total)
    for (let k = 0; k < n; k++) {
      const list = lists[k]!
      const at = this.offset[k]!
      const days = md.series[slots[k]!]!.days
      this.barOf.set(list, at)
      for (let b = 0; b < list.length; b++) this.dayOf[at + b] = days[list[b]!]!
    }
    this.columns = names.map((name) => ({ name, values: new Float64Array(total), valid: new Uint8Array(total) }))
    this.at = Int32Array.from({ length: n }, (_, k) => this.offset[k]! - 1)
  }

  /** Walks the kept bars' rows into the columns; yields every few hundred bars. */
  *walk(): Generator<void, void> {
    const { md, offset, barOf } = this
    // only the tickers with a kept bar, from their first one to the last kept day
    const walked: Array<number> = []
    let toDay = Number.NEGATIVE_INFINITY
    for (let k = 0; k < this.slots.length; k++) {
      if (offset[k + 1]! === offset[k]!) continue
      walked.push(k)
      const s = md.series[this.slots[k]!]!
      toDay = Math.max(toDay, s.days[barOf[offset[k + 1]! - 1]!]!)
    }
    if (walked.length === 0) return
    const names = this.columns.map((c) => c.name)
    const next = Int32Array.from(walked, (k) => offset[k]!)
    const firstBar = new Map(walked.map((k) => [this.slots[k]!, barOf[offset[k]!]!]))
    const walk = new DailyWalk(md, {
      slots: walked.map((k) => this.slots[k]!),
      start: (slot) => firstBar.get(slot)!,
      fresh: false,
      toDay,
      inputs: inputsFor(names),
      columns: names,
      wanted: (w, j) => next[w]! < offset[walked[w]! + 1]! && barOf[next[w]!] === j
    })
    const sources = this.columns.map((c) => walk.row.get(c.name) as Extract<Column, { kind: "numeric" | "boolean" }>)
    const kept = this.columns
    yield* walk.run((w) => {
      const p = next[w]!++
      for (let c = 0; c < kept.length; c++) {
        const src = sources[c]!
        const dst = kept[c]!
        dst.valid[p] = src.valid[0]!
        dst.values[p] = src.values[0]!
      }
    })
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
