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
 */
export const PRICE_SCALE = 10_000

/** `x` × PRICE_SCALE as an int32, when that represents `x` exactly; else undefined */
const scaled = (x: number): number | undefined => {
  const n = Math.round(x * PRICE_SCALE)
  return n <= 0x7fff_ffff && n >= -0x8000_0000 && Object.is(n / PRICE_SCALE, x) ? n : undefined
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

  /**
   * `scratch` (at least 3 × `capacity` long): room for the opens, highs and lows while the series
   * is built, shared by many series in one allocation; `compact` moves them out. Building 13,047
   * series this way leaves no holes in the process's heap when the doubles make way for int32.
   */
  constructor(capacity = 64, scratch?: Float64Array) {
    this.days = new Int32Array(capacity)
    if (scratch !== undefined && scratch.length >= 3 * capacity) {
      this.open = scratch.subarray(0, capacity)
      this.high = scratch.subarray(capacity, 2 * capacity)
      this.low = scratch.subarray(2 * capacity, 3 * capacity)
      this.borrowed = true
    } else {
      this.open = new Float64Array(capacity)
      this.high = new Float64Array(capacity)
      this.low = new Float64Array(capacity)
    }
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
    const price = (a: Float64Array | Int32Array) =>
      a instanceof Int32Array ? copy(a, (n) => new Int32Array(n)) : copy(a, (n) => new Float64Array(n))
    this.days = copy(this.days, (n) => new Int32Array(n))
    this.open = price(this.open)
    this.high = price(this.high)
    this.low = price(this.low)
    this.borrowed = false
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
    if (this.ohlScale !== 1) {
      const o = scaled(open)
      const h = scaled(high)
      const l = scaled(low)
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
    const o = new Int32Array(cap)
    const h = new Int32Array(cap)
    const l = new Int32Array(cap)
    for (let j = 0; j < n; j++) {
      const a = scaled(this.open[j])
      const b = scaled(this.high[j])
      const c = scaled(this.low[j])
      if (a === undefined || b === undefined || c === undefined) {
        // doubles it is: of its own, not views of the scratch buffer
        if (this.borrowed) {
          this.open = Float64Array.from(this.open)
          this.high = Float64Array.from(this.high)
          this.low = Float64Array.from(this.low)
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
      const out = new Float64Array(a.length)
      for (let j = 0; j < this.length; j++) out[j] = a[j]! / this.ohlScale
      return out
    }
    this.open = decode(this.open)
    this.high = decode(this.high)
    this.low = decode(this.low)
    this.ohlScale = 1
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
      out.push(d, this.openAt(i), this.highAt(i), this.lowAt(i), this.close[i], this.volume[i])
    }
    while (j < bars.length) pushImported()
    out.compact()
    return out
  }
}
