/**
 * The built-in boolean signals (flags) of every ticker on every day of its
 * history, and how many tickers had each flag set on each day.
 *
 * Per ticker, each daily bar gets two bit sets over the flags: which flags
 * were TRUE in that day's row and which were not NULL (37 flags: two 32-bit
 * words each, 16 bytes a bar, about 110 MB for 13k tickers × 512 bars).
 * From those, per day and flag, the number of tickers whose as-of row of
 * that day had the flag TRUE, and the number of tickers with an as-of row at
 * all — the as-of rule of `snapshotAsOf`: a ticker's latest bar on or before
 * the day, at most `CARRY_FORWARD_DAYS` older. So the count of a day equals
 * the `total` of the signal's as-of matches on that day.
 *
 * Lifecycle (driven by the caller, `sync` after every published snapshot):
 * - the first `sync` walks every ticker's whole history once (the simulated
 *   history is regenerated from the seed at every start, so nothing is
 *   stored);
 * - at each daily close the session's final bars join the series: the next
 *   `sync` computes just those bars, from the market's state before them;
 * - an import replaces a ticker's series object: the next `sync` walks that
 *   ticker's history again;
 * - the per-day counts are recomputed from the bits after every `sync` that
 *   changed something (after appended bars, only the days from the first new
 *   bar on), and published as one immutable value.
 *
 * Rows come from `DailyWalk` with fundamentals but without news (no flag
 * depends on news), so every bit is the flag of the as-of row.
 *
 * The first build (tens of seconds of CPU on the full market) can run in a
 * worker thread over the same series (`flagWorker.ts`): the worker's history
 * hands its bits and counts over (`bits`), and the service's history takes
 * them (`adopt`), as if it had walked the series itself.
 */
import { FLAGS } from "../catalog.js"
import { CARRY_FORWARD_DAYS } from "../engine/MarketData.js"
import type { BooleanColumn } from "../snapshot.js"
import type { BarSeries } from "./barSeries.js"
import { DailyWalk, type WalkMarket } from "./dailyWalk.js"

/** The flag names, in catalog order. */
export const FLAG_NAMES: ReadonlyArray<string> = FLAGS.map((c) => c.name)

/** Per-day counts of every flag over every ticker; immutable once published. */
export interface FlagCounts {
  /** epoch day of the first counted day */
  readonly firstDay: number
  /**
   * the last day whose rows are final for every asset class: the latest day
   * for which both the equities' and the crypto assets' bars are in (a
   * day's crypto bar arrives at 24:00 UTC, after the NYSE close)
   */
  readonly lastDay: number
  /** `counts[(day - firstDay) * flags + f]`: tickers with flag f TRUE in their as-of row of `day` */
  readonly counts: Int32Array
  /** `totals[day - firstDay]`: tickers with an as-of row on `day` */
  readonly totals: Int32Array
  /** increases with every change */
  readonly version: number
}

/** Everything a history computed, handed from one thread to another (the arrays are transferred). */
export interface FlagBits {
  readonly trues: Array<Uint32Array>
  readonly known: Array<Uint32Array>
  /** per ticker: bars computed */
  readonly done: Int32Array
  readonly counts: Omit<FlagCounts, "version">
}

export class FlagHistory {
  readonly flagIndex: ReadonlyMap<string, number>
  private readonly words: number
  /** per ticker: the series object the bits were computed from */
  private readonly series: Array<BarSeries | undefined>
  /** per ticker: `words` words per bar, bit f set when flag f is TRUE */
  private readonly trues: Array<Uint32Array>
  /** per ticker: bit f set when flag f is not NULL */
  private readonly known: Array<Uint32Array>
  /** per ticker: bars computed (a prefix of the series) */
  private readonly done: Int32Array
  private published: FlagCounts | undefined
  private version = 0

  constructor(
    private readonly size: number,
    private readonly isCrypto: Uint8Array,
    readonly flags: ReadonlyArray<string> = FLAG_NAMES
  ) {
    this.flagIndex = new Map(flags.map((f, k) => [f, k]))
    this.words = Math.max(1, Math.ceil(flags.length / 32))
    this.series = new Array(size).fill(undefined)
    this.trues = Array.from({ length: size }, () => new Uint32Array(0))
    this.known = Array.from({ length: size }, () => new Uint32Array(0))
    this.done = new Int32Array(size)
  }

  /** The latest published counts; undefined before the first `sync` finished. */
  get counts(): FlagCounts | undefined {
    return this.published
  }

  /** Tickers whose series the bits no longer describe (imported since), or that were never computed. */
  stale(md: WalkMarket): Array<number> {
    const out: Array<number> = []
    for (let i = 0; i < this.size; i++) if (md.series[i] !== this.series[i]) out.push(i)
    return out
  }

  /** Whether ticker `i`'s bits describe the market's current series of it. */
  isCurrent(md: WalkMarket, i: number): boolean {
    return md.series[i] === this.series[i]
  }

  /**
   * Brings the bits up to the market's series: whole histories of tickers
   * never computed or replaced, and new bars of the others; then republishes
   * the counts. Yields between slices of work; returns whether anything changed.
   *
   * Whole histories are walked `batch` tickers at a time: a walk holds an
   * indicator state (~14 KB) per ticker it walks, ~186 MB for all 13,047 at
   * once; in batches of 1,024, ~15 MB. The bits are the same either way.
   */
  *sync(md: WalkMarket, batch = Number.POSITIVE_INFINITY): Generator<void, boolean> {
    const replaced: Array<number> = []
    const grown: Array<number> = []
    for (let i = 0; i < this.size; i++) {
      const s = md.series[i]
      if (s !== this.series[i]) replaced.push(i)
      else if (s.length > this.done[i]) grown.push(i)
    }
    if (replaced.length === 0 && grown.length === 0 && this.published !== undefined) return false
    // days before the first new bar keep their counts when bars were only appended
    let changedFrom = replaced.length > 0 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY
    for (const i of grown) changedFrom = Math.min(changedFrom, md.series[i].days[this.done[i]])
    for (let k = 0; k < replaced.length; k += batch) yield* this.walk(md, replaced.slice(k, k + batch), true)
    if (grown.length > 0) yield* this.walk(md, grown, false)
    this.publish(changedFrom)
    return true
  }

  private *walk(md: WalkMarket, slots: ReadonlyArray<number>, fresh: boolean): Generator<void, void> {
    let toDay = Number.NEGATIVE_INFINITY
    for (const i of slots) {
      const s = md.series[i]
      if (s.length > 0 && s.days[s.length - 1] > toDay) toDay = s.days[s.length - 1]
    }
    const W = this.words
    const n = slots.length
    const walk = new DailyWalk(md, {
      slots,
      start: (i) => (fresh ? 0 : this.done[i]),
      fresh,
      toDay,
      inputs: "fundamentals"
    })
    const trues: Array<Uint32Array> = new Array(n)
    const known: Array<Uint32Array> = new Array(n)
    const ends = new Int32Array(n)
    for (let k = 0; k < n; k++) {
      const i = slots[k]
      const length = md.series[i].length
      ends[k] = length
      trues[k] = new Uint32Array(length * W)
      known[k] = new Uint32Array(length * W)
      if (!fresh) {
        trues[k].set(this.trues[i].subarray(0, this.done[i] * W))
        known[k].set(this.known[i].subarray(0, this.done[i] * W))
      }
      // every ticker's bit arrays at once is ~100 MB to allocate: in slices too
      if (k % 256 === 255) yield
    }
    const columns = this.flags.map((name) => {
      const col = walk.row.get(name)
      if (col === undefined || col.kind !== "boolean") throw new Error(`flag ${name} is not a computed boolean column`)
      return col as BooleanColumn
    })
    const F = columns.length
    yield* walk.run((k, j) => {
      const t = trues[k]
      const v = known[k]
      for (let f = 0; f < F; f++) {
        const col = columns[f]
        if (col.valid[0] === 0) continue
        const at = j * W + (f >>> 5)
        const bit = 1 << (f & 31)
        v[at] |= bit
        if (col.values[0] === 1) t[at] |= bit
      }
    })
    for (let k = 0; k < n; k++) {
      const i = slots[k]
      this.series[i] = walk.series[k]
      this.trues[i] = trues[k]
      this.known[i] = known[k]
      this.done[i] = ends[k]
    }
  }

  /** What this history holds (after a `sync`), to hand to another thread. */
  bits(): FlagBits {
    const c = this.published
    if (c === undefined) throw new Error("the flag history has not been built")
    return {
      trues: this.trues.slice(),
      known: this.known.slice(),
      done: this.done.slice(),
      counts: { firstDay: c.firstDay, lastDay: c.lastDay, counts: c.counts, totals: c.totals }
    }
  }

  /**
   * Takes what another history computed from `series` (the series objects,
   * one per ticker, whose bars it was given): afterwards this history is as
   * if it had synced with those series itself; a `sync` then adds what
   * changed since.
   */
  adopt(series: ReadonlyArray<BarSeries>, bits: FlagBits): void {
    if (series.length !== this.size || bits.trues.length !== this.size) throw new Error("flag bits of another market")
    for (let i = 0; i < this.size; i++) {
      this.series[i] = series[i]
      this.trues[i] = bits.trues[i]
      this.known[i] = bits.known[i]
      this.done[i] = bits.done[i]
    }
    this.version++
    this.published = { ...bits.counts, version: this.version }
  }

  /**
   * Recomputes the per-day counts from the bits and publishes them: the days
   * from `changedFrom` on (every day when the first day moved or nothing was
   * published yet); the counts of earlier days are kept.
   */
  private publish(changedFrom = Number.NEGATIVE_INFINITY): void {
    let firstDay = Number.POSITIVE_INFINITY
    let lastEquity = Number.NEGATIVE_INFINITY
    let lastCrypto = Number.NEGATIVE_INFINITY
    for (let i = 0; i < this.size; i++) {
      const s = this.series[i]
      const n = this.done[i]
      if (s === undefined || n === 0) continue
      if (s.days[0] < firstDay) firstDay = s.days[0]
      const last = s.days[n - 1]
      if (this.isCrypto[i] === 1) lastCrypto = Math.max(lastCrypto, last)
      else lastEquity = Math.max(lastEquity, last)
    }
    const lastDay = Math.min(
      lastEquity === Number.NEGATIVE_INFINITY ? lastCrypto : lastEquity,
      lastCrypto === Number.NEGATIVE_INFINITY ? lastEquity : lastCrypto
    )
    const F = this.flags.length
    const W = this.words
    const days = Number.isFinite(firstDay) && lastDay >= firstDay ? lastDay - firstDay + 1 : 0
    const old = this.published
    const keep =
      old === undefined || old.firstDay !== firstDay || days === 0
        ? 0
        : Math.max(0, Math.min(changedFrom - firstDay, old.lastDay - firstDay + 1, days))
    const start = firstDay + keep
    const span = days - keep
    const diff = new Int32Array((span + 1) * F)
    const totalDiff = new Int32Array(span + 1)
    for (let i = 0; i < this.size && span > 0; i++) {
      const s = this.series[i]
      const n = this.done[i]
      if (s === undefined) continue
      const t = this.trues[i]
      for (let j = Math.max(0, this.barAtOrBefore(i, start)); j < n; j++) {
        const d0 = s.days[j]
        if (d0 > lastDay) break
        const nextBar = j + 1 < s.length ? s.days[j + 1] - 1 : Number.POSITIVE_INFINITY
        const d1 = Math.min(nextBar, d0 + CARRY_FORWARD_DAYS, lastDay)
        if (d1 < start) continue
        const a = Math.max(d0, start) - start
        const b = d1 - start + 1
        totalDiff[a]++
        totalDiff[b]--
        for (let w = 0; w < W; w++) {
          let word = t[j * W + w]
          while (word !== 0) {
            const low = word & -word
            const f = w * 32 + (31 - Math.clz32(low))
            diff[a * F + f]++
            diff[b * F + f]--
            word ^= low
          }
        }
      }
    }
    const counts = new Int32Array(days * F)
    const totals = new Int32Array(days)
    if (old !== undefined && keep > 0) {
      counts.set(old.counts.subarray(0, keep * F))
      totals.set(old.totals.subarray(0, keep))
    }
    for (let x = 0; x < span; x++) {
      const d = keep + x
      totals[d] = (x > 0 ? totals[d - 1] : 0) + totalDiff[x]
      for (let f = 0; f < F; f++) counts[d * F + f] = (x > 0 ? counts[(d - 1) * F + f] : 0) + diff[x * F + f]
    }
    this.version++
    this.published = {
      firstDay: days > 0 ? firstDay : 0,
      lastDay: days > 0 ? lastDay : -1,
      counts,
      totals,
      version: this.version
    }
  }

  // ------------------------------------------------------------ reads

  /** Bytes held by the bits and the published counts. */
  get bytes(): number {
    let n = 0
    for (let i = 0; i < this.size; i++) n += this.trues[i].byteLength + this.known[i].byteLength
    const c = this.published
    return n + (c === undefined ? 0 : c.counts.byteLength + c.totals.byteLength)
  }

  /** Bars of ticker `i` with computed flags. */
  barCount(i: number): number {
    return this.done[i]
  }

  /** Epoch day of ticker `i`'s bar `j`. */
  barDay(i: number, j: number): number {
    return (this.series[i] as BarSeries).days[j]
  }

  /** The close of ticker `i`'s bar `j`. */
  barClose(i: number, j: number): number {
    return (this.series[i] as BarSeries).close[j]
  }

  /** Flag `f` in ticker `i`'s row of bar `j`: true, false or null. */
  value(i: number, j: number, f: number): boolean | null {
    const at = j * this.words + (f >>> 5)
    const bit = 1 << (f & 31)
    if ((this.known[i][at] & bit) === 0) return null
    return (this.trues[i][at] & bit) !== 0
  }

  /** Index of ticker `i`'s last computed bar on or before `day`, or -1. */
  barAtOrBefore(i: number, day: number): number {
    const s = this.series[i]
    if (s === undefined) return -1
    let lo = 0
    let hi = this.done[i] - 1
    let found = -1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (s.days[mid] <= day) {
        found = mid
        lo = mid + 1
      } else hi = mid - 1
    }
    return found
  }

  /**
   * For a set of tickers (`members`, slots) on `day`: how many have an as-of
   * row (latest bar at most CARRY_FORWARD_DAYS old) and how many of those
   * have flag `f` TRUE in it.
   */
  countAmong(members: ReadonlyArray<number>, f: number, day: number): { count: number; total: number } {
    let count = 0
    let total = 0
    for (const i of members) {
      const j = this.barAtOrBefore(i, day)
      if (j < 0 || day - this.barDay(i, j) > CARRY_FORWARD_DAYS) continue
      total++
      if (this.value(i, j, f) === true) count++
    }
    return { count, total }
  }
}
