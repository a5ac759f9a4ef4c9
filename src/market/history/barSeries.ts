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
 */
export class BarSeries {
  length = 0
  days: Int32Array
  open: Float64Array
  high: Float64Array
  low: Float64Array
  close: Float64Array
  volume: Float64Array | Uint32Array

  constructor(capacity = 64) {
    this.days = new Int32Array(capacity)
    this.open = new Float64Array(capacity)
    this.high = new Float64Array(capacity)
    this.low = new Float64Array(capacity)
    this.close = new Float64Array(capacity)
    this.volume = new Uint32Array(capacity)
  }

  private grow(min: number): void {
    const capacity = Math.max(min, this.days.length * 2)
    const copy = <T extends Int32Array | Float64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(capacity)
      b.set(a.subarray(0, this.length))
      return b
    }
    this.days = copy(this.days, (n) => new Int32Array(n))
    this.open = copy(this.open, (n) => new Float64Array(n))
    this.high = copy(this.high, (n) => new Float64Array(n))
    this.low = copy(this.low, (n) => new Float64Array(n))
    this.close = copy(this.close, (n) => new Float64Array(n))
    this.volume =
      this.volume instanceof Uint32Array
        ? copy(this.volume, (n) => new Uint32Array(n))
        : copy(this.volume, (n) => new Float64Array(n))
  }

  /** Appends a bar; its day must be after the last one. */
  push(day: number, open: number, high: number, low: number, close: number, volume: number): void {
    if (this.length > 0 && day <= this.days[this.length - 1]) {
      throw new RangeError(`bar day ${day} is not after ${this.days[this.length - 1]}`)
    }
    if (this.length === this.days.length) this.grow(this.length + 1)
    if (this.volume instanceof Uint32Array && !(Number.isInteger(volume) && volume >= 0 && volume <= 0xffff_ffff)) {
      this.volume = Float64Array.from(this.volume)
    }
    const i = this.length++
    this.days[i] = day
    this.open[i] = open
    this.high[i] = high
    this.low[i] = low
    this.close[i] = close
    this.volume[i] = volume
  }

  /** Index of the last bar with day ≤ `day`, or -1. */
  indexAtOrBefore(day: number): number {
    let lo = 0
    let hi = this.length - 1
    let found = -1
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
      out.push(d, this.open[i], this.high[i], this.low[i], this.close[i], this.volume[i])
    }
    while (j < bars.length) pushImported()
    return out
  }
}
