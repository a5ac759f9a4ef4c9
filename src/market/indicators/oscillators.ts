/**
 * Wilder-smoothed indicators (RSI-14, ATR-14, +DI/-DI/ADX-14) and the
 * stochastic oscillator (%K 14, %D 3) with Williams %R.
 *
 * Changes, true ranges and directional movements exist from the second bar
 * (index 1). Wilder's average of period 14 starts on index 14 as the simple
 * mean of the first 14 values (indexes 1..14) and continues as
 * (previous x 13 + value) / 14. DX exists from index 14; ADX starts on index
 * 27 as the mean of the first 14 DX values, then is Wilder-smoothed.
 */
import { THRESHOLDS } from "../catalog.js"
import { type Scratch, slot } from "./scratch.js"
import {
  type DailyBar,
  type DailyState,
  F as FAMILIES,
  H as HOT,
  STOCH_PERIOD as STOCH_WINDOW,
  WILDER_PERIOD
} from "./state.js"

// Module-level aliases of the imports used per ticker: under vitest every use of
// an imported binding is a getter call, which more than doubled the cost of a refresh.
const T = THRESHOLDS
const H = HOT
const F = FAMILIES
const N = WILDER_PERIOD
const STOCH_PERIOD = STOCH_WINDOW

const RSI = slot("rsi_14")
const RSI_OVERBOUGHT = slot("rsi_overbought")
const RSI_OVERSOLD = slot("rsi_oversold")
const ATR = slot("atr_14")
const ATR_PCT = slot("atr_pct")
const PLUS_DI = slot("plus_di_14")
const MINUS_DI = slot("minus_di_14")
const ADX = slot("adx_14")
const STRONG_TREND = slot("strong_trend")
const STOCH_K = slot("stoch_k")
const STOCH_D = slot("stoch_d")
const STOCH_OVERBOUGHT = slot("stoch_overbought")
const STOCH_OVERSOLD = slot("stoch_oversold")
const WILLIAMS_R = slot("williams_r_14")
/** first day index with an ADX value (until then `H.adx` holds the sum of the DX values) */
export const ADX_FIRST = 2 * N - 1

/**
 * Wilder's average on day `n` from the committed slot: the previous average,
 * or on day N the seed sum of days 1..N-1 (which the slot holds until then).
 */
const wilder = (n: number, slot: number, x: number): number => (n === N ? (slot + x) / N : (slot * (N - 1) + x) / N)

/** RSI from Wilder averages: 100 when there are no losses, 50 when there is no movement at all. */
export const rsiOf = (avgGain: number, avgLoss: number): number =>
  avgLoss === 0 ? (avgGain === 0 ? 50 : 100) : 100 - 100 / (1 + avgGain / avgLoss)

/** RSI's columns (`families` has `F.rsi`), ATR's and DMI's (`F.directional`) and the stochastic's (`F.stochastic`). */
export const computeOscillators = (st: DailyState, bar: DailyBar, r: Scratch, families: number): void => {
  const { high: h, low: l, close: c } = bar
  const n = st.count
  const hot = st.hot

  if (n >= N && (families & F.rsi) !== 0) {
    const change = c - hot[H.prevClose]
    const avgGain = wilder(n, hot[H.avgGain], Math.max(change, 0))
    const avgLoss = wilder(n, hot[H.avgLoss], Math.max(-change, 0))
    r.put(RSI, rsiOf(avgGain, avgLoss))
    r.flag(RSI_OVERBOUGHT, r.v[RSI] > T.rsiOverbought)
    r.flag(RSI_OVERSOLD, r.v[RSI] < T.rsiOversold)
  }

  if (n >= N && (families & F.directional) !== 0) {
    const pc = hot[H.prevClose]
    const tr = Math.max(h, pc) - Math.min(l, pc)
    const up = h - hot[H.prevHigh]
    const down = hot[H.prevLow] - l
    const pdm = up > down && up > 0 ? up : 0
    const mdm = down > up && down > 0 ? down : 0
    const atr = wilder(n, hot[H.atr], tr)
    const pdmAvg = wilder(n, hot[H.plusDm], pdm)
    const mdmAvg = wilder(n, hot[H.minusDm], mdm)
    r.put(ATR, atr)
    r.put(ATR_PCT, atr / c)
    const pdi = atr > 0 ? (100 * pdmAvg) / atr : 0
    const mdi = atr > 0 ? (100 * mdmAvg) / atr : 0
    r.put(PLUS_DI, pdi)
    r.put(MINUS_DI, mdi)
    const dx = pdi + mdi > 0 ? (100 * Math.abs(pdi - mdi)) / (pdi + mdi) : 0
    if (n >= ADX_FIRST) {
      r.put(ADX, n === ADX_FIRST ? (hot[H.adx] + dx) / N : (hot[H.adx] * (N - 1) + dx) / N)
      r.flag(STRONG_TREND, r.v[ADX] > T.adxStrongTrend)
    }
  }

  if ((families & F.stochastic) !== 0 && !Number.isNaN(hot[H.high13])) {
    const hh = Math.max(hot[H.high13], h)
    const ll = Math.min(hot[H.low13], l)
    r.put(STOCH_K, (100 * (c - ll)) / (hh - ll))
    r.put(WILLIAMS_R, (-100 * (hh - c)) / (hh - ll))
    if (r.ok[STOCH_K]) {
      r.flag(STOCH_OVERBOUGHT, r.v[STOCH_K] > T.stochOverbought)
      r.flag(STOCH_OVERSOLD, r.v[STOCH_K] < T.stochOversold)
    }
    if (n >= STOCH_PERIOD + 1) r.put(STOCH_D, (r.get(STOCH_K) + hot[H.stochK1] + hot[H.stochK2]) / 3)
  }
}
