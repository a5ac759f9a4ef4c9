/**
 * The column catalog: every column of the ticker row, with its type, source,
 * nullability, unit, description and availability by interval.
 *
 * - `signal: true` columns are the built-in signals listed by `GET /v2/signals`
 *   (boolean flags and numeric columns). String columns (`ticker`, `name`,
 *   `sector`, ...) are usable in `q` but are not signals.
 * - `source`: `ticker` for static metadata and slowly-moving fundamentals kept
 *   on the ticker itself, `state` for values computed from market state.
 * - `minuteTier`: available at the `1m` / `1h` history intervals (the spec's
 *   minute-tier columns); every other column is daily-only.
 * - `vendor`: forward-only vendor fields (null in older snapshots).
 *
 * Windows count daily bars: trading sessions for equities and ETFs, calendar
 * days for crypto (which trades 7 days a week, so its 52 weeks are 365 bars).
 * Percentages are fractions (0.0153 means 1.53%).
 *
 * The builders of the entries are in catalogColumns.ts.
 *
 * This module depends on nothing else of the service.
 */
import {
  emaColumns,
  emaDistanceColumns,
  flag,
  fundamental,
  fundamentalFlag,
  minute,
  minutePresent,
  num,
  present,
  smaColumns,
  str,
  vendor
} from "./catalogColumns.js"

export type ColumnType = "boolean" | "numeric" | "string"
export type ColumnSource = "state" | "ticker"
export type Interval = "1m" | "1h" | "1d" | "1w"

export interface ColumnDef {
  readonly name: string
  readonly type: ColumnType
  readonly source: ColumnSource
  readonly nullable: boolean
  /** e.g. "USD", "fraction", "shares", "count", "ratio", "index", "days", "" */
  readonly unit: string
  readonly description: string
  readonly minuteTier: boolean
  readonly signal: boolean
  readonly vendor?: boolean
}

/**
 * Thresholds behind the built-in flags. The indicator engine reads them from
 * here, and the descriptions below quote them, so the two cannot drift apart.
 */
export const THRESHOLDS = {
  /** `gap_up` / `gap_down`: |gap_pct| at least this fraction */
  gapPct: 0.02,
  /** `unusual_volume`: relative_volume at least this */
  unusualRelativeVolume: 2,
  /** `high_volume_alert`: volume_ratio_20d at least this */
  highVolumeRatio20d: 3,
  /** `at_52w_high` / `at_52w_low`: price within this fraction of the 52-week extreme */
  near52w: 0.01,
  rsiOverbought: 70,
  rsiOversold: 30,
  stochOverbought: 80,
  stochOversold: 20,
  /** `strong_trend`: adx_14 above this */
  adxStrongTrend: 25,
  /** market-cap buckets (USD): micro < 300M; small < 2B <= mid < 10B <= large < 200B <= mega */
  microCapMax: 300e6,
  smallCapMax: 2e9,
  midCapMax: 10e9,
  largeCapMax: 200e9
} as const

const T = THRESHOLDS
const pct = (x: number) => `${Math.round(x * 10000) / 100}%`
const usd = (x: number) => `$${x / 1e9}B`

/**
 * Every column of the ticker row, in display order. `price` and the other
 * market-state columns are computed by `src/market/indicators` from daily
 * bars (the still-open day included); fundamentals are computed from the
 * per-ticker fundamentals input and the current price.
 */
export const CATALOG: ReadonlyArray<ColumnDef> = [
  // Identity (static; not signals)
  str("ticker", "Exchange symbol for equities and ETFs, bare symbol for crypto (e.g. BTC).", present),
  str("name", "Security name; static (the current value even in historical reads).", present),
  str("asset_type", "Asset type code: CS (common stock), ETF, CRYPTO; static.", present),
  str("exchange", "Uppercase listing exchange code (e.g. NASDAQ, NYSE, ARCA); static."),
  str("country", "Lowercase country code of the issuer (e.g. us); static."),
  str("sector", "Sector name; static."),
  str("industry", "Industry name; static."),

  // Today's session
  num(
    "price",
    "USD",
    "Last traded price: the latest trade of the open session, or the close of a completed day.",
    minutePresent
  ),
  num("prev_close", "USD", "Close of the previous session."),
  num("day_open", "USD", "Opening price of the current session.", present),
  num("day_high", "USD", "Highest price of the current session so far.", present),
  num("day_low", "USD", "Lowest price of the current session so far.", present),
  num("day_change", "USD", "price - prev_close."),
  num("day_change_pct", "fraction", "price / prev_close - 1 (0.0153 means +1.53%).", minute),
  num("gap_pct", "fraction", "day_open / prev_close - 1: the opening gap.", minute),
  flag("gap_up", `Opening gap up: gap_pct >= ${T.gapPct} (${pct(T.gapPct)}).`),
  flag("gap_down", `Opening gap down: gap_pct <= -${T.gapPct} (-${pct(T.gapPct)}).`),
  num("change_from_open_pct", "fraction", "price / day_open - 1: the move since the open.", present),
  num("day_range_pct", "fraction", "(day_high - day_low) / prev_close: today's trading range."),
  flag("inside_day", "day_high < previous session's high and day_low > previous session's low."),
  num(
    "day_vwap",
    "USD",
    "Volume-weighted average price of the session (sum of price x volume / sum of volume over its trades); when the feed gives no VWAP, the typical price (day_high + day_low + price) / 3.",
    minutePresent
  ),
  num("pct_from_vwap", "fraction", "price / day_vwap - 1.", minute),
  flag("above_vwap", "price > day_vwap."),
  num(
    "consecutive_up_days",
    "days",
    "Number of consecutive sessions, today included, that closed above the previous close (0 if today is not up)."
  ),
  num(
    "consecutive_down_days",
    "days",
    "Number of consecutive sessions, today included, that closed below the previous close (0 if today is not down)."
  ),

  // Volume
  num("volume_today", "shares", "Volume traded in the current session so far (base units for crypto).", minutePresent),
  num("avg_volume_10d", "shares", "Mean daily volume of the 10 completed sessions before today."),
  num("avg_volume_20d", "shares", "Mean daily volume of the 20 completed sessions before today."),
  num("avg_volume_30d", "shares", "Mean daily volume of the 30 completed sessions before today."),
  num("avg_volume_50d", "shares", "Mean daily volume of the 50 completed sessions before today."),
  num("relative_volume", "ratio", "volume_today / avg_volume_10d (not adjusted for time of day).", minute),
  num("volume_ratio_20d", "ratio", "volume_today / avg_volume_20d."),
  flag("unusual_volume", `relative_volume >= ${T.unusualRelativeVolume}.`),
  flag(
    "high_volume_alert",
    `volume_ratio_20d >= ${T.highVolumeRatio20d}: today's volume at least ${T.highVolumeRatio20d}x the 20-day average.`
  ),
  num("dollar_volume", "USD", "price x volume_today: dollar volume traded today so far.", present),
  num(
    "avg_dollar_volume_30d",
    "USD",
    "Mean of close x volume over the 30 completed sessions before today (the top_10/top_100 ranking measure)."
  ),
  num(
    "obv",
    "shares",
    "On-balance volume: cumulative sum of +volume on up closes and -volume on down closes (unchanged on flat closes), starting at 0 on the first bar of the ticker's history."
  ),

  // Moving averages and trend
  ...smaColumns,
  ...emaColumns,
  ...emaDistanceColumns,
  flag("sma_50_above_sma_200", "sma_50 > sma_200 (long-term uptrend regime)."),
  flag(
    "golden_cross",
    "sma_50 crossed above sma_200 today: sma_50 > sma_200 today and sma_50 <= sma_200 at the previous close."
  ),
  flag(
    "death_cross",
    "sma_50 crossed below sma_200 today: sma_50 < sma_200 today and sma_50 >= sma_200 at the previous close."
  ),

  // Momentum
  num(
    "rsi_14",
    "index",
    "Relative strength index, 14 sessions, Wilder's smoothing: first average gain/loss = simple mean of the first 14 close-to-close changes, then avg = (prev x 13 + current) / 14; RSI = 100 - 100 / (1 + avg gain / avg loss), 100 when avg loss is 0 (50 when both are 0)."
  ),
  flag("rsi_overbought", `rsi_14 > ${T.rsiOverbought}.`),
  flag("rsi_oversold", `rsi_14 < ${T.rsiOversold}.`),
  num("ema_12", "USD", "12-session EMA of the close (the MACD fast line), seeded with the SMA of the first 12 closes."),
  num("ema_26", "USD", "26-session EMA of the close (the MACD slow line), seeded with the SMA of the first 26 closes."),
  num("macd_line", "USD", "MACD line (12, 26): ema_12 - ema_26."),
  num(
    "macd_signal",
    "USD",
    "MACD signal line: 9-session EMA of macd_line, seeded with the mean of the first 9 MACD values."
  ),
  num("macd_histogram", "USD", "macd_line - macd_signal."),
  flag(
    "macd_bullish_cross",
    "macd_line crossed above macd_signal today (above today, at or below at the previous close)."
  ),
  flag(
    "macd_bearish_cross",
    "macd_line crossed below macd_signal today (below today, at or above at the previous close)."
  ),
  num(
    "stoch_k",
    "index",
    "Stochastic %K (14): 100 x (price - lowest low of 14 sessions) / (highest high - lowest low), today included; null when the range is 0."
  ),
  num("stoch_d", "index", "Stochastic %D: 3-session simple average of stoch_k."),
  flag("stoch_overbought", `stoch_k > ${T.stochOverbought}.`),
  flag("stoch_oversold", `stoch_k < ${T.stochOversold}.`),
  num(
    "williams_r_14",
    "index",
    "Williams %R (14): -100 x (highest high - price) / (highest high - lowest low) over 14 sessions, today included; from -100 to 0."
  ),
  num(
    "adx_14",
    "index",
    "Average directional index (14, Wilder): DX = 100 x |+DI - -DI| / (+DI + -DI); first ADX = mean of the first 14 DX values, then (prev x 13 + DX) / 14."
  ),
  num(
    "plus_di_14",
    "index",
    "+DI (14): 100 x Wilder-smoothed +DM / Wilder-smoothed true range; +DM = high - previous high when it exceeds both 0 and previous low - low."
  ),
  num(
    "minus_di_14",
    "index",
    "-DI (14): 100 x Wilder-smoothed -DM / Wilder-smoothed true range; -DM = previous low - low when it exceeds both 0 and high - previous high."
  ),
  flag("strong_trend", `adx_14 > ${T.adxStrongTrend}.`),

  // Volatility
  num(
    "atr_14",
    "USD",
    "Average true range (14, Wilder): true range = max(high, previous close) - min(low, previous close) from the second bar on; first ATR = mean of the first 14 true ranges, then (prev x 13 + TR) / 14."
  ),
  num("atr_pct", "fraction", "atr_14 / price."),
  num("bb_middle", "USD", "Bollinger middle band: sma_20."),
  num(
    "bb_upper",
    "USD",
    "Bollinger upper band (20, 2): sma_20 + 2 x population standard deviation of the last 20 closes."
  ),
  num(
    "bb_lower",
    "USD",
    "Bollinger lower band (20, 2): sma_20 - 2 x population standard deviation of the last 20 closes."
  ),
  num("bb_width", "fraction", "Bollinger band width: (bb_upper - bb_lower) / bb_middle."),
  num(
    "bb_percent_b",
    "ratio",
    "Bollinger %B: (price - bb_lower) / (bb_upper - bb_lower); null when the bands coincide."
  ),
  flag("bb_breakout_up", "price > bb_upper."),
  flag("bb_breakout_down", "price < bb_lower."),
  num(
    "volatility_20d",
    "fraction",
    "Annualized volatility: sample standard deviation of the last 20 daily log returns x sqrt(252) (sqrt(365) for crypto)."
  ),
  num(
    "volatility_60d",
    "fraction",
    "Annualized volatility: sample standard deviation of the last 60 daily log returns x sqrt(252) (sqrt(365) for crypto)."
  ),

  // 52-week range
  num(
    "high_52w",
    "USD",
    `Highest daily high of the last 52 weeks: 252 sessions (365 days for crypto), today included.`
  ),
  num("low_52w", "USD", `Lowest daily low of the last 52 weeks: 252 sessions (365 days for crypto), today included.`),
  num("pct_from_52w_high", "fraction", "price / high_52w - 1 (0 at the high, negative below it).", minute),
  num("pct_from_52w_low", "fraction", "price / low_52w - 1 (0 at the low, positive above it).", minute),
  num(
    "range_position_52w",
    "ratio",
    "(price - low_52w) / (high_52w - low_52w): 0 at the 52-week low, 1 at the high; null when high = low.",
    minute
  ),
  flag("at_52w_high", `price within ${pct(T.near52w)} of high_52w: pct_from_52w_high >= -${T.near52w}.`),
  flag("at_52w_low", `price within ${pct(T.near52w)} of low_52w: pct_from_52w_low <= ${T.near52w}.`),
  flag("new_52w_high", "Today's high exceeds every daily high of the rest of the 52-week window."),
  flag("new_52w_low", "Today's low is below every daily low of the rest of the 52-week window."),

  // Returns
  num("return_1w", "fraction", "price / close 5 sessions ago - 1 (7 days for crypto)."),
  num("return_1m", "fraction", "price / close 21 sessions ago - 1 (30 days for crypto)."),
  num("return_3m", "fraction", "price / close 63 sessions ago - 1 (91 days for crypto)."),
  num("return_6m", "fraction", "price / close 126 sessions ago - 1 (182 days for crypto)."),
  num("return_1y", "fraction", "price / close 252 sessions ago - 1 (365 days for crypto)."),
  num(
    "return_ytd",
    "fraction",
    "price / last close of the previous calendar year - 1; null without a bar in an earlier year."
  ),

  // Fundamentals (from the ticker's fundamentals input and the current price)
  fundamental("shares_outstanding", "shares", "Shares outstanding (circulating supply for crypto)."),
  fundamental("market_cap", "USD", "Market capitalization: price x shares_outstanding, in whole dollars."),
  fundamentalFlag("micro_cap", `market_cap < $${T.microCapMax / 1e6}M (a subset of small_cap).`),
  fundamentalFlag("small_cap", `market_cap < ${usd(T.smallCapMax)}.`),
  fundamentalFlag("mid_cap", `${usd(T.smallCapMax)} <= market_cap < ${usd(T.midCapMax)}.`),
  fundamentalFlag("large_cap", `${usd(T.midCapMax)} <= market_cap < ${usd(T.largeCapMax)}.`),
  fundamentalFlag("mega_cap", `market_cap >= ${usd(T.largeCapMax)}.`),
  fundamental("eps", "USD", "Earnings per share, trailing twelve months (diluted)."),
  fundamental("pe_ratio", "ratio", "Price / earnings: price / eps; null when eps <= 0 or unknown."),
  fundamental("earnings_yield", "fraction", "eps / price (defined for negative earnings too)."),
  fundamental(
    "forward_pe",
    "ratio",
    "price / consensus EPS estimate for the next twelve months; null when that estimate <= 0.",
    vendor
  ),
  fundamental("price_to_book", "ratio", "price / book value per share; null when book value <= 0."),
  fundamental("price_to_sales", "ratio", "price / trailing-twelve-month revenue per share; null when revenue <= 0."),
  fundamental("dividend_yield", "fraction", "Trailing twelve-month dividends per share / price (0 for non-payers)."),
  fundamentalFlag("dividend_payer", "Paid a dividend in the trailing twelve months (dividend_yield > 0)."),
  fundamental(
    "beta",
    "ratio",
    "Beta of daily returns against the broad market (vendor estimate, usually 5-year monthly)."
  ),
  fundamental(
    "short_interest",
    "fraction",
    "Shares sold short / shares_outstanding, from the latest exchange report.",
    vendor
  ),
  fundamental(
    "days_to_cover",
    "days",
    "Shares sold short / avg_volume_30d: short ratio in sessions of average volume.",
    vendor
  ),
  fundamental("institutional_ownership", "fraction", "Fraction of shares outstanding held by institutions.", vendor),
  fundamental("insider_ownership", "fraction", "Fraction of shares outstanding held by insiders.", vendor),
  fundamental("analyst_target_price", "USD", "Mean analyst 12-month price target.", vendor),
  fundamental("analyst_target_upside", "fraction", "analyst_target_price / price - 1.", vendor),
  fundamental(
    "days_to_earnings",
    "days",
    "Calendar days from today to the next scheduled earnings report (0 on the day)."
  ),
  fundamentalFlag(
    "earnings_this_week",
    "An earnings report is scheduled in the current calendar week (Monday to Sunday, UTC) of the row's date; false when none is known.",
    present
  ),

  // News (rolling 24-hour window, refreshed every 15 minutes)
  num(
    "news_volume",
    "count",
    "24-hour rolling count of news mentions with relevance >= 0.6; refreshed every 15 minutes.",
    present
  ),
  num(
    "news_volume_weighted_sentiment",
    "index",
    "Relevance-weighted average sentiment (-1..1) of the 24-hour mentions, attenuated by tanh(news_volume / 15); 0 without relevant news; refreshed every 15 minutes.",
    present
  )
]

/** The families a person reads a row in (the dashboard's ticker page and query completion). */
export type ColumnGroup =
  | "identity"
  | "price"
  | "volume"
  | "trend"
  | "momentum"
  | "volatility"
  | "fundamentals"
  | "news"

/** each section of CATALOG above by its first column, in order: a column belongs to the last start before it */
const GROUP_STARTS: ReadonlyArray<readonly [string, ColumnGroup]> = [
  ["ticker", "identity"],
  ["price", "price"],
  ["volume_today", "volume"],
  [smaColumns[0]!.name, "trend"],
  ["rsi_14", "momentum"],
  ["atr_14", "volatility"],
  ["high_52w", "price"],
  ["return_1w", "momentum"],
  ["shares_outstanding", "fundamentals"],
  ["news_volume", "news"]
]

/** Each column's group (every column has one). */
export const columnGroup: ReadonlyMap<string, ColumnGroup> = (() => {
  const starts = new Map(GROUP_STARTS)
  const out = new Map<string, ColumnGroup>()
  let group: ColumnGroup | undefined
  for (const c of CATALOG) {
    group = starts.get(c.name) ?? group
    if (group === undefined) throw new Error(`the catalog's first column ${c.name} starts no group`)
    out.set(c.name, group)
  }
  for (const [name] of GROUP_STARTS) {
    if (!out.has(name)) throw new Error(`the group start ${name} is not in the catalog`)
  }
  return out
})()

/** Catalog entries by name. */
export const columnByName: ReadonlyMap<string, ColumnDef> = new Map(CATALOG.map((c) => [c.name, c]))

/** The built-in signals (boolean and numeric columns), as listed by `GET /v2/signals`. */
export const SIGNALS: ReadonlyArray<ColumnDef> = CATALOG.filter((c) => c.signal)

/** Boolean built-ins (flags). */
export const FLAGS: ReadonlyArray<ColumnDef> = CATALOG.filter((c) => c.type === "boolean")

/** Columns served at the minute and hourly history intervals. */
export const MINUTE_TIER: ReadonlyArray<ColumnDef> = CATALOG.filter((c) => c.minuteTier)

/** Whether a column exists in the history at the given interval (`1m`/`1h` only for minute-tier columns). */
export const isAvailableAt = (column: ColumnDef, interval: Interval): boolean =>
  interval === "1d" || interval === "1w" || column.minuteTier

/** The `GET /v2/signals` entry of a built-in signal. */
export const builtinSignalEntry = (column: ColumnDef) => ({
  name: column.name,
  kind: "builtin" as const,
  type: column.type,
  source: column.source
})
