/**
 * Today's session against the previous close, volume averages and OBV.
 */
import { THRESHOLDS } from "../catalog.js"
import { type Scratch, slot } from "./scratch.js"
import { type DailyBar, type DailyState, F as FAMILIES, H as HOT, VOLUME_PERIODS as VOLUME_WINDOWS } from "./state.js"

// Module-level aliases of the imports used per ticker: under vitest every use of
// an imported binding is a getter call, which more than doubled the cost of a refresh.
const T = THRESHOLDS
const H = HOT
const F = FAMILIES
const VOLUME_PERIODS = VOLUME_WINDOWS

const PRICE = slot("price")
const PREV_CLOSE = slot("prev_close")
const DAY_OPEN = slot("day_open")
const DAY_HIGH = slot("day_high")
const DAY_LOW = slot("day_low")
const DAY_CHANGE = slot("day_change")
const DAY_CHANGE_PCT = slot("day_change_pct")
const GAP_PCT = slot("gap_pct")
const GAP_UP = slot("gap_up")
const GAP_DOWN = slot("gap_down")
const CHANGE_FROM_OPEN = slot("change_from_open_pct")
const DAY_RANGE_PCT = slot("day_range_pct")
const INSIDE_DAY = slot("inside_day")
const DAY_VWAP = slot("day_vwap")
const PCT_FROM_VWAP = slot("pct_from_vwap")
const ABOVE_VWAP = slot("above_vwap")
const UP_STREAK = slot("consecutive_up_days")
const DOWN_STREAK = slot("consecutive_down_days")
const VOLUME_TODAY = slot("volume_today")
const AVG_VOLUME = VOLUME_PERIODS.map((p) => slot(`avg_volume_${p}d`))
const RELATIVE_VOLUME = slot("relative_volume")
const VOLUME_RATIO_20D = slot("volume_ratio_20d")
const UNUSUAL_VOLUME = slot("unusual_volume")
const HIGH_VOLUME_ALERT = slot("high_volume_alert")
const DOLLAR_VOLUME = slot("dollar_volume")
const AVG_DOLLAR_VOLUME_30D = slot("avg_dollar_volume_30d")
const OBV = slot("obv")
const LOG_RETURN = slot("log_return")

/** The price (and the log return, for volatility), the session's columns (`families` has `F.session`) and the volume averages' (`F.volume`). */
export const computeSession = (st: DailyState, bar: DailyBar, r: Scratch, families: number): void => {
  const { close: c, volume: v } = bar
  r.put(PRICE, c)
  if ((families & F.volatility) !== 0 && st.count > 0) r.put(LOG_RETURN, Math.log(c / st.hot[H.prevClose]))
  if ((families & F.session) !== 0) computeDayColumns(st, bar, r)
  if ((families & F.volume) === 0) return
  for (let i = 0; i < VOLUME_PERIODS.length; i++) r.put(AVG_VOLUME[i], st.hot[H.volumeMean + i])
  r.put(RELATIVE_VOLUME, v / r.get(AVG_VOLUME[0]))
  r.put(VOLUME_RATIO_20D, v / r.get(AVG_VOLUME[1]))
  if (r.ok[RELATIVE_VOLUME]) r.flag(UNUSUAL_VOLUME, r.v[RELATIVE_VOLUME] >= T.unusualRelativeVolume)
  if (r.ok[VOLUME_RATIO_20D]) r.flag(HIGH_VOLUME_ALERT, r.v[VOLUME_RATIO_20D] >= T.highVolumeRatio20d)
  r.put(AVG_DOLLAR_VOLUME_30D, st.hot[H.dollarVolumeMean])
}

/** Today's bar against the previous close: changes, gaps, VWAP, streaks, OBV. */
const computeDayColumns = (st: DailyState, bar: DailyBar, r: Scratch): void => {
  const { open: o, high: h, low: l, close: c, volume: v } = bar
  r.put(DAY_OPEN, o)
  r.put(DAY_HIGH, h)
  r.put(DAY_LOW, l)
  r.put(VOLUME_TODAY, v)
  r.put(DOLLAR_VOLUME, c * v)
  r.put(CHANGE_FROM_OPEN, c / o - 1)
  const vwap = bar.vwap ?? (h + l + c) / 3
  r.put(DAY_VWAP, vwap)
  r.put(PCT_FROM_VWAP, c / vwap - 1)
  if (r.ok[DAY_VWAP]) r.flag(ABOVE_VWAP, c > vwap)

  if (st.count === 0) {
    r.put(OBV, 0)
    return
  }
  const hot = st.hot
  const pc = hot[H.prevClose]
  r.put(PREV_CLOSE, pc)
  r.put(DAY_CHANGE, c - pc)
  r.put(DAY_CHANGE_PCT, c / pc - 1)
  r.put(GAP_PCT, o / pc - 1)
  if (r.ok[GAP_PCT]) {
    r.flag(GAP_UP, r.v[GAP_PCT] >= T.gapPct)
    r.flag(GAP_DOWN, r.v[GAP_PCT] <= -T.gapPct)
  }
  r.put(DAY_RANGE_PCT, (h - l) / pc)
  r.flag(INSIDE_DAY, h < hot[H.prevHigh] && l > hot[H.prevLow])
  r.put(UP_STREAK, c > pc ? hot[H.upStreak] + 1 : 0)
  r.put(DOWN_STREAK, c < pc ? hot[H.downStreak] + 1 : 0)
  r.put(OBV, hot[H.obv] + (c > pc ? v : c < pc ? -v : 0))
}
