/**
 * Which parts of the daily state (`F` in state.ts) each computed column
 * reads: a walk that keeps a few columns (a backtest or a dry-run of
 * `rsi_14 < 30` keeps `rsi_14`, `price` and its order column) commits and
 * previews only those parts — the Wilder averages and the close ring, not
 * the seven moving averages, the 52-week extremes' rescans or the volume
 * windows — and its rows of those columns are the full engine's, bit for
 * bit (`test/market/indicatorFamilies.test.ts` checks every column against
 * the full engine over random histories).
 *
 * Three parts are of the preview only: the day's own columns (`F.session`),
 * the returns' (`F.returns`) and the inputs' (`F.inputs`). A column not
 * listed (the price) reads only what is always computed and advanced.
 */
import { ALL_FAMILIES, F } from "./state.js"

const AVERAGES = [
  ...[10, 20, 50, 100, 200].flatMap((p) => [`sma_${p}`, `pct_from_sma_${p}`, `above_sma_${p}`]),
  ...[10, 20, 50, 100, 200, 12, 26].map((p) => `ema_${p}`),
  ...[20, 50, 200].flatMap((p) => [`pct_from_ema_${p}`, `above_ema_${p}`]),
  "macd_line",
  "macd_signal",
  "macd_histogram",
  "macd_bullish_cross",
  "macd_bearish_cross",
  "sma_50_above_sma_200",
  "golden_cross",
  "death_cross"
]
const BOLLINGER = [
  "bb_middle",
  "bb_upper",
  "bb_lower",
  "bb_width",
  "bb_percent_b",
  "bb_breakout_up",
  "bb_breakout_down"
]
const VOLUME = [
  ...[10, 20, 30, 50].map((p) => `avg_volume_${p}d`),
  "relative_volume",
  "volume_ratio_20d",
  "unusual_volume",
  "high_volume_alert",
  "avg_dollar_volume_30d"
]
const RSI = ["rsi_14", "rsi_overbought", "rsi_oversold"]
const DIRECTIONAL = ["atr_14", "atr_pct", "plus_di_14", "minus_di_14", "adx_14", "strong_trend"]
const STOCHASTIC = ["stoch_k", "stoch_d", "stoch_overbought", "stoch_oversold", "williams_r_14"]
const YEAR_RANGE = [
  "high_52w",
  "low_52w",
  "pct_from_52w_high",
  "pct_from_52w_low",
  "range_position_52w",
  "at_52w_high",
  "at_52w_low",
  "new_52w_high",
  "new_52w_low"
]
const VOLATILITY = ["volatility_20d", "volatility_60d"]
const SESSION = [
  "prev_close",
  "day_open",
  "day_high",
  "day_low",
  "day_change",
  "day_change_pct",
  "gap_pct",
  "gap_up",
  "gap_down",
  "change_from_open_pct",
  "day_range_pct",
  "inside_day",
  "day_vwap",
  "pct_from_vwap",
  "above_vwap",
  "consecutive_up_days",
  "consecutive_down_days",
  "volume_today",
  "dollar_volume",
  "obv"
]
const INPUTS = [
  "shares_outstanding",
  "market_cap",
  "micro_cap",
  "small_cap",
  "mid_cap",
  "large_cap",
  "mega_cap",
  "eps",
  "pe_ratio",
  "earnings_yield",
  "forward_pe",
  "price_to_book",
  "price_to_sales",
  "dividend_yield",
  "dividend_payer",
  "beta",
  "short_interest",
  "institutional_ownership",
  "insider_ownership",
  "analyst_target_price",
  "analyst_target_upside",
  "days_to_earnings",
  "earnings_this_week",
  "news_volume",
  "news_volume_weighted_sentiment"
]

const BY_COLUMN: ReadonlyMap<string, number> = new Map([
  ...AVERAGES.map((c) => [c, F.averages] as const),
  // the bands are around the SMA-20
  ...BOLLINGER.map((c) => [c, F.averages | F.bollinger] as const),
  ...VOLUME.map((c) => [c, F.volume] as const),
  ...RSI.map((c) => [c, F.rsi] as const),
  ...DIRECTIONAL.map((c) => [c, F.directional] as const),
  ...["return_1w", "return_1m", "return_3m", "return_6m", "return_1y", "return_ytd"].map(
    (c) => [c, F.returns] as const
  ),
  ...STOCHASTIC.map((c) => [c, F.stochastic] as const),
  ...YEAR_RANGE.map((c) => [c, F.yearRange] as const),
  ...VOLATILITY.map((c) => [c, F.volatility] as const),
  ...SESSION.map((c) => [c, F.session] as const),
  ...INPUTS.map((c) => [c, F.inputs] as const),
  // days to cover divides the short interest by the 30-day average volume
  ["days_to_cover", F.volume | F.inputs]
])

/** The parts of the state the rows of `columns` read (every part: `columns` undefined). */
export const familiesOf = (columns: Iterable<string> | undefined): number => {
  if (columns === undefined) return ALL_FAMILIES
  let families = 0
  for (const c of columns) families |= BY_COLUMN.get(c) ?? 0
  return families
}
