/**
 * Moving averages and what is derived from them: SMA/EMA 10-200, MACD
 * (12, 26, 9), Bollinger bands (20, 2) and the SMA-50/200 crosses.
 *
 * EMA(n) is seeded with the SMA of the first n closes (its value on day n - 1
 * is that SMA), then ema = alpha x close + (1 - alpha) x previous ema with
 * alpha = 2 / (n + 1). The MACD signal line is seeded likewise with the mean
 * of the first 9 MACD values (their sum is kept in `H.macdSignal` until then).
 */
import { type Scratch, slot } from "./scratch.js"
import {
  BOLLINGER_PERIOD as BB_PERIOD,
  type DailyBar,
  type DailyState,
  F as FAMILIES,
  H as HOT,
  MA_PERIODS as MA_WINDOWS
} from "./state.js"
import { m2WithValue as welford } from "./window.js"

// Module-level aliases of the imports used per ticker: under vitest every use of
// an imported binding is a getter call, which more than doubled the cost of a refresh.
const H = HOT
const F = FAMILIES
const MA_PERIODS = MA_WINDOWS
const BOLLINGER_PERIOD = BB_PERIOD
const m2WithValue = welford

const SMA_PERIODS = [10, 20, 50, 100, 200] as const
const SMA = SMA_PERIODS.map((p) => slot(`sma_${p}`))
const PCT_FROM_SMA = SMA_PERIODS.map((p) => slot(`pct_from_sma_${p}`))
const ABOVE_SMA = SMA_PERIODS.map((p) => slot(`above_sma_${p}`))
/** EMA output slots per MA_PERIODS index */
const EMA = MA_PERIODS.map((p) => slot(`ema_${p}`))
const EMA_DISTANCE = [20, 50, 200].map((p) => ({
  ema: slot(`ema_${p}`),
  pct: slot(`pct_from_ema_${p}`),
  above: slot(`above_ema_${p}`)
}))
export const MACD_FAST = MA_PERIODS.indexOf(12)
export const MACD_SLOW = MA_PERIODS.indexOf(26)
export const MACD_SIGNAL_PERIOD = 9
/** first day index (0-based) with a MACD value, and with a signal value */
export const MACD_FIRST = 25
export const SIGNAL_FIRST = MACD_FIRST + MACD_SIGNAL_PERIOD - 1
const MACD_LINE = slot("macd_line")
const MACD_SIGNAL = slot("macd_signal")
const MACD_HISTOGRAM = slot("macd_histogram")
const MACD_BULL = slot("macd_bullish_cross")
const MACD_BEAR = slot("macd_bearish_cross")
const BB_MIDDLE = slot("bb_middle")
const BB_UPPER = slot("bb_upper")
const BB_LOWER = slot("bb_lower")
const BB_WIDTH = slot("bb_width")
const BB_PERCENT_B = slot("bb_percent_b")
const BB_BREAKOUT_UP = slot("bb_breakout_up")
const BB_BREAKOUT_DOWN = slot("bb_breakout_down")
const SMA_50 = SMA[2]
const SMA_200 = SMA[4]
const SMA_50_ABOVE_200 = slot("sma_50_above_sma_200")
const GOLDEN_CROSS = slot("golden_cross")
const DEATH_CROSS = slot("death_cross")

/**
 * Rounding leaves a flat window (an untraded ticker) with a standard
 * deviation of ~1e-17 instead of 0; below 1e-10 of the mean it is treated as
 * 0, so the bands coincide and %B is null rather than noise.
 */
export const flatToZero = (sd: number, mean: number): number => (sd <= 1e-10 * Math.abs(mean) ? 0 : sd)

/** The averages' columns (`families` has `F.averages`), and Bollinger's where it has `F.bollinger`. */
export const computeAverages = (st: DailyState, bar: DailyBar, r: Scratch, families: number): void => {
  const c = bar.close
  const n = st.count
  for (let i = 0; i < MA_PERIODS.length; i++) {
    const p = MA_PERIODS[i]
    const m = st.hot[H.maMean + i]
    if (Number.isNaN(m)) continue
    const sma = m + (c - m) / p
    if (i < SMA.length) {
      r.put(SMA[i], sma)
      r.put(PCT_FROM_SMA[i], c / sma - 1)
      r.flag(ABOVE_SMA[i], c > sma)
    }
    const alpha = 2 / (p + 1)
    r.put(EMA[i], n === p - 1 ? sma : alpha * c + (1 - alpha) * st.hot[H.ema + i])
  }
  for (const d of EMA_DISTANCE) {
    if (!r.ok[d.ema]) continue
    r.put(d.pct, c / r.v[d.ema] - 1)
    r.flag(d.above, c > r.v[d.ema])
  }

  if (n >= MACD_FIRST) {
    const macd = r.v[EMA[MACD_FAST]] - r.v[EMA[MACD_SLOW]]
    r.put(MACD_LINE, macd)
    if (n >= SIGNAL_FIRST) {
      const alpha = 2 / (MACD_SIGNAL_PERIOD + 1)
      const signal =
        n === SIGNAL_FIRST
          ? (st.hot[H.macdSignal] + macd) / MACD_SIGNAL_PERIOD
          : alpha * macd + (1 - alpha) * st.hot[H.macdSignal]
      r.put(MACD_SIGNAL, signal)
      r.put(MACD_HISTOGRAM, macd - signal)
      if (n > SIGNAL_FIRST) {
        const pm = st.hot[H.macd]
        const ps = st.hot[H.macdSignal]
        r.flag(MACD_BULL, macd > signal && pm <= ps)
        r.flag(MACD_BEAR, macd < signal && pm >= ps)
      }
    }
  }

  const bbMean = (families & F.bollinger) !== 0 ? st.hot[H.bbMean] : Number.NaN
  if (!Number.isNaN(bbMean)) {
    const middle = r.v[SMA[1]]
    // on deviations from the window's shift (a close in it): exact for a near-flat window at any price
    const m2 = m2WithValue(bbMean, st.hot[H.bbM2], BOLLINGER_PERIOD - 1, c - st.hot[H.bbShift])
    const sd = flatToZero(Math.sqrt(Math.max(0, m2 / BOLLINGER_PERIOD)), middle)
    const upper = middle + 2 * sd
    const lower = middle - 2 * sd
    r.put(BB_MIDDLE, middle)
    r.put(BB_UPPER, upper)
    r.put(BB_LOWER, lower)
    r.put(BB_WIDTH, (upper - lower) / middle)
    r.put(BB_PERCENT_B, (c - lower) / (upper - lower))
    r.flag(BB_BREAKOUT_UP, c > upper)
    r.flag(BB_BREAKOUT_DOWN, c < lower)
  }

  if (r.ok[SMA_50] && r.ok[SMA_200]) {
    const s50 = r.v[SMA_50]
    const s200 = r.v[SMA_200]
    r.flag(SMA_50_ABOVE_200, s50 > s200)
    const p50 = st.hot[H.sma50]
    const p200 = st.hot[H.sma200]
    if (!Number.isNaN(p50) && !Number.isNaN(p200)) {
      r.flag(GOLDEN_CROSS, s50 > s200 && p50 <= p200)
      r.flag(DEATH_CROSS, s50 < s200 && p50 >= p200)
    }
  }
}
