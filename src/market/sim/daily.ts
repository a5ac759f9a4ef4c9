/**
 * Daily bars from a factor model with counter-based draws.
 *
 * Daily log return of ticker i on day d (equities on NYSE trading days, crypto
 * every UTC day):
 *
 *   equity: r = μ_i + s_i·(β_i·M_d + λ_i·S_{sector,d} + σ_i·v_d^½·t_{i,d} + J_{i,d})
 *   crypto: r = μ_i + s_i·(β_i·C_d + σ_i·w_d^½·t_{i,d})
 *
 * M (market) and C (crypto, correlated 0.25 with M) are normal factors scaled by
 * slowly varying volatility regimes v_d, w_d (random knots every 21 / 15 days,
 * interpolated) and, on about 2 % of days, a market stress multiplier; S is a
 * per-sector normal factor; t is a unit-variance Student-t(4)-like shock (an
 * Irwin–Hall normal times a tabulated Gamma(2,1)^-½ mixing scale, clamped at
 * ±10); J is the earnings-day jump (a fat-tailed surprise × σE_i); s_i = 1 unless
 * `dailyVol` overrides the volatility (μ_i is then scaled down too). The return
 * does not depend on the price, so prices are `anchorPrice × exp(±Σ r)` at any
 * date (see `MarketSimulator.closesAt`). Three hashes per ticker-day, no
 * logarithm: the return is cheap enough to be evaluated twice in a backfill.
 *
 * Equity bars: open = prevClose·exp(gap) with the overnight gap carrying 30 % of
 * the day's factor and idiosyncratic move, 85 % of an earnings jump and its own
 * noise; crypto opens at the previous close (it trades around the clock). High and
 * low extend max(O,C) / min(O,C) by exponential wicks (tabulated) scaled to the
 * day's volatility, ×1.8 on earnings days. Volume is lognormal-like around the
 * ticker's average volume, times 0.75 + 0.3·(move/σ)² (capped at 10), ×3 on
 * earnings days, and follows the market regime; early-close sessions trade
 * less, crypto weekends too. Equity volumes are whole shares.
 */
import { type EarningsSchedule, quarterOfDay } from "./earnings.js"
import { CRYPTO_MARKET_CORR, CRYPTO_VOL, KIND_CRYPTO, MARKET_VOL, SECTOR_VOL, type TickerParams } from "./params.js"
import {
  EXP_BITS,
  EXPONENTIALS,
  fmix32,
  hash2,
  IH2_11_SCALE,
  IH4_SCALE,
  knotProcess,
  normal2,
  T4_CLAMP,
  T4_SCALES,
  unit2,
  VOLUME_NOISE
} from "./random.js"
import type { TradingDays } from "./tradingDays.js"

const DAILY_STREAM = 0xda11
const FACTOR_STREAM = 0xfac7
const REGULAR_SESSION = 390
const RHO_OWN = Math.sqrt(1 - CRYPTO_MARKET_CORR * CRYPTO_MARKET_CORR)
const EXP_MASK = (1 << EXP_BITS) - 1

/**
 * e^x: a degree-6 Taylor polynomial for |x| < 0.05 (relative error below 2e-13,
 * the rounding noise of `Math.exp` chains) and `Math.exp` beyond. Most daily
 * moves are small, and this is the hottest arithmetic of a backfill.
 */
const expOfSmall = (x: number): number =>
  x < 0.05 && x > -0.05
    ? 1 + x * (1 + x * (0.5 + x * (1 / 6 + x * (1 / 24 + x * (1 / 120 + x * (1 / 720))))))
    : Math.exp(x)

/** One day's bars for every ticker (one slot per ticker, simulator order). */
export interface DayBars {
  /** `YYYY-MM-DD` */
  date: string
  /** epoch day of `date` */
  day: number
  /**
   * 1 when the ticker has a bar that date (crypto: every date; equities: NYSE
   * trading days). Where 0, open/high/low/close are NaN and volume is 0.
   */
  readonly traded: Uint8Array
  readonly open: Float64Array
  readonly high: Float64Array
  readonly low: Float64Array
  readonly close: Float64Array
  readonly volume: Float64Array
  /** 1 on the ticker's earnings day */
  readonly earnings: Uint8Array
}

export const allocateDayBars = (n: number): DayBars => ({
  date: "",
  day: 0,
  traded: new Uint8Array(n),
  open: new Float64Array(n),
  high: new Float64Array(n),
  low: new Float64Array(n),
  close: new Float64Array(n),
  volume: new Float64Array(n),
  earnings: new Uint8Array(n)
})

/** The factor values and per-draw keys of one day (no per-ticker work). */
export class DayModel {
  /** regular-session minutes of the equity session, 0 when equities do not trade */
  readonly equityMinutes: number
  /** market, crypto and per-sector factor returns */
  readonly market: number
  readonly crypto: number
  readonly sectorReturn: Float64Array
  /** volatility regime multipliers (equity, crypto) */
  readonly equityVol: number
  readonly cryptoVol: number
  readonly quarter: number
  readonly earningsTable: Int32Array
  /** per-draw day keys: k0..k2 the return, k3 the bar's range and volume */
  readonly k0: number
  readonly k1: number
  readonly k2: number
  readonly k3: number

  constructor(
    readonly p: TickerParams,
    readonly earnings: EarningsSchedule,
    days: TradingDays,
    seedKey: number,
    readonly day: number
  ) {
    this.equityMinutes = days.sessionMinutesOf(day)
    const fk = hash2(seedKey, FACTOR_STREAM)
    const vm = Math.exp(0.3 * knotProcess(hash2(fk, 1), day, 21))
    const stress = unit2(hash2(fk, 2), day) < 0.02 ? 2.2 : 1
    const vc = Math.exp(0.3 * knotProcess(hash2(fk, 3), day, 15))
    this.equityVol = vm * stress
    this.cryptoVol = vc
    const zm = normal2(hash2(fk, 4), day * 2)
    const zc = normal2(hash2(fk, 5), day * 2)
    this.market = MARKET_VOL * this.equityVol * zm
    this.crypto = CRYPTO_VOL * vc * (CRYPTO_MARKET_CORR * zm + RHO_OWN * zc)
    const sk = hash2(fk, 6)
    const sectorScale = SECTOR_VOL * vm ** 0.7
    this.sectorReturn = Float64Array.from(p.sectorKey, (key) => sectorScale * normal2(hash2(sk, key), day * 2))
    this.quarter = quarterOfDay(day)
    this.earningsTable = earnings.table(this.quarter)
    const dk = hash2(hash2(seedKey, DAILY_STREAM), day)
    this.k0 = hash2(dk, 0)
    this.k1 = hash2(dk, 1)
    this.k2 = hash2(dk, 2)
    this.k3 = hash2(dk, 3)
  }

  /** Whether ticker `i` has a bar this day. */
  trades(i: number): boolean {
    return this.equityMinutes > 0 || this.p.kind[i] === KIND_CRYPTO
  }

  /** Whether ticker `i` reports earnings this day. */
  isEarningsDay(i: number): boolean {
    return this.earningsTable[i] === this.day
  }

  /** The ticker's daily volatility today (its unconditional σ times the regime). */
  sigmaToday(i: number): number {
    return this.p.sigmaTotal[i] * (this.p.kind[i] === KIND_CRYPTO ? this.cryptoVol : this.equityVol)
  }
}

/**
 * `computeReturns` of the tickers in `slots` (ascending; all when undefined), in one pass: a group
 * of tickers generated together, contiguous or not (one call per ticker cost a pass's setup each).
 */
export const computeReturnsOf = (model: DayModel, r: Float64Array, gap: Float64Array, slots?: Int32Array): void => {
  if (slots === undefined) computeReturns(model, r, gap)
  else computeReturns(model, r, gap, 0, slots.length, slots)
}

/**
 * The daily log return (`r`) and overnight gap (`gap`, log of open / previous
 * close; 0 for crypto) of tickers `from` ≤ i < `to` that trade on `model.day`
 * (with `slots`: of tickers `slots[from]` … `slots[to - 1]`); other slots are
 * left alone. The single implementation of the return model: bars,
 * `closesAt` and news all read it.
 */
export const computeReturns = (
  model: DayModel,
  r: Float64Array,
  gap: Float64Array,
  from = 0,
  to = model.p.n,
  slots?: Int32Array
): void => {
  const { kind, key, drift, scale, beta, sectorLoad, sector, sigmaIdio, sigmaEarn } = model.p
  const { k0, k1, k2, market, crypto, sectorReturn, earningsTable, day } = model
  const all = model.equityMinutes > 0
  const idioEquity = Math.sqrt(model.equityVol)
  const idioCrypto = Math.sqrt(model.cryptoVol)
  for (let q = from; q < to; q++) {
    const i = slots === undefined ? q : slots[q]
    const isCrypto = kind[i] === KIND_CRYPTO
    if (!all && !isCrypto) continue
    const kk = key[i]
    const h0 = fmix32(k0 ^ kk)
    const h1 = fmix32(k1 ^ kk)
    const h2 = fmix32(k2 ^ kk)
    // Irwin–Hall(4) normal from four 16-bit uniforms × a Student-t(4) mixing scale from 10 more bits
    const z = ((h0 & 0xffff) + (h0 >>> 16) + (h1 & 0xffff) + (h1 >>> 16) - 131070) * IH4_SCALE
    const raw = z * T4_SCALES[h2 & 1023]
    const t = raw > T4_CLAMP ? T4_CLAMP : Math.max(raw, -T4_CLAMP)
    if (isCrypto) {
      r[i] = drift[i] + scale[i] * (beta[i] * crypto + sigmaIdio[i] * idioCrypto * t)
      gap[i] = 0
      continue
    }
    const sys = beta[i] * market + sectorLoad[i] * sectorReturn[sector[i]]
    const idioScale = sigmaIdio[i] * idioEquity
    const idio = idioScale * t
    const jump = earningsTable[i] === day ? sigmaEarn[i] * model.earnings.surprise(i, model.quarter) : 0
    const noise = (((h2 >>> 10) & 2047) + (h2 >>> 21) - 2047) * IH2_11_SCALE
    gap[i] = scale[i] * (0.3 * (sys + idio) + 0.85 * jump + 0.3 * idioScale * noise)
    r[i] = drift[i] + scale[i] * (sys + idio + jump)
  }
}

/** Scratch arrays for `computeReturns`, one slot per ticker. */
export interface ReturnScratch {
  readonly r: Float64Array
  readonly gap: Float64Array
}

export const allocateReturnScratch = (n: number): ReturnScratch => ({
  r: new Float64Array(n),
  gap: new Float64Array(n)
})

/**
 * Fills `out` with the bars of `model.day` from the previous closes (slot i:
 * ticker i's last close before this day). Pure: the same day and prevClose give
 * the same bars whatever else was generated.
 *
 * `closes`, when given, are the day's closes (the simulated levels, `levels.ts`,
 * rather than `prevClose · e^r`); `slots`, when given, are the only tickers
 * filled (the others' slots are left alone).
 */
export const fillDayBars = (
  model: DayModel,
  prevClose: Float64Array,
  out: DayBars,
  scratch: ReturnScratch,
  closes?: Float64Array,
  slots?: Int32Array
): DayBars => {
  const p = model.p
  const n = p.n
  const { kind, key, drift, sigmaTotal, avgVolume } = p
  const { traded, open, high, low, close, volume, earnings } = out
  const { r, gap } = scratch
  computeReturnsOf(model, r, gap, slots)
  const count = slots === undefined ? n : slots.length
  const k3 = model.k3
  const day = model.day
  const eTable = model.earningsTable
  const sessionFactor = model.equityMinutes > 0 ? (model.equityMinutes / REGULAR_SESSION) ** 0.7 : 0
  const weekday = (((day + 3) % 7) + 7) % 7
  const cryptoFactor = weekday >= 5 ? 0.75 : 1
  const equityVol = model.equityVol
  const cryptoVol = model.cryptoVol
  const volRegime = Math.sqrt(equityVol)
  const cryptoRegime = Math.sqrt(cryptoVol)
  for (let k = 0; k < count; k++) {
    const i = slots === undefined ? k : slots[k]
    const crypto = kind[i] === KIND_CRYPTO
    if (!crypto && sessionFactor === 0) {
      traded[i] = 0
      earnings[i] = 0
      open[i] = close[i] = high[i] = low[i] = Number.NaN
      volume[i] = 0
      continue
    }
    const prev = prevClose[i]
    const ri = r[i]
    const o = crypto ? prev : prev * expOfSmall(gap[i])
    const c = closes === undefined ? prev * expOfSmall(ri) : closes[i]
    const h = fmix32(k3 ^ key[i])
    const earn = eTable[i] === day
    const sigma = sigmaTotal[i] * (crypto ? cryptoVol : equityVol)
    const wick = sigma * (crypto ? 0.4 : 0.35) * (earn ? 1.8 : 1)
    const hi = Math.max(o, c)
    const lo = Math.min(o, c)
    traded[i] = 1
    earnings[i] = earn ? 1 : 0
    open[i] = o
    close[i] = c
    high[i] = hi * (1 + wick * EXPONENTIALS[h & EXP_MASK])
    low[i] = lo / (1 + wick * EXPONENTIALS[(h >>> EXP_BITS) & EXP_MASK])
    const move = sigma > 0 ? (ri - drift[i]) / sigma : 0
    const base = avgVolume[i] * Math.min(10, 0.75 + 0.3 * move * move) * VOLUME_NOISE[h >>> (2 * EXP_BITS)]
    if (crypto) {
      volume[i] = base * cryptoFactor * cryptoRegime
    } else {
      volume[i] = Math.max(1, Math.round(base * sessionFactor * volRegime * (earn ? 3 : 1)))
    }
  }
  return out
}

/**
 * Adds each ticker's log return of `model.day` to `acc` (tickers that do not
 * trade that day are left alone).
 */
export const addLogReturns = (model: DayModel, acc: Float64Array, scratch: ReturnScratch): void => {
  const { r, gap } = scratch
  computeReturns(model, r, gap)
  const n = model.p.n
  if (model.equityMinutes > 0) {
    for (let i = 0; i < n; i++) acc[i] += r[i]
  } else {
    const kind = model.p.kind
    for (let i = 0; i < n; i++) if (kind[i] === KIND_CRYPTO) acc[i] += r[i]
  }
}
