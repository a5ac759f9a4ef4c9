/**
 * Fixed-capacity history rings and the sliding-window sums and moments built
 * on them (the extremes: `windowExtreme.ts`). All are O(1) per pushed value
 * (amortized), allocate only at construction, and read the ring's
 * Float64Array directly: one class per kind of window, no per-read closure
 * or modulo.
 *
 * Every window is pushed right after its ring (so the newest value is at
 * back 0). A window's state is a function of the values pushed so far and
 * a fixed schedule of exact re-computations (every `length` pushes), so it
 * can be rebuilt from the bars alone (`rebuild`) and then continues
 * bit-for-bit like the original.
 */

/** The smallest power of two >= n (a ring's buffer size). */
export const pow2AtLeast = (n: number): number => {
  let c = 1
  while (c < n) c *= 2
  return c
}

/**
 * The last `capacity` values pushed, newest at `at(0)`. The buffer has a
 * power-of-two size (>= capacity): `buf[(count - 1 - back) & mask]` is the
 * value `back` pushes ago, for `back < min(count, capacity)`.
 */
export class Ring {
  readonly buf: Float64Array
  readonly mask: number
  count = 0

  /** `storage`, if given, is the buffer: `pow2AtLeast(capacity)` zeros (e.g. a view of a larger allocation). */
  constructor(
    readonly capacity: number,
    storage?: Float64Array
  ) {
    const size = pow2AtLeast(capacity)
    if (storage !== undefined && storage.length !== size) throw new RangeError("ring storage of the wrong size")
    this.buf = storage ?? new Float64Array(size)
    this.mask = size - 1
  }

  push(x: number): void {
    this.buf[this.count & this.mask] = x
    this.count++
  }

  /** The value `back` pushes ago (0 = newest); the caller keeps `back < min(count, capacity)`. */
  at(back: number): number {
    return this.buf[(this.count - 1 - back) & this.mask]
  }

  /** The retained values, oldest first. */
  toArray(): Array<number> {
    const n = Math.min(this.count, this.capacity)
    const out = new Array<number>(n)
    for (let i = 0; i < n; i++) out[i] = this.at(n - 1 - i)
    return out
  }

  /** Refill from `toArray()` output; `count` is the total ever pushed. */
  load(values: ReadonlyArray<number>, count: number): void {
    if (values.length !== Math.min(count, this.capacity)) throw new RangeError("ring checkpoint length mismatch")
    this.count = count - values.length
    for (const v of values) this.push(v)
  }

  /**
   * Refill as if `count` values had been pushed, the newest being `src[end - 1]`
   * (so `src[end - 1 - b]` is the value `b` pushes ago); needs `end >= min(count, capacity)`.
   * `src` may hold the values × `scale` (each is divided by it: x / 1 is x).
   */
  fill(src: ArrayLike<number>, end: number, count: number, scale = 1): void {
    if (end < Math.min(count, this.capacity)) throw new RangeError("ring: too few values to refill")
    this.fillLatest(src, end, count, scale)
  }

  /**
   * `fill` with as many of the newest values as `src` holds (at most the ring's): the older slots
   * are left as they are, for a restore whose readers read no further back (`restoreNeeds`).
   */
  fillLatest(src: ArrayLike<number>, end: number, count: number, scale = 1): void {
    const n = Math.min(count, this.capacity, end)
    const buf = this.buf
    const mask = this.mask
    // oldest first: two contiguous runs of the buffer
    const first = (count - n) & mask
    const run = Math.min(n, mask + 1 - first)
    const from = end - n
    for (let i = 0; i < run; i++) buf[first + i] = src[from + i] / scale
    for (let i = run; i < n; i++) buf[i - run] = src[from + i] / scale
    this.count = count
  }
}

/**
 * Sum of the last `length` values of a ring, kept as deviations from a shift
 * `k` (the newest value at the last re-summation). Every `length` pushes it
 * re-sums the window exactly, so rounding from the running add/subtract never
 * accumulates beyond one window's worth: O(1) amortized.
 *
 * The ring must retain `length + 1` values (the one leaving is at back `length`).
 */
export class WindowSum {
  pushed = 0
  k = 0
  s1 = 0
  sinceResum = 0

  constructor(
    readonly ring: Ring,
    readonly length: number
  ) {}

  get full(): boolean {
    return this.pushed >= this.length
  }

  push(): void {
    this.pushed++
    if (++this.sinceResum >= this.length) {
      this.resum()
      return
    }
    const ring = this.ring
    const buf = ring.buf
    const mask = ring.mask
    const head = ring.count - 1
    const k = this.k
    this.s1 += buf[head & mask] - k
    if (this.pushed > this.length) this.s1 -= buf[(head - this.length) & mask] - k
  }

  private resum(): void {
    const ring = this.ring
    const buf = ring.buf
    const mask = ring.mask
    const head = ring.count - 1
    const n = Math.min(this.pushed, this.length)
    const k = buf[head & mask]
    let s1 = 0
    for (let b = 0; b < n; b++) s1 += buf[(head - b) & mask] - k
    this.k = k
    this.s1 = s1
    this.sinceResum = 0
  }

  /**
   * Rebuild the state after `pushed` pushes from the source values alone
   * (`src[end - 1]` the newest, `src[end - 1 - b]` the value `b` pushes ago),
   * replaying from the last scheduled re-summation: bit-for-bit the state of
   * the original when `end >= min(pushed, 2 length - 1)`. With fewer values
   * it re-sums the current window instead, which agrees to rounding and is
   * bit-for-bit again from the next scheduled re-summation on. Needs
   * `end >= min(pushed, length + 1)`.
   */
  rebuild(src: ArrayLike<number>, end: number, pushed: number): void {
    const L = this.length
    this.pushed = pushed
    if (pushed < L) {
      // before the first re-summation: plain running sum from k = 0, oldest first
      let s1 = 0
      for (let b = pushed - 1; b >= 0; b--) s1 += src[end - 1 - b] - 0
      this.k = 0
      this.s1 = s1
      this.sinceResum = pushed
      return
    }
    const since = pushed % L
    const oldest = since + L - 1
    if (end <= oldest) {
      const k = src[end - 1]
      let s1 = 0
      for (let b = 0; b < L; b++) s1 += src[end - 1 - b] - k
      this.k = k
      this.s1 = s1
      this.sinceResum = since
      return
    }
    // the re-summation `since` pushes ago, then the running updates after it
    const at = end - 1 - since
    const k = src[at]
    let s1 = 0
    for (let b = 0; b < L; b++) s1 += src[at - b] - k
    for (let i = at + 1; i < end; i++) {
      s1 += src[i] - k
      s1 -= src[i - L] - k
    }
    this.k = k
    this.s1 = s1
    this.sinceResum = since
  }

  /** Mean of the window alone. */
  mean(): number {
    return this.k + this.s1 / this.length
  }

  /** Mean of the window plus one more value `x` (today's). */
  meanWith(x: number): number {
    return this.k + (this.s1 + (x - this.k)) / (this.length + 1)
  }

  save(): Array<number> {
    return [this.pushed, this.k, this.s1, this.sinceResum]
  }

  load(saved: ReadonlyArray<number>): void {
    ;[this.pushed, this.k, this.s1, this.sinceResum] = saved as [number, number, number, number]
  }
}

/**
 * Mean and sum of squared deviations (M2) of the last `length` values of a
 * ring, in O(1) amortized without ever subtracting a value's contribution
 * (so no cancellation: a window that goes flat after a large move has M2
 * exactly 0, and a nearly flat one keeps its full relative precision).
 *
 * The "two stacks" sliding window: every `length` pushes the window is
 * exactly one block, and the mean/M2 of each of its newest-c-values suffixes
 * is computed (Welford, newest first). In between, the window is the newest
 * `length - m` values of that block (a stored suffix) plus the `m` values
 * pushed since (a Welford accumulator that only adds), merged with Chan's
 * pairwise formula. All of it runs on deviations from a `shift` (the newest
 * value at the block start, exact by Sterbenz for prices within a factor 2
 * of it), so a near-flat window at a high price level (50,000.00 and
 * 50,000.01) is as precise as one near zero.
 *
 * Both parts are exact functions of the values still in the window, so the
 * state is a function of the last `length` values and `pushed` alone
 * (`rebuild`). `preview` adds today's value by one Welford step
 * (`m2WithValue`) in O(1).
 */
export class WindowMoments {
  pushed = 0
  /** the window's values are `shift + deviation`: mean and M2 are of the deviations (valid when `full`) */
  shift = 0
  deviationMean = 0
  m2 = 0
  /** mean and M2 of the deviations pushed since the last block (`pushed % length` of them) */
  private backMean = 0
  private backM2 = 0
  /** mean and M2 of the deviations of the newest `c` values of the last block, at index c - 1 */
  private readonly suffixMean: Float64Array
  private readonly suffixM2: Float64Array

  /** `storage`, if given, holds the suffix statistics: `2 x length` doubles. */
  constructor(
    readonly ring: Ring,
    readonly length: number,
    storage: Float64Array = new Float64Array(2 * length)
  ) {
    if (storage.length !== 2 * length) throw new RangeError("window storage of the wrong size")
    this.suffixMean = new Float64Array(storage.buffer, storage.byteOffset, length)
    this.suffixM2 = new Float64Array(storage.buffer, storage.byteOffset + 8 * length, length)
  }

  get full(): boolean {
    return this.pushed >= this.length
  }

  /** Mean of the window (rounded once; `shift` and `deviationMean` are exact). */
  get mean(): number {
    return this.shift + this.deviationMean
  }

  push(): void {
    const L = this.length
    const p = ++this.pushed
    if (p < L) return
    const m = p % L
    if (m === 0) {
      this.block(0, L)
      this.backMean = 0
      this.backM2 = 0
      this.deviationMean = this.suffixMean[L - 1]
      this.m2 = this.suffixM2[L - 1]
      return
    }
    const ring = this.ring
    const y = ring.buf[(ring.count - 1) & ring.mask] - this.shift
    const d = y - this.backMean
    const backMean = this.backMean + d / m
    this.backMean = backMean
    this.backM2 += d * (y - backMean)
    this.merge(m)
  }

  /**
   * Start the block whose newest value is `skip` back: that value becomes
   * the shift, and the suffix statistics of the newest 1..count values are
   * computed.
   */
  private block(skip: number, count: number): void {
    const ring = this.ring
    const buf = ring.buf
    const mask = ring.mask
    const newest = ring.count - 1 - skip
    const shift = buf[newest & mask]
    const sm = this.suffixMean
    const s2 = this.suffixM2
    let mean = 0
    let m2 = 0
    for (let j = 0; j < count; j++) {
      const y = buf[(newest - j) & mask] - shift
      const d = y - mean
      mean += d / (j + 1)
      m2 += d * (y - mean)
      sm[j] = mean
      s2[j] = m2
    }
    this.shift = shift
  }

  /** Window = newest `length - m` values of the block merged with the `m` values since. */
  private merge(m: number): void {
    const L = this.length
    const c = L - m
    const frontMean = this.suffixMean[c - 1]
    const delta = this.backMean - frontMean
    this.deviationMean = frontMean + delta * (m / L)
    this.m2 = this.suffixM2[c - 1] + this.backM2 + delta * delta * ((c * m) / L)
  }

  /** Recompute the state after `pushed` pushes from the ring (which must hold the last `length` values). */
  rebuild(pushed: number): void {
    const L = this.length
    this.pushed = pushed
    this.backMean = 0
    this.backM2 = 0
    this.shift = 0
    this.deviationMean = 0
    this.m2 = 0
    if (pushed < L) return
    const m = pushed % L
    this.block(m, L - m)
    if (m === 0) {
      this.deviationMean = this.suffixMean[L - 1]
      this.m2 = this.suffixM2[L - 1]
      return
    }
    const ring = this.ring
    const buf = ring.buf
    const mask = ring.mask
    const head = ring.count - 1
    const shift = this.shift
    let backMean = 0
    let backM2 = 0
    for (let i = 1; i <= m; i++) {
      const y = buf[(head - (m - i)) & mask] - shift
      const d = y - backMean
      backMean = backMean + d / i
      backM2 += d * (y - backMean)
    }
    this.backMean = backMean
    this.backM2 = backM2
    this.merge(m)
  }

  save(): Array<number> {
    return [this.pushed, this.shift, this.deviationMean, this.m2]
  }

  /** Restore from `save()` output; the ring must already hold its values. */
  load(saved: ReadonlyArray<number>): void {
    this.rebuild(saved[0])
  }
}

/** M2 of a window of `length` values with this mean and M2, plus one more value `x` (one Welford step). */
export const m2WithValue = (mean: number, m2: number, length: number, x: number): number => {
  const d = x - mean
  return m2 + d * (x - (mean + d / (length + 1)))
}
