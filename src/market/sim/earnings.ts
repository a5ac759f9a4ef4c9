/**
 * Quarterly earnings calendar of common stocks (ETFs and crypto never report).
 *
 * Each calendar quarter holds one reporting season: a company reports
 * `14 + offset + jitter` calendar days after the quarter starts, where the
 * offset (0..31) is fixed per ticker (companies keep their slot) and the jitter
 * (-3..3) is drawn per quarter; a date that is not a trading day moves to the
 * next trading day. So every report falls between about the 12th and the 52nd
 * day of its quarter (mid-January to late February, and so on), on a trading
 * day. The report's surprise is one unit-variance fat-tailed draw per
 * (ticker, quarter), shared by the price jump and the EPS update.
 */
import type { TickerParams } from "./params.js"
import { fmix32, hash2, quickNormal, T4_CLAMP, T4_SCALES, unit2 } from "./random.js"
import { DAY_MS, type TradingDays } from "./tradingDays.js"

const EARNINGS_STREAM = 0xea27
const SEASON_START = 14
const JITTER = 3

/** Quarter number (year × 4 + quarter-of-year 0..3) of an epoch day. */
export const quarterOfDay = (day: number): number => {
  const d = new Date(day * DAY_MS)
  return d.getUTCFullYear() * 4 + Math.floor(d.getUTCMonth() / 3)
}

/** Epoch day of the first day of a quarter number. */
export const quarterStartDay = (q: number): number => Date.UTC(Math.floor(q / 4), (q % 4) * 3, 1) / DAY_MS

export class EarningsSchedule {
  private readonly tables = new Map<number, Int32Array>()
  private readonly streamKey: number

  constructor(
    private readonly params: TickerParams,
    private readonly days: TradingDays,
    seedKey: number
  ) {
    this.streamKey = hash2(seedKey, EARNINGS_STREAM)
  }

  /** Report epoch day of every ticker in quarter `q` (-1 for tickers that never report). */
  table(q: number): Int32Array {
    let t = this.tables.get(q)
    if (t === undefined) {
      const { n, key, earningsOffset } = this.params
      t = new Int32Array(n)
      const start = quarterStartDay(q) + SEASON_START
      const qk = hash2(this.streamKey, q)
      for (let i = 0; i < n; i++) {
        const off = earningsOffset[i]
        if (off < 0) {
          t[i] = -1
          continue
        }
        const jitter = Math.floor(unit2(qk, key[i]) * (2 * JITTER + 1)) - JITTER
        t[i] = this.days.onOrAfter(start + off + jitter)
      }
      this.tables.set(q, t)
    }
    return t
  }

  /** Whether ticker `i` reports on epoch day `day`. */
  isEarningsDay(i: number, day: number): boolean {
    return this.table(quarterOfDay(day))[i] === day
  }

  /** The first report on or after `day`, or null when the ticker never reports. */
  nextOnOrAfter(i: number, day: number): number | null {
    const q = quarterOfDay(day)
    const e = this.table(q)[i]
    if (e < 0) return null
    return e >= day ? e : this.table(q + 1)[i]
  }

  /** The last report on or before `day`, or null when the ticker never reports. */
  lastOnOrBefore(i: number, day: number): number | null {
    const q = quarterOfDay(day)
    const e = this.table(q)[i]
    if (e < 0) return null
    return e <= day ? e : this.table(q - 1)[i]
  }

  /** The unit-variance fat-tailed surprise of ticker `i`'s report in quarter `q`. */
  surprise(i: number, q: number): number {
    const k = hash2(hash2(this.streamKey, q), this.params.key[i] ^ 0x5eb1)
    const scale = T4_SCALES[fmix32(k ^ 0x3c6ef372) & (T4_SCALES.length - 1)]
    const t = quickNormal(k, 0) * scale
    return Math.max(-T4_CLAMP, Math.min(T4_CLAMP, t))
  }
}
