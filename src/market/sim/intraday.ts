/**
 * Minute paths inside a daily bar, and the partial bar at any minute.
 *
 * A session has K minutes (equities: 390, or 210 on an early close, from the
 * 09:30 ET open; crypto: 1440 from 00:00 UTC). Minute m is the instant
 * `startMs + m·60 000`, m = 0..K: the price at minute 0 is the open O, at
 * minute K the close C, and the path's maximum is exactly H and its minimum
 * exactly L.
 *
 * Construction, per ticker: a random walk with uniform increments (one hash
 * per two minutes) is turned into a Brownian bridge from 0 to 0 and added to the
 * straight line O→C. Values above max(O,C) are then rescaled affinely so the
 * highest one lands on H, values below min(O,C) so the lowest lands on L. When
 * the walk does not reach, or reaches less than half of, a wick, a tent (a
 * 2·K/20-minute hump) first lifts its extreme (or a random minute away from
 * the ends) to H (resp. L), so the rescaling never stretches a tiny excursion
 * into a spike (the largest one-minute move is typically 8 %, at the 99th
 * percentile 12 %, of the day's range). The rescaling is monotone, so the shape
 * of the walk survives. Paths are stored as Float32; the four exact prices are
 * kept in Float64 and returned at their minutes, and every other value is
 * clamped into [L, H], so the invariants hold exactly.
 *
 * Volume: `volumeFraction[m]` is the cumulative share of the day's volume
 * traded by minute m (0 at m = 0, 1 at m = K), the same for every ticker of the
 * session: U-shaped for equities (heavy first minutes, rising into the close,
 * a closing auction), a smooth bump around US hours for crypto. volume by
 * minute m = volumeFraction[m] × V.
 */
import type { DayBars } from "./daily.js"
import { KIND_CRYPTO, type TickerParams } from "./params.js"
import { fmix32, hash2, unit2 } from "./random.js"

const INTRADAY_STREAM = 0x1d4a
/** Standard deviation of a uniform 16-bit integer. */
const UNIFORM16_SD = 65536 / Math.sqrt(12)

export type SessionKind = "equity" | "crypto"

/** Today-so-far bars for all tickers, one slot per simulator ticker. */
export interface PartialBars {
  readonly open: Float64Array
  readonly high: Float64Array
  readonly low: Float64Array
  /** last price */
  readonly close: Float64Array
  /** cumulative volume */
  readonly volume: Float64Array
  /** volume-weighted average price of the path so far (the open at minute 0) */
  readonly vwap: Float64Array
}

export const allocatePartialBars = (n: number): PartialBars => ({
  open: new Float64Array(n),
  high: new Float64Array(n),
  low: new Float64Array(n),
  close: new Float64Array(n),
  volume: new Float64Array(n),
  vwap: new Float64Array(n)
})

/** Cumulative intraday volume share by minute, 0 at minute 0 and 1 at minute K. */
export const volumeProfile = (kind: SessionKind, minutes: number): Float64Array => {
  const k = minutes
  const w = new Float64Array(k + 1)
  let sum = 0
  for (let m = 1; m <= k; m++) {
    let x: number
    if (kind === "equity") {
      x = 1 + 3 * Math.exp(-(m - 1) / 12) + 1.5 * Math.exp(-(k - m) / 15)
    } else {
      const hour = ((m - 0.5) / 60) % 24
      const d = Math.min(Math.abs(hour - 16), 24 - Math.abs(hour - 16))
      x = 1 + 0.7 * Math.exp(-(d * d) / 18)
    }
    w[m] = x
    sum += x
  }
  if (kind === "equity") {
    w[k] += 0.07 * sum // closing auction
    sum *= 1.07
  }
  const frac = new Float64Array(k + 1)
  let acc = 0
  for (let m = 1; m <= k; m++) {
    acc += w[m]
    frac[m] = acc / sum
  }
  frac[k] = 1
  return frac
}

export class IntradaySession {
  /** ticker index of each slot */
  readonly tickers: Int32Array
  /** slot of each ticker, -1 when the ticker is not in this session */
  readonly slotOf: Int32Array
  readonly open: Float64Array
  readonly high: Float64Array
  readonly low: Float64Array
  readonly close: Float64Array
  readonly volume: Float64Array
  /** slot-major minute paths: `paths[slot × (minutes + 1) + m]` */
  readonly paths: Float32Array
  /** the minute at which the path reaches H (resp. L) */
  readonly highMinute: Int16Array
  readonly lowMinute: Int16Array
  readonly volumeFraction: Float64Array
  private cursor = -1
  private readonly runHigh: Float64Array
  private readonly runLow: Float64Array
  private readonly pv: Float64Array

  constructor(
    p: TickerParams,
    seedKey: number,
    bars: DayBars,
    readonly kind: SessionKind,
    /** session length K in minutes (at least 4) */
    readonly minutes: number,
    /** epoch ms of minute 0 */
    readonly startMs: number
  ) {
    const k = minutes
    if (!Number.isInteger(k) || k < 4 || k > 1440) throw new RangeError(`session minutes must be 4..1440, got ${k}`)
    const wantCrypto = kind === "crypto"
    const members: Array<number> = []
    for (let i = 0; i < p.n; i++)
      if (bars.traded[i] === 1 && (p.kind[i] === KIND_CRYPTO) === wantCrypto) members.push(i)
    const n = members.length
    this.tickers = Int32Array.from(members)
    this.slotOf = new Int32Array(p.n).fill(-1)
    for (let s = 0; s < n; s++) this.slotOf[members[s]] = s
    this.open = new Float64Array(n)
    this.high = new Float64Array(n)
    this.low = new Float64Array(n)
    this.close = new Float64Array(n)
    this.volume = new Float64Array(n)
    this.paths = new Float32Array(n * (k + 1))
    this.highMinute = new Int16Array(n)
    this.lowMinute = new Int16Array(n)
    this.volumeFraction = volumeProfile(kind, k)
    this.runHigh = new Float64Array(n)
    this.runLow = new Float64Array(n)
    this.pv = new Float64Array(n)

    const dayKey = hash2(hash2(seedKey, INTRADAY_STREAM), bars.day)
    const minuteKeys = new Int32Array((k >> 1) + 1)
    for (let j = 0; j < minuteKeys.length; j++) minuteKeys[j] = hash2(dayKey, j)
    const bumpKey = hash2(dayKey, -1)
    const x = new Float64Array(k + 2)
    const invK = 1 / k
    const width = Math.max(2, Math.floor(k / 20))
    /** an interior minute from a uniform, at least `width` minutes from both ends when the session allows */
    const pick = (u: number): number =>
      k > 2 * width + 1 ? width + Math.floor(u * (k - 2 * width + 1)) : 1 + Math.floor(u * (k - 1))
    for (let s = 0; s < n; s++) {
      const i = members[s]
      const o = bars.open[i]
      const h = bars.high[i]
      const l = bars.low[i]
      const c = bars.close[i]
      this.open[s] = o
      this.high[s] = h
      this.low[s] = l
      this.close[s] = c
      this.volume[s] = bars.volume[i]
      const key = p.key[i]
      // random walk with uniform increments, two minutes per hash
      let w = 0
      x[0] = 0
      for (let m = 1; m <= k; m += 2) {
        const r = fmix32(minuteKeys[m >> 1] ^ key)
        w += (r & 0xffff) - 32767.5
        x[m] = w
        w += (r >>> 16) - 32767.5
        x[m + 1] = w
      }
      if ((k & 1) === 1) w = x[k]
      const step = ((h - l) * 0.65) / (UNIFORM16_SD * Math.sqrt(k))
      const slope = (c - o) * invK
      const drift = w * invK
      let top = 1
      let bottom = 1
      for (let m = 1; m < k; m++) {
        const v = o + slope * m + step * (x[m] - drift * m)
        x[m] = v
        if (v > x[top]) top = m
        if (v < x[bottom]) bottom = m
      }
      x[0] = o
      x[k] = c
      const hi = Math.max(o, c)
      const lo = Math.min(o, c)
      // A wick that the walk does not reach, or reaches only barely, gets a tent (so that the
      // rescaling below never stretches a tiny excursion into a spike): at the walk's extreme
      // when that lies inside the session, else at a random interior minute.
      const needHigh = h > hi && !(x[top] - hi >= 0.5 * (h - hi))
      if (needHigh) {
        const at = x[top] > hi && top >= width && top <= k - width ? top : pick(unit2(bumpKey, key))
        addTent(x, k, at, width, h - x[at])
        x[at] = h
        top = at
        bottom = interiorArgMin(x, k)
      }
      const needLow = l < lo && !(lo - x[bottom] >= 0.5 * (lo - l))
      if (needLow) {
        let at = x[bottom] < lo && bottom >= width && bottom <= k - width ? bottom : pick(unit2(bumpKey, key ^ 0x10))
        // keep the tent away from the maximum so the upper wick survives
        if (Math.abs(at - top) <= width) at = pick(((at - 1) / (k - 1) + 0.5) % 1)
        addTent(x, k, at, width, l - x[at])
        x[at] = l
      }
      if (needHigh || needLow) {
        top = interiorArgMax(x, k)
        bottom = interiorArgMin(x, k)
        // short sessions only: the tents may have cancelled each other
        if (h > hi && !(x[top] > hi)) {
          top = bottom === 1 ? k - 1 : 1
          x[top] = h
        }
        if (l < lo && !(x[bottom] < lo)) {
          bottom = top === 1 ? k - 1 : 1
          x[bottom] = l
        }
      }
      const maxV = x[top]
      const minV = x[bottom]
      const up = maxV > hi ? (h - hi) / (maxV - hi) : 0
      const down = minV < lo ? (lo - l) / (lo - minV) : 0
      const base = s * (k + 1)
      const path = this.paths
      path[base] = o
      path[base + k] = c
      for (let m = 1; m < k; m++) {
        const v = x[m]
        path[base + m] = v > hi ? hi + (v - hi) * up : v < lo ? lo - (lo - v) * down : v
      }
      this.highMinute[s] = maxV > hi ? top : o >= c ? 0 : k
      this.lowMinute[s] = minV < lo ? bottom : o <= c ? 0 : k
    }
  }

  /** The minute index (0..K, floored and clamped) of an instant. */
  minuteAt(epochMs: number): number {
    const m = Math.floor((epochMs - this.startMs) / 60_000)
    return m < 0 ? 0 : Math.min(m, this.minutes)
  }

  /** Price of ticker `i` at minute `m` (0..K); NaN when the ticker is not in this session. */
  priceAt(i: number, m: number): number {
    const s = this.slotOf[i]
    return s < 0 ? Number.NaN : this.slotPrice(s, Math.floor(m))
  }

  /** The whole path of ticker `i` (K + 1 prices) in Float64, exactly as `priceAt` returns it. */
  pathOf(i: number): Float64Array {
    const s = this.slotOf[i]
    const out = new Float64Array(this.minutes + 1)
    if (s < 0) return out.fill(Number.NaN)
    for (let m = 0; m <= this.minutes; m++) out[m] = this.slotPrice(s, m)
    return out
  }

  private slotPrice(s: number, m: number): number {
    if (m <= 0) return this.open[s]
    if (m >= this.minutes) return this.close[s]
    if (m === this.highMinute[s]) return this.high[s]
    if (m === this.lowMinute[s]) return this.low[s]
    const v = this.paths[s * (this.minutes + 1) + m]
    const h = this.high[s]
    const l = this.low[s]
    return v > h ? h : Math.max(v, l)
  }

  /**
   * Writes the partial bar at minute `m` of every ticker of this session into
   * `out` (slots of tickers outside the session are left untouched):
   * (O, max of the path over 0..m, min over 0..m, price at m, volumeFraction[m] × V,
   * VWAP over 0..m). Incremental: advancing from the previous call's minute costs
   * O(tickers × minutes advanced); going back recomputes from minute 0.
   */
  partialBars(m: number, out: PartialBars): void {
    const k = this.minutes
    const target = m <= 0 ? 0 : m >= k ? k : Math.floor(m)
    const n = this.tickers.length
    const { runHigh, runLow, pv, open, high, low, close, volume, highMinute, lowMinute, paths } = this
    const frac = this.volumeFraction
    if (this.cursor < 0 || target < this.cursor) {
      runHigh.set(open)
      runLow.set(open)
      pv.fill(0)
      this.cursor = 0
    }
    const from = this.cursor + 1
    if (target >= from) {
      for (let s = 0; s < n; s++) {
        const h = high[s]
        const l = low[s]
        const hm = highMinute[s]
        const lm = lowMinute[s]
        const base = s * (k + 1)
        let rh = runHigh[s]
        let rl = runLow[s]
        let acc = pv[s]
        for (let j = from; j <= target; j++) {
          let v: number
          if (j === k) v = close[s]
          else if (j === hm) v = h
          else if (j === lm) v = l
          else {
            v = paths[base + j]
            v = v > h ? h : Math.max(v, l)
          }
          if (v > rh) rh = v
          if (v < rl) rl = v
          acc += v * (frac[j] - frac[j - 1])
        }
        runHigh[s] = rh
        runLow[s] = rl
        pv[s] = acc
      }
      this.cursor = target
    }
    const f = frac[target]
    for (let s = 0; s < n; s++) {
      const i = this.tickers[s]
      out.open[i] = open[s]
      out.high[i] = runHigh[s]
      out.low[i] = runLow[s]
      out.close[i] = this.slotPrice(s, target)
      out.volume[i] = f * volume[s]
      out.vwap[i] = f > 0 ? pv[s] / f : open[s]
    }
  }
}

const interiorArgMax = (x: Float64Array, k: number): number => {
  let best = 1
  for (let m = 2; m < k; m++) if (x[m] > x[best]) best = m
  return best
}

const interiorArgMin = (x: Float64Array, k: number): number => {
  let best = 1
  for (let m = 2; m < k; m++) if (x[m] < x[best]) best = m
  return best
}

/** Adds a tent of the given height at minute `at` (half-width `width`), interior minutes only. */
const addTent = (x: Float64Array, k: number, at: number, width: number, height: number): void => {
  const from = Math.max(1, at - width)
  const to = Math.min(k - 1, at + width)
  for (let m = from; m <= to; m++) x[m] += height * (1 - Math.abs(m - at) / (width + 1))
}
