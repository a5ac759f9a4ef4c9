/**
 * The 52-week range, trailing returns (week to year, and year to date) and
 * annualized volatility of daily log returns.
 */
import { THRESHOLDS } from "../catalog.js"
import { yearOfDay as civilYear } from "./days.js"
import { type Scratch, slot } from "./scratch.js"
import {
  type DailyBar,
  type DailyState,
  F as FAMILIES,
  H as HOT,
  VOLATILITY_PERIODS as VOLATILITY_WINDOWS
} from "./state.js"
import { m2WithValue as welford } from "./window.js"

// Module-level aliases of the imports used per ticker: under vitest every use of
// an imported binding is a getter call, which more than doubled the cost of a refresh.
const T = THRESHOLDS
const H = HOT
const F = FAMILIES
const VOLATILITY_PERIODS = VOLATILITY_WINDOWS
const yearOfDay = civilYear
const m2WithValue = welford

const HIGH_52W = slot("high_52w")
const LOW_52W = slot("low_52w")
const PCT_FROM_HIGH = slot("pct_from_52w_high")
const PCT_FROM_LOW = slot("pct_from_52w_low")
const RANGE_POSITION = slot("range_position_52w")
const AT_HIGH = slot("at_52w_high")
const AT_LOW = slot("at_52w_low")
const NEW_HIGH = slot("new_52w_high")
const NEW_LOW = slot("new_52w_low")
const RETURN_1W = slot("return_1w")
const RETURN_1M = slot("return_1m")
const RETURN_3M = slot("return_3m")
const RETURN_6M = slot("return_6m")
const RETURN_1Y = slot("return_1y")
const RETURN_YTD = slot("return_ytd")
const VOLATILITY = VOLATILITY_PERIODS.map((p) => slot(`volatility_${p}d`))
const LOG_RETURN = slot("log_return")

const RETURNS = [RETURN_1W, RETURN_1M, RETURN_3M, RETURN_6M, RETURN_1Y]

/** The returns' columns (`families` has `F.returns`), the 52-week range's (`families` has `F.yearRange`) and volatility's (`F.volatility`). */
export const computeRange = (st: DailyState, bar: DailyBar, r: Scratch, families: number): void => {
  const { high: h, low: l, close: c } = bar
  const hot = st.hot
  const highYear = (families & F.yearRange) !== 0 ? hot[H.highYear] : Number.NaN
  const lowYear = hot[H.lowYear]

  if (!Number.isNaN(highYear)) {
    const hi = Math.max(highYear, h)
    const lo = Math.min(lowYear, l)
    r.put(HIGH_52W, hi)
    r.put(LOW_52W, lo)
    r.put(PCT_FROM_HIGH, c / hi - 1)
    r.put(PCT_FROM_LOW, c / lo - 1)
    r.put(RANGE_POSITION, (c - lo) / (hi - lo))
    if (r.ok[PCT_FROM_HIGH]) r.flag(AT_HIGH, r.v[PCT_FROM_HIGH] >= -T.near52w)
    if (r.ok[PCT_FROM_LOW]) r.flag(AT_LOW, r.v[PCT_FROM_LOW] <= T.near52w)
    r.flag(NEW_HIGH, h > highYear)
    r.flag(NEW_LOW, l < lowYear)
  }

  if ((families & F.returns) !== 0) {
    for (let i = 0; i < RETURNS.length; i++) r.put(RETURNS[i], c / hot[H.returnBase + i] - 1)
  }

  if ((families & F.returns) !== 0 && st.count > 0) {
    const base = yearOfDay(bar.day) > hot[H.lastYear] ? hot[H.prevClose] : hot[H.prevYearClose]
    r.put(RETURN_YTD, c / base - 1)
  }

  if ((families & F.volatility) !== 0 && r.ok[LOG_RETURN]) {
    const x = r.v[LOG_RETURN]
    const annualize = Math.sqrt(st.config.yearDays)
    for (let i = 0; i < VOLATILITY_PERIODS.length; i++) {
      const mean = hot[H.volatilityMean + i]
      if (Number.isNaN(mean)) continue
      const n = VOLATILITY_PERIODS[i]
      const variance = Math.max(0, m2WithValue(mean, hot[H.volatilityM2 + i], n - 1, x) / (n - 1))
      r.put(VOLATILITY[i], Math.sqrt(variance) * annualize)
    }
  }
}
