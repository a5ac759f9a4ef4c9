/**
 * A ticker's daily bars as growable typed arrays (days ascending). The
 * history keeps one per ticker: simulated bars regenerated from the seed,
 * with imported bars laid over them.
 *
 * Volumes are whole numbers below 2^32 almost always (simulated ones are
 * rounded): they are kept as a `Uint32Array`, half the memory (~29 MB of
 * 13,047 tickers' history), until a bar's volume is not such a number (a
 * fractional crypto volume, say), when the series' volumes become a
 * `Float64Array`. Either way `volume[j]` is the number pushed.
 *
 * Opens, highs and lows are prices on a tick grid (cents, or 1/10,000 below
 * $1 and for crypto): once a series is built (`compact`) they are kept as
 * `Int32Array`s of the price × PRICE_SCALE when every one is exactly that
 * (`ohlScale` = PRICE_SCALE; ~86 MB less for 13,047 tickers), as doubles
 * otherwise (`ohlScale` = 1). Read them with `openAt`/`highAt`/`lowAt`, or
 * divide by `ohlScale`: the same number that was pushed, bit for bit. Closes
 * (read everywhere) stay doubles.
 *
 * The arrays live in `SharedArrayBuffer`s (`sharedSlabs.ts`): another thread
 * (the flag history's worker, see `flagWorker.ts`) reads a series without a
 * copy. Bars are only ever appended past `length` or moved to new arrays
 * (growth, compaction), so a reader that took `length` once reads bars nobody
 * writes. The series built together share a few buffers (`seriesArena.ts`):
 * handing a thread 13,047 series' 78,000 buffers of their own took 5.5 s of
 * the sender's thread, the views of a handful take milliseconds.
 */
import type { DailyBar } from "../indicators/state.js"
import type { SeriesArena } from "./seriesArena.js"
import { float64s, float64sOf, int32s, uint32s } from "./sharedSlabs.js"

export const PRICE_SCALE = 10_000

/** A series' arrays as another thread receives them (shared, not copied). */
export interface SeriesArrays {
  readonly length: number
  readonly ohlScale: number
  readonly days: Int32Array
  readonly open: Float64Array | Int32Array
  readonly high: Float64Array | Int32Array
  readonly low: Float64Array | Int32Array
  readonly close: Float64Array
  readonly volume: Float64Array | Uint32Array
}

/** `x` × PRICE_SCALE as an int32 when that decodes to `x` bit for bit (-0 does not: an int32 has no sign of zero), else undefined */
export const scaledPrice = (x: number): number | undefined => {
  const n = Math.round(x * PRICE_SCALE)
  return n <= 0x7fff_ffff && n >= -0x8000_0000 && Object.is((n | 0) / PRICE_SCALE, x) ? n | 0 : undefined
}

/** A volume a Uint32Array holds bit for bit: whole, 0 to 2^32 - 1, not -0. */
export const wholeU32 = (v: number): boolean => Number.isInteger(v) && v >= 0 && v <= 0xffff_ffff && !Object.is(v, -0)

/** Bars as one array per field (days ascending), as a group's stored bars are read (`deepBars.ts`). */
export interface BarColumns {
  readonly days: Int32Array
  readonly open: Float64Array
  readonly high: Float64Array
  readonly low: Float64Array
  readonly close: Float64Array
  readonly volume: Float64Array
}

export class BarSeries {
  length = 0
  days: Int32Array
  open: Float64Array | Int32Array
  high: Float64Array | Int32Array
  low: Float64Array | Int32Array
  /** what `open`, `high` and `low` hold per unit of price: 1 (doubles) or PRICE_SCALE (int32) */
  ohlScale = 1
  close: Float64Array
  volume: Float64Array | Uint32Array

  /** `open`, `high` and `low` are views of a caller's scratch buffer (until `compact` or growth) */
  private borrowed = false

  /** the arena the arrays are views of (`compact` takes its int32s there too) */
  private readonly arena: SeriesArena | undefined

  /**
   * `scratch` (at least 3 × `capacity` long): room for the opens, highs and lows while the series
   * is built, shared by many series in one allocation; `compact` moves them out. Building 13,047
   * series this way leaves no holes in the process's heap when the doubles make way for int32.
   * `arena`: where the days, closes and volumes live, and the compacted int32s.
   */
  constructor(capacity = 64, scratch?: Float64Array, arena?: SeriesArena) {
    this.arena = arena
    const room = arena?.take(capacity)
    this.days = room?.days ?? int32s(capacity)
    if (scratch !== undefined && scratch.length >= 3 * capacity) {
      this.open = scratch.subarray(0, capacity)
      this.high = scratch.subarray(capacity, 2 * capacity)
      this.low = scratch.subarray(2 * capacity, 3 * capacity)
      this.borrowed = true
    } else {
      this.open = float64s(capacity)
      this.high = float64s(capacity)
      this.low = float64s(capacity)
    }
    this.close = room?.close ?? float64s(capacity)
    this.volume = room?.volume ?? uint32s(capacity)
  }

  /**
   * An empty series whose opens, highs and lows are int32 ticks from the start (`ohlScale` =
   * PRICE_SCALE), every array a view of `arena`: no doubles scratch to fill and compact (a bar off
   * the tick grid turns them into doubles, as `push` does).
   */
  static scaledIn(capacity: number, arena: SeriesArena): BarSeries {
    const room = arena.take(capacity)
    const ohl = arena.takeOhl(capacity)
    if (room === undefined || ohl === undefined) return new BarSeries(capacity)
    const s = new BarSeries(0)
    s.days = room.days
    s.close = room.close
    s.volume = room.volume
    s.open = ohl.subarray(0, capacity)
    s.high = ohl.subarray(capacity, 2 * capacity)
    s.low = ohl.subarray(2 * capacity, 3 * capacity)
    s.ohlScale = PRICE_SCALE
    return s
  }

  /** A series over arrays another thread shares (`arrays`), with the bars it held then. */
  static over(arrays: SeriesArrays): BarSeries {
    const s = new BarSeries(0)
    s.length = arrays.length
    s.ohlScale = arrays.ohlScale
    s.days = arrays.days
    s.open = arrays.open
    s.high = arrays.high
    s.low = arrays.low
    s.close = arrays.close
    s.volume = arrays.volume
    return s
  }

  /** The arrays and length as they are now, to hand to another thread. */
  arrays(): SeriesArrays {
    const { length, ohlScale, days, open, high, low, close, volume } = this
    return { length, ohlScale, days, open, high, low, close, volume }
  }

  private grow(min: number): void {
    const capacity = Math.max(min, this.days.length * 2)
    const copy = <T extends Int32Array | Float64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(capacity)
      b.set(a.subarray(0, this.length))
      return b
    }
    const price = (a: Float64Array | Int32Array) => (a instanceof Int32Array ? copy(a, int32s) : copy(a, float64s))
    this.days = copy(this.days, int32s)
    this.open = price(this.open)
    this.high = price(this.high)
    this.low = price(this.low)
    this.borrowed = false
    this.close = copy(this.close, float64s)
    this.volume = this.volume instanceof Uint32Array ? copy(this.volume, uint32s) : copy(this.volume, float64s)
  }

  /** Room for `n` more bars without growing. */
  reserve(n: number): void {
    if (this.length + n > this.days.length) this.grow(this.length + n)
  }

  /** Appends a bar; its day must be after the last one. */
  push(day: number, open: number, high: number, low: number, close: number, volume: number): void {
    if (this.length > 0 && day <= this.days[this.length - 1]) {
      throw new RangeError(`bar day ${day} is not after ${this.days[this.length - 1]}`)
    }
    if (this.length === this.days.length) this.grow(this.length + 1)
    if (this.volume instanceof Uint32Array && !wholeU32(volume)) {
      this.volume = float64sOf(this.volume)
    }
    const i = this.length++
    this.days[i] = day
    if (this.ohlScale !== 1) {
      const o = scaledPrice(open)
      const h = scaledPrice(high)
      const l = scaledPrice(low)
      if (o !== undefined && h !== undefined && l !== undefined) {
        open = o
        high = h
        low = l
      } else this.expand()
    }
    this.open[i] = open
    this.high[i] = high
    this.low[i] = low
    this.close[i] = close
    this.volume[i] = volume
  }

  /**
   * Appends every bar of `src` (its first day after this one's last): copied array by array where
   * the two keep their prices alike (both scaled or both doubles), bar by bar otherwise. With
   * `closesOnly`, their days and closes alone.
   */
  appendSeries(src: BarSeries, closesOnly = false): void {
    const n = src.length
    if (n === 0) return
    if (this.length > 0 && src.days[0] <= this.days[this.length - 1]) {
      throw new RangeError(`bar day ${src.days[0]} is not after ${this.days[this.length - 1]}`)
    }
    if (closesOnly) {
      // the days and closes alone (a walk over closes: `engine/deepWalk.ts`); the rest left as it was
      if (this.length + n > this.days.length) this.grow(this.length + n)
      this.days.set(src.days.subarray(0, n), this.length)
      this.close.set(src.close.subarray(0, n), this.length)
      this.length += n
      return
    }
    if (this.ohlScale !== src.ohlScale || (this.volume instanceof Uint32Array && src.volume instanceof Float64Array)) {
      for (let j = 0; j < n; j++)
        this.push(src.days[j], src.openAt(j), src.highAt(j), src.lowAt(j), src.close[j], src.volume[j])
      return
    }
    if (this.length + n > this.days.length) this.grow(this.length + n)
    const at = this.length
    this.days.set(src.days.subarray(0, n), at)
    this.open.set(src.open.subarray(0, n), at)
    this.high.set(src.high.subarray(0, n), at)
    this.low.set(src.low.subarray(0, n), at)
    this.close.set(src.close.subarray(0, n), at)
    this.volume.set(src.volume.subarray(0, n), at)
    this.length += n
  }

  openAt(j: number): number {
    return this.open[j] / this.ohlScale
  }
  highAt(j: number): number {
    return this.high[j] / this.ohlScale
  }
  lowAt(j: number): number {
    return this.low[j] / this.ohlScale
  }

  /**
   * Keeps opens, highs and lows as scaled int32 when every one of them is exactly that (call it
   * once the series is built: bars pushed later stay scaled while they can).
   */
  compact(): void {
    if (this.ohlScale !== 1) return
    const n = this.length
    const cap = this.days.length
    const room = this.arena?.takeOhl(cap) ?? int32s(3 * cap)
    const o = room.subarray(0, cap)
    const h = room.subarray(cap, 2 * cap)
    const l = room.subarray(2 * cap, 3 * cap)
    for (let j = 0; j < n; j++) {
      const a = scaledPrice(this.open[j])
      const b = scaledPrice(this.high[j])
      const c = scaledPrice(this.low[j])
      if (a === undefined || b === undefined || c === undefined) {
        // doubles it is: of its own, not views of the scratch buffer
        if (this.borrowed) {
          this.open = float64sOf(this.open)
          this.high = float64sOf(this.high)
          this.low = float64sOf(this.low)
          this.borrowed = false
        }
        return
      }
      o[j] = a
      h[j] = b
      l[j] = c
    }
    this.open = o
    this.high = h
    this.low = l
    this.ohlScale = PRICE_SCALE
    this.borrowed = false
  }

  /** opens, highs and lows back to doubles (a bar off the grid arrived) */
  private expand(): void {
    const decode = (a: Float64Array | Int32Array) => {
      const out = float64s(a.length)
      for (let j = 0; j < this.length; j++) out[j] = a[j]! / this.ohlScale
      return out
    }
    this.open = decode(this.open)
    this.high = decode(this.high)
    this.low = decode(this.low)
    this.ohlScale = 1
  }

  /**
   * Index of the last bar with day ≤ `day`, or -1; searched within bars `from` … `to` when the caller
   * knows it is there or `from - 1` (a bar a day at most: `to` ≤ `from` + the days since bar `from`).
   */
  indexAtOrBefore(day: number, from = 0, to = this.length - 1): number {
    let lo = from
    let hi = Math.min(to, this.length - 1)
    let found = from - 1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (this.days[mid] <= day) {
        found = mid
        lo = mid + 1
      } else hi = mid - 1
    }
    return found
  }

  /** Index of the first bar with day ≥ `day` (may equal `length`). */
  indexAtOrAfter(day: number): number {
    const i = this.indexAtOrBefore(day)
    return i >= 0 && this.days[i] === day ? i : i + 1
  }

  get firstDay(): number | undefined {
    return this.length > 0 ? this.days[0] : undefined
  }

  get lastDay(): number | undefined {
    return this.length > 0 ? this.days[this.length - 1] : undefined
  }

  /** A new series with `bars` replacing every bar of this one within their day range. */
  overlay(
    bars: ReadonlyArray<{ day: number; open: number; high: number; low: number; close: number; volume: number }>
  ): BarSeries {
    if (bars.length === 0) return this
    const from = bars[0].day
    const to = bars[bars.length - 1].day
    const out = new BarSeries(this.length + bars.length)
    let j = 0
    const pushImported = () => {
      const b = bars[j++]
      out.push(b.day, b.open, b.high, b.low, b.close, b.volume)
    }
    for (let i = 0; i < this.length; i++) {
      const d = this.days[i]
      if (d >= from && d <= to) continue
      while (j < bars.length && bars[j].day < d) pushImported()
      out.push(d, this.openAt(i), this.highAt(i), this.lowAt(i), this.close[i], this.volume[i])
    }
    while (j < bars.length) pushImported()
    out.compact()
    return out
  }
}

/** A completed bar of a series as the indicator engine's DailyBar. */
export const barAt = (s: BarSeries, j: number): DailyBar => barInto(s, j, newBar())

/** A bar to refill with `barInto`. */
export const newBar = (): { -readonly [K in keyof DailyBar]: DailyBar[K] } => ({
  day: 0,
  open: 0,
  high: 0,
  low: 0,
  close: 0,
  volume: 0
})

/** Bar `j` of a series written into `out` (a loop over many bars refills one: a commit keeps no reference to its bar). */
export const barInto = (s: BarSeries, j: number, out: ReturnType<typeof newBar>): DailyBar => {
  out.day = s.days[j]
  out.open = s.openAt(j)
  out.high = s.highAt(j)
  out.low = s.lowAt(j)
  out.close = s.close[j]
  out.volume = s.volume[j]
  return out
}
