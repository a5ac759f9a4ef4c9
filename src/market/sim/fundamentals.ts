/**
 * Fundamentals per ticker and date, pinned to the spec's values at the anchor
 * date and drifting slowly away from it in both directions.
 *
 * - shares outstanding (crypto: circulating supply): fixed.
 * - EPS (trailing twelve months, CS): changes only on earnings days. Each report
 *   moves it by scale × (0.02 + 0.12 × (0.6·surprise + 0.8·noise)), scale =
 *   max(|EPS at anchor|, 2 % of the anchor price); the surprise is the same draw
 *   as the report's price jump, so beats lift both.
 * - forward EPS: EPS + scale × (growth_i + 0.05·noise), refreshed with each report.
 * - book value and sales per share: × exp(1.5 % per reported quarter + small noise).
 * - dividend per share: raised 5 % every fourth report (0 stays 0); ETFs: fixed.
 * - beta: the model's own regression beta on the market factor (static).
 * - shares short: updated on the settlement dates, the 15th and the last
 *   business day of each month (the trading day on or before), as
 *   shares × shortFraction_i × a lognormal moving average of per-period noise.
 * - next earnings date, and `earningsDay` with the semantics of the indicator
 *   input (`TickerInputs.earningsDay`): the last report while it is in the
 *   current Monday–Sunday week, else the next one.
 *
 * NaN means "not applicable": EPS, forward EPS, book value and sales for ETFs
 * and crypto; dividend and short interest for crypto; earnings days for
 * tickers that never report.
 */
import { type EarningsSchedule, quarterOfDay } from "./earnings.js"
import type { TickerParams } from "./params.js"
import { hash2, quickNormal } from "./random.js"
import { DAY_MS, type TradingDays } from "./tradingDays.js"

const FUNDAMENTAL_STREAM = 0xf0d5
const SHORT_STREAM = 0x5407

/** One date's fundamentals, one slot per ticker. */
export interface FundamentalColumns {
  readonly sharesOutstanding: Float64Array
  readonly eps: Float64Array
  readonly forwardEps: Float64Array
  readonly bookValuePerShare: Float64Array
  readonly salesPerShare: Float64Array
  readonly dividendPerShare: Float64Array
  readonly beta: Float64Array
  readonly sharesShort: Float64Array
  /** epoch day of the next report on or after the date */
  readonly nextEarningsDay: Float64Array
  /** epoch day of the last report on or before the date */
  readonly lastEarningsDay: Float64Array
  /** `TickerInputs.earningsDay`: the last report while in the date's week, else the next */
  readonly earningsDay: Float64Array
  /** vendor fields the simulator does not model (NaN): a live feed's (`sources/feedSource.ts`) */
  readonly institutionalOwnership: Float64Array
  readonly insiderOwnership: Float64Array
  readonly analystTargetPrice: Float64Array
}

export const allocateFundamentals = (n: number): FundamentalColumns => ({
  sharesOutstanding: new Float64Array(n),
  eps: new Float64Array(n),
  forwardEps: new Float64Array(n),
  bookValuePerShare: new Float64Array(n),
  salesPerShare: new Float64Array(n),
  dividendPerShare: new Float64Array(n),
  beta: new Float64Array(n),
  sharesShort: new Float64Array(n),
  nextEarningsDay: new Float64Array(n),
  lastEarningsDay: new Float64Array(n),
  earningsDay: new Float64Array(n),
  institutionalOwnership: new Float64Array(n).fill(Number.NaN),
  insiderOwnership: new Float64Array(n).fill(Number.NaN),
  analystTargetPrice: new Float64Array(n).fill(Number.NaN)
})

/** Values in force after the report of one quarter. */
interface QuarterLevels {
  readonly eps: Float64Array
  readonly forwardEps: Float64Array
  readonly bookValue: Float64Array
  readonly sales: Float64Array
  readonly dividend: Float64Array
}

export class Fundamentals {
  private readonly levels = new Map<number, QuarterLevels>()
  private readonly epsSteps = new Map<number, Float64Array>()
  private readonly anchorQuarter: number
  /** per ticker, the quarter of the last report on or before the anchor date */
  private readonly reportedAtAnchor: Int32Array
  private readonly fundKey: number
  private readonly shortKey: number

  constructor(
    private readonly p: TickerParams,
    private readonly earnings: EarningsSchedule,
    private readonly days: TradingDays,
    seedKey: number,
    anchorDay: number
  ) {
    this.fundKey = hash2(seedKey, FUNDAMENTAL_STREAM)
    this.shortKey = hash2(seedKey, SHORT_STREAM)
    const qa = quarterOfDay(anchorDay)
    this.anchorQuarter = qa
    const table = earnings.table(qa)
    this.reportedAtAnchor = Int32Array.from(table, (e) => (e >= 0 && e <= anchorDay ? qa : qa - 1))
  }

  /** EPS change at the report of quarter q, per ticker (0 for non-reporters). */
  private epsStep(q: number): Float64Array {
    let s = this.epsSteps.get(q)
    if (s === undefined) {
      const { n, key, eps, anchorPrice, earningsOffset } = this.p
      s = new Float64Array(n)
      const qk = hash2(this.fundKey, q)
      for (let i = 0; i < n; i++) {
        if (earningsOffset[i] < 0) continue
        const scale = Math.max(Math.abs(eps[i]), 0.02 * anchorPrice[i])
        const surprise = this.earnings.surprise(i, q)
        s[i] = scale * (0.02 + 0.12 * (0.6 * surprise + 0.8 * quickNormal(hash2(qk, key[i]), 0)))
      }
      this.epsSteps.set(q, s)
    }
    return s
  }

  /** Per ticker, the values in force after the report of quarter `q`. */
  private levelsAt(q: number): QuarterLevels {
    const cached = this.levels.get(q)
    if (cached !== undefined) return cached
    const { n, key, eps, forwardGrowth, bookValue, sales, dividend, anchorPrice, earningsOffset } = this.p
    const qa = this.anchorQuarter
    const out: QuarterLevels = {
      eps: new Float64Array(n),
      forwardEps: new Float64Array(n),
      bookValue: new Float64Array(n),
      sales: new Float64Array(n),
      dividend: new Float64Array(n)
    }
    // EPS by recursion from the quarter next to q towards the anchor quarters
    if (q === qa || q === qa - 1) {
      const step = this.epsStep(qa)
      for (let i = 0; i < n; i++) {
        const base = eps[i]
        const atAnchor = this.reportedAtAnchor[i] === q
        out.eps[i] = atAnchor ? base : q === qa ? base + step[i] : base - step[i]
      }
    } else if (q > qa) {
      const prev = this.levelsAt(q - 1).eps
      const step = this.epsStep(q)
      for (let i = 0; i < n; i++) out.eps[i] = prev[i] + step[i]
    } else {
      const next = this.levelsAt(q + 1).eps
      const step = this.epsStep(q + 1)
      for (let i = 0; i < n; i++) out.eps[i] = next[i] - step[i]
    }
    const qk = hash2(this.fundKey, q)
    for (let i = 0; i < n; i++) {
      if (earningsOffset[i] < 0) {
        out.eps[i] = eps[i]
        out.forwardEps[i] = Number.NaN
        out.bookValue[i] = bookValue[i]
        out.sales[i] = sales[i]
        out.dividend[i] = dividend[i]
        continue
      }
      const q0 = this.reportedAtAnchor[i]
      const reports = q - q0
      const k0 = hash2(hash2(this.fundKey, q0), key[i])
      const kq = hash2(qk, key[i])
      const e = out.eps[i]
      out.forwardEps[i] =
        e + Math.max(Math.abs(e), 0.02 * anchorPrice[i]) * (forwardGrowth[i] + 0.05 * quickNormal(kq, 2))
      out.bookValue[i] = bookValue[i] * Math.exp(0.015 * reports + 0.02 * (quickNormal(kq, 4) - quickNormal(k0, 4)))
      out.sales[i] = sales[i] * Math.exp(0.015 * reports + 0.03 * (quickNormal(kq, 6) - quickNormal(k0, 6)))
      out.dividend[i] = dividend[i] * 1.05 ** Math.floor(reports / 4)
    }
    this.levels.set(q, out)
    return out
  }

  /** The settlement period (month × 2 + half) whose short interest is in force on `day`. */
  shortPeriod(day: number): number {
    const d = new Date(day * DAY_MS)
    const y = d.getUTCFullYear()
    const m = d.getUTCMonth()
    const mid = this.days.onOrBefore(Date.UTC(y, m, 15) / DAY_MS)
    const end = this.days.onOrBefore(Date.UTC(y, m + 1, 0) / DAY_MS)
    const month = y * 12 + m
    return day >= end ? month * 2 + 1 : day >= mid ? month * 2 : month * 2 - 1
  }

  fill(day: number, out: FundamentalColumns): FundamentalColumns {
    const on = this.dayContext(day)
    for (let i = 0; i < this.p.n; i++) this.row(on, i, out, i)
    return out
  }

  /** The fundamentals of tickers `slots` on `day`, each at its own slot of `out` (the same values as `fill`). */
  fillSlots(day: number, slots: ReadonlyArray<number>, out: FundamentalColumns): FundamentalColumns {
    const on = this.dayContext(day)
    for (const i of slots) this.row(on, i, out, i)
    return out
  }

  /** Ticker `i`'s fundamentals on `day` alone, written at slot `at` of `out` (the same values as `fill`). */
  fillTicker(day: number, i: number, out: FundamentalColumns, at = 0): FundamentalColumns {
    this.row(this.dayContext(day), i, out, at)
    return out
  }

  private dayContext(day: number): DayContext {
    const q = quarterOfDay(day)
    const period = this.shortPeriod(day)
    return {
      day,
      current: this.earnings.table(q),
      previous: this.earnings.table(q - 1),
      next: this.earnings.table(q + 1),
      thisLevels: this.levelsAt(q),
      prevLevels: this.levelsAt(q - 1),
      k0: hash2(this.shortKey, period),
      k1: hash2(this.shortKey, period - 1),
      k2: hash2(this.shortKey, period - 2),
      monday: day - ((((day + 3) % 7) + 7) % 7)
    }
  }

  private row(on: DayContext, i: number, out: FundamentalColumns, at: number): void {
    const p = this.p
    const { day, current, previous, next, thisLevels, prevLevels, k0, k1, k2, monday } = on
    const shares = p.shares[i]
    out.sharesOutstanding[at] = shares
    out.beta[at] = p.marketBeta[i]
    const key = p.key[i]
    const noise =
      (quickNormal(hash2(k0, key), 0) + quickNormal(hash2(k1, key), 0) + quickNormal(hash2(k2, key), 0)) / Math.sqrt(3)
    out.sharesShort[at] = shares * p.shortFraction[i] * Math.exp(0.25 * noise - 0.03)
    const e = current[i]
    const reported = e >= 0 && e <= day
    const lv = e >= 0 && !reported ? prevLevels : thisLevels
    out.eps[at] = lv.eps[i]
    out.forwardEps[at] = lv.forwardEps[i]
    out.bookValuePerShare[at] = lv.bookValue[i]
    out.salesPerShare[at] = lv.sales[i]
    out.dividendPerShare[at] = lv.dividend[i]
    out.institutionalOwnership[at] = out.insiderOwnership[at] = out.analystTargetPrice[at] = Number.NaN
    if (e < 0) {
      out.nextEarningsDay[at] = out.lastEarningsDay[at] = out.earningsDay[at] = Number.NaN
      return
    }
    const last = reported ? e : previous[i]
    const upcoming = reported ? (e === day ? e : next[i]) : e
    out.lastEarningsDay[at] = last
    out.nextEarningsDay[at] = upcoming
    out.earningsDay[at] = last >= monday ? last : upcoming
  }
}

/** What `Fundamentals.fill` computes once per day for every ticker. */
interface DayContext {
  readonly day: number
  readonly current: Int32Array
  readonly previous: Int32Array
  readonly next: Int32Array
  readonly thisLevels: QuarterLevels
  readonly prevLevels: QuarterLevels
  readonly k0: number
  readonly k1: number
  readonly k2: number
  readonly monday: number
}
