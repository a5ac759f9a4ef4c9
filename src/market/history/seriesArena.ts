/**
 * Room for many series' arrays in a few buffers of shared memory (`BarSeries.scaledIn`): a walk's
 * stretches build their series here, and another thread may fill an arena for this one
 * (`parts`, `over`: `stretchRead.ts`).
 */
import { type BarSeries, PRICE_SCALE } from "./barSeries.js"
import { float64s, int32s, uint32s } from "./sharedSlabs.js"

/** Room for the days, closes and volumes of many series (`capacity` bars in all), and then their opens, highs and lows. */
export class SeriesArena {
  private readonly days: Int32Array
  private readonly close: Float64Array
  private readonly volume: Uint32Array
  private ohl: Int32Array | undefined
  private at = 0
  private ohlAt = 0

  constructor(
    private readonly capacity: number,
    /** another arena's memory (`over`) */
    parts?: ArenaParts
  ) {
    this.days = parts?.days ?? int32s(capacity)
    this.close = parts?.close ?? float64s(capacity)
    this.volume = parts?.volume ?? uint32s(capacity)
    this.ohl = parts?.ohl
    this.at = parts?.at ?? 0
    this.ohlAt = parts?.ohlAt ?? 0
  }

  /** An arena over `parts`' memory as its owner had handed it out (another thread's view of it). */
  static over(parts: ArenaParts): SeriesArena {
    return new SeriesArena(parts.capacity, parts)
  }

  /** This arena's memory and what it has handed out, for another thread (`over`). */
  parts(): ArenaParts {
    this.ohl ??= int32s(3 * this.capacity)
    return {
      capacity: this.capacity,
      days: this.days,
      close: this.close,
      volume: this.volume,
      ohl: this.ohl,
      at: this.at,
      ohlAt: this.ohlAt
    }
  }

  /**
   * Emptied as `reuse` empties it, without zeroing: another thread emptied it (`over(parts()).reuse`) and
   * filled it, and this one then takes the same series in the same order.
   */
  rewind(): SeriesArena {
    this.at = 0
    this.ohlAt = 0
    return this
  }

  /** whether `capacity` bars fit in it */
  fits(capacity: number): boolean {
    return capacity <= this.capacity
  }

  /** whether `s` keeps its bars in this arena's memory (not grown, widened or moved out of it) */
  holds(s: BarSeries): boolean {
    return (
      this.ohl !== undefined &&
      within(s.days, this.days) &&
      within(s.close, this.close) &&
      within(s.volume, this.volume) &&
      within(s.open, this.ohl) &&
      s.ohlScale === PRICE_SCALE
    )
  }

  /**
   * This arena emptied for another set of series of at most `capacity` bars, what it handed out zeroed as a
   * new one's is; undefined when they do not fit. Its earlier series must not be read again.
   */
  reuse(capacity: number): SeriesArena | undefined {
    if (capacity > this.capacity) return undefined
    this.days.fill(0, 0, this.at)
    this.close.fill(0, 0, this.at)
    this.volume.fill(0, 0, this.at)
    this.ohl?.fill(0, 0, this.ohlAt)
    this.at = 0
    this.ohlAt = 0
    return this
  }

  /** the next `n` bars' days, closes and volumes (undefined when they do not fit) */
  take(n: number): { days: Int32Array; close: Float64Array; volume: Uint32Array } | undefined {
    if (this.at + n > this.capacity) return undefined
    const from = this.at
    this.at += n
    const to = this.at
    return {
      days: this.days.subarray(from, to),
      close: this.close.subarray(from, to),
      volume: this.volume.subarray(from, to)
    }
  }

  /** the next `n` bars' opens, highs and lows as int32, allocated on first use (after the build); undefined when they do not fit */
  takeOhl(n: number): Int32Array | undefined {
    this.ohl ??= int32s(3 * this.capacity)
    if (this.ohlAt + 3 * n > this.ohl.length) return undefined
    const from = this.ohlAt
    this.ohlAt += 3 * n
    return this.ohl.subarray(from, this.ohlAt)
  }
}

/** whether `a` is a view inside `room` (small arrays share slabs: the buffer alone does not tell) */
const within = (a: ArrayBufferView, room: ArrayBufferView): boolean =>
  a.buffer === room.buffer &&
  a.byteOffset >= room.byteOffset &&
  a.byteOffset + a.byteLength <= room.byteOffset + room.byteLength

/** A `SeriesArena`'s memory as another thread receives it (shared, not copied), and what it had handed out. */
export interface ArenaParts {
  readonly capacity: number
  readonly days: Int32Array
  readonly close: Float64Array
  readonly volume: Uint32Array
  readonly ohl: Int32Array
  readonly at: number
  readonly ohlAt: number
}
