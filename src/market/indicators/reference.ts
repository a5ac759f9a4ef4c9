/**
 * Every bar-derived column over a whole bar history, built from the batch
 * reference implementations in `batch.ts`: the value at index t is the row of
 * day t. This is the "full recomputation" that the incremental engine must
 * match, and the benchmark baseline. Fundamentals, earnings and news columns
 * are not bar-derived and are not included.
 */
import { THRESHOLDS as T } from "../catalog.js"
import * as B from "./batch.js"
import type { IndicatorConfig } from "./config.js"
import { yearOfDay } from "./days.js"
import type { DailyBar } from "./state.js"

export type Cell = number | boolean | null
type Values = ReadonlyArray<number | null>

/** Apply f index-wise where every input is present; non-finite results become null. */
const lift = (f: (...xs: Array<number>) => number | boolean, ...cols: ReadonlyArray<Values>): Array<Cell> =>
  cols[0].map((_, t) => {
    const xs: Array<number> = []
    for (const c of cols) {
      const x = c[t]
      if (x === null) return null
      xs.push(x)
    }
    const y = f(...xs)
    return typeof y === "boolean" || Number.isFinite(y) ? y : null
  })

/** The value of each column on the previous day (null on the first). */
const previous = (xs: Values): Values => xs.map((_, t) => (t === 0 ? null : xs[t - 1]))

const streaks = (closes: ReadonlyArray<number>, up: boolean): Values => {
  let run = 0
  return closes.map((c, t) => {
    if (t === 0) return null
    run = (up ? c > closes[t - 1] : c < closes[t - 1]) ? run + 1 : 0
    return run
  })
}

const ytd = (bars: ReadonlyArray<DailyBar>): Values => {
  let base: number | null = null
  return bars.map((bar, t) => {
    if (t === 0) return null
    if (yearOfDay(bar.day) > yearOfDay(bars[t - 1].day)) base = bars[t - 1].close
    return base === null ? null : bar.close / base - 1
  })
}

export const referenceColumns = (bars: ReadonlyArray<DailyBar>, config: IndicatorConfig): Map<string, Array<Cell>> => {
  const o = bars.map((b) => b.open)
  const h = bars.map((b) => b.high)
  const l = bars.map((b) => b.low)
  const c = bars.map((b) => b.close)
  const v = bars.map((b) => b.volume)
  const vwap = bars.map((b) => b.vwap ?? (b.high + b.low + b.close) / 3)
  const pc = previous(c)
  const ph = previous(h)
  const pl = previous(l)
  const out = new Map<string, Array<Cell>>()
  const set = (name: string, values: ReadonlyArray<Cell>) => out.set(name, [...values])

  set("price", c)
  set("day_open", o)
  set("day_high", h)
  set("day_low", l)
  set("prev_close", pc)
  set(
    "day_change",
    lift((x, p) => x - p, c, pc)
  )
  set(
    "day_change_pct",
    lift((x, p) => x / p - 1, c, pc)
  )
  const gap = lift((x, p) => x / p - 1, o, pc) as Values
  set("gap_pct", gap)
  set(
    "gap_up",
    lift((g) => g >= T.gapPct, gap)
  )
  set(
    "gap_down",
    lift((g) => g <= -T.gapPct, gap)
  )
  set(
    "change_from_open_pct",
    lift((x, y) => x / y - 1, c, o)
  )
  set(
    "day_range_pct",
    lift((hi, lo, p) => (hi - lo) / p, h, l, pc)
  )
  set(
    "inside_day",
    lift((hi, lo, phi, plo) => hi < phi && lo > plo, h, l, ph, pl)
  )
  set("day_vwap", vwap)
  set(
    "pct_from_vwap",
    lift((x, w) => x / w - 1, c, vwap)
  )
  set(
    "above_vwap",
    lift((x, w) => x > w, c, vwap)
  )
  set("consecutive_up_days", streaks(c, true))
  set("consecutive_down_days", streaks(c, false))

  set("volume_today", v)
  const avg = (n: number) => B.trailingMean(v, n)
  for (const n of [10, 20, 30, 50]) set(`avg_volume_${n}d`, avg(n))
  const rel = lift((x, a) => x / a, v, avg(10)) as Values
  const ratio = lift((x, a) => x / a, v, avg(20)) as Values
  set("relative_volume", rel)
  set("volume_ratio_20d", ratio)
  set(
    "unusual_volume",
    lift((r) => r >= T.unusualRelativeVolume, rel)
  )
  set(
    "high_volume_alert",
    lift((r) => r >= T.highVolumeRatio20d, ratio)
  )
  set(
    "dollar_volume",
    lift((x, y) => x * y, c, v)
  )
  set(
    "avg_dollar_volume_30d",
    B.trailingMean(
      c.map((x, t) => x * v[t]),
      30
    )
  )
  set("obv", B.obv(c, v))

  for (const n of [10, 20, 50, 100, 200]) {
    const s = B.sma(c, n)
    set(`sma_${n}`, s)
    set(
      `pct_from_sma_${n}`,
      lift((x, m) => x / m - 1, c, s)
    )
    set(
      `above_sma_${n}`,
      lift((x, m) => x > m, c, s)
    )
  }
  for (const n of [10, 20, 50, 100, 200, 12, 26]) set(`ema_${n}`, B.ema(c, n))
  for (const n of [20, 50, 200]) {
    const e = B.ema(c, n)
    set(
      `pct_from_ema_${n}`,
      lift((x, m) => x / m - 1, c, e)
    )
    set(
      `above_ema_${n}`,
      lift((x, m) => x > m, c, e)
    )
  }
  const s50 = B.sma(c, 50)
  const s200 = B.sma(c, 200)
  set(
    "sma_50_above_sma_200",
    lift((a, b) => a > b, s50, s200)
  )
  set(
    "golden_cross",
    lift((a, b, pa, pb) => a > b && pa <= pb, s50, s200, previous(s50), previous(s200))
  )
  set(
    "death_cross",
    lift((a, b, pa, pb) => a < b && pa >= pb, s50, s200, previous(s50), previous(s200))
  )

  const r = B.rsi(c, 14)
  set("rsi_14", r)
  set(
    "rsi_overbought",
    lift((x) => x > T.rsiOverbought, r)
  )
  set(
    "rsi_oversold",
    lift((x) => x < T.rsiOversold, r)
  )
  const m = B.macd(c, 12, 26, 9)
  set("macd_line", m.line)
  set("macd_signal", m.signal)
  set("macd_histogram", m.histogram)
  const pm = previous(m.line)
  const ps = previous(m.signal)
  set(
    "macd_bullish_cross",
    lift((x, s, px, pss) => x > s && px <= pss, m.line, m.signal, pm, ps)
  )
  set(
    "macd_bearish_cross",
    lift((x, s, px, pss) => x < s && px >= pss, m.line, m.signal, pm, ps)
  )
  const st = B.stochastic(h, l, c, 14, 3)
  set("stoch_k", st.k)
  set("stoch_d", st.d)
  set(
    "stoch_overbought",
    lift((x) => x > T.stochOverbought, st.k)
  )
  set(
    "stoch_oversold",
    lift((x) => x < T.stochOversold, st.k)
  )
  set("williams_r_14", st.williamsR)
  const dir = B.directional(h, l, c, 14)
  set("adx_14", dir.adx)
  set("plus_di_14", dir.plusDi)
  set("minus_di_14", dir.minusDi)
  set(
    "strong_trend",
    lift((x) => x > T.adxStrongTrend, dir.adx)
  )

  const a = B.atr(h, l, c, 14)
  set("atr_14", a)
  set(
    "atr_pct",
    lift((x, p) => x / p, a, c)
  )
  const bb = B.bollinger(c, 20, 2)
  set("bb_middle", bb.middle)
  set("bb_upper", bb.upper)
  set("bb_lower", bb.lower)
  set("bb_width", bb.width)
  set("bb_percent_b", bb.percentB)
  set(
    "bb_breakout_up",
    lift((x, u) => x > u, c, bb.upper)
  )
  set(
    "bb_breakout_down",
    lift((x, lo) => x < lo, c, bb.lower)
  )
  set("volatility_20d", B.volatility(c, 20, config.yearDays))
  set("volatility_60d", B.volatility(c, 60, config.yearDays))

  const y = config.yearDays
  const hi = B.rollingMax(h, y)
  const lo = B.rollingMin(l, y)
  const priorHi = previous(B.rollingMax(h, y - 1))
  const priorLo = previous(B.rollingMin(l, y - 1))
  set("high_52w", hi)
  set("low_52w", lo)
  const fromHigh = lift((x, m2) => x / m2 - 1, c, hi) as Values
  const fromLow = lift((x, m2) => x / m2 - 1, c, lo) as Values
  set("pct_from_52w_high", fromHigh)
  set("pct_from_52w_low", fromLow)
  set(
    "range_position_52w",
    lift((x, top, bottom) => (x - bottom) / (top - bottom), c, hi, lo)
  )
  set(
    "at_52w_high",
    lift((f) => f >= -T.near52w, fromHigh)
  )
  set(
    "at_52w_low",
    lift((f) => f <= T.near52w, fromLow)
  )
  set(
    "new_52w_high",
    lift((x, p) => x > p, h, priorHi)
  )
  set(
    "new_52w_low",
    lift((x, p) => x < p, l, priorLo)
  )

  set("return_1w", B.trailingReturn(c, config.weekDays))
  set("return_1m", B.trailingReturn(c, config.monthDays))
  set("return_3m", B.trailingReturn(c, config.quarterDays))
  set("return_6m", B.trailingReturn(c, config.halfYearDays))
  set("return_1y", B.trailingReturn(c, config.yearDays))
  set("return_ytd", ytd(bars))
  return out
}
