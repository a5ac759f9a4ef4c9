/**
 * Daily price series for the indicator tests: real Alpha Vantage files from
 * test/fixtures, and generated stand-ins for the ETF and crypto series whose
 * real files may not be copied (test/fixtures/SOURCES.md).
 */
import { THRESHOLDS as T } from "../../src/market/catalog.js"
import { type BarArrays, type DailyBar, epochDay, isoDate } from "../../src/market/indicators/index.js"
import { alphaVantageCsv, seededRandom, syntheticYahooCsv } from "../support/fixtures.js"

export interface DatedBar extends DailyBar {
  readonly date: string
}

const rows = (text: string): Array<Array<string>> =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .slice(1)
    .map((line) => line.split(","))

/**
 * Alpha Vantage daily-adjusted file (AAPL, MSFT, CARR). `adjusted`: OHLC scaled by
 * adjusted_close / close (splits and dividends), volume raw; otherwise the
 * raw, unadjusted OHLC.
 */
export const alphaVantage = (ticker: "AAPL" | "MSFT" | "CARR", adjusted: boolean): Array<DatedBar> =>
  rows(alphaVantageCsv(ticker)).map(([date, open, high, low, close, adjustedClose, volume]) => {
    const f = adjusted ? Number(adjustedClose) / Number(close) : 1
    return {
      date,
      day: epochDay(date),
      open: Number(open) * f,
      high: Number(high) * f,
      low: Number(low) * f,
      close: Number(close) * f,
      volume: Number(volume)
    }
  })

/** A Yahoo-format ETF file (Close is split-adjusted; OHLC as given), generated (`syntheticYahooCsv`). */
export const yahooEtf = (ticker: "SPY" | "QQQ"): Array<DatedBar> =>
  rows(syntheticYahooCsv(ticker)).map(([date, open, high, low, close, , volume]) => ({
    date,
    day: epochDay(date),
    open: Number(open),
    high: Number(high),
    low: Number(low),
    close: Number(close),
    volume: Number(volume)
  }))

/**
 * A generated coin's daily candles, 7 days a week from 2020-01-01 to 2025-10-25
 * (2,125 days, the span of BTC/USD in the shared Coinbase file): each day opens
 * at the previous close, moves about 3.5 % (fat-tailed), and trades a
 * fractional volume in base units.
 */
export const cryptoDaily = (symbol: string): Array<DatedBar> => {
  const { uniform, normal } = seededRandom(`crypto:${symbol}`)
  const first = epochDay("2020-01-01")
  const last = epochDay("2025-10-25")
  const out: Array<DatedBar> = []
  let prev = 7200
  for (let day = first; day <= last; day++) {
    const open = prev
    const sigma = uniform() < 0.05 ? 0.09 : 0.035
    const close = Math.round(open * Math.exp(sigma * normal()) * 100) / 100
    const high = Math.round(Math.max(open, close) * (1 + 0.3 * sigma * Math.abs(normal())) * 100) / 100
    const low = Math.round(Math.min(open, close) * (1 - 0.3 * sigma * Math.abs(normal())) * 100) / 100
    const volume = Math.round(15_000 * Math.exp(0.5 * normal()) * 1e8) / 1e8
    out.push({ date: isoDate(day), day, open, high, low, close, volume })
    prev = close
  }
  return out
}

export type Cell = number | boolean | null

/** Relative closeness, with an absolute floor of 1e-2 x tol for values near zero (MACD histogram, distances, %B). */
export const close = (a: number, b: number, tol: number): boolean =>
  Math.abs(a - b) <= tol * Math.max(Math.abs(a), Math.abs(b), 1e-2)

type Get = (name: string, t: number) => number
const rel = (a: number, b: number): number => Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), 1e-12)

/**
 * For each flag, how far (relatively) the reference values deciding it are
 * from its threshold. Two correct implementations may round a genuine tie
 * (e.g. price equal to its 10-day mean to 15 digits) to different sides, so
 * a flag mismatch is accepted only when this margin is below the tolerance.
 */
const pair = (a: string, b: string) => (get: Get, t: number) => rel(get(a, t), get(b, t))
const level = (a: string, x: number) => (get: Get, t: number) => rel(get(a, t), x)
const cross = (a: string, b: string) => (get: Get, t: number) =>
  Math.min(rel(get(a, t), get(b, t)), rel(get(a, t - 1), get(b, t - 1)))
/**
 * MACD line and signal are in price units and both sit at 0 on a flat
 * stretch, where their relative difference is pure rounding noise: measure
 * their gap against the price level instead.
 */
const atPrice = (get: Get, t: number, a: string, b: string) =>
  Math.abs(get(a, t) - get(b, t)) / Math.max(Math.abs(get(a, t)), Math.abs(get(b, t)), Math.abs(get("price", t)), 1e-12)
const priceCross = (a: string, b: string) => (get: Get, t: number) =>
  Math.min(atPrice(get, t, a, b), atPrice(get, t - 1, a, b))
const TIE_MARGINS: Record<string, (get: Get, t: number) => number> = {
  ...Object.fromEntries([10, 20, 50, 100, 200].map((n) => [`above_sma_${n}`, pair("price", `sma_${n}`)])),
  ...Object.fromEntries([20, 50, 200].map((n) => [`above_ema_${n}`, pair("price", `ema_${n}`)])),
  above_vwap: pair("price", "day_vwap"),
  gap_up: level("gap_pct", T.gapPct),
  gap_down: level("gap_pct", -T.gapPct),
  unusual_volume: level("relative_volume", T.unusualRelativeVolume),
  high_volume_alert: level("volume_ratio_20d", T.highVolumeRatio20d),
  rsi_overbought: level("rsi_14", T.rsiOverbought),
  rsi_oversold: level("rsi_14", T.rsiOversold),
  stoch_overbought: level("stoch_k", T.stochOverbought),
  stoch_oversold: level("stoch_k", T.stochOversold),
  strong_trend: level("adx_14", T.adxStrongTrend),
  bb_breakout_up: pair("price", "bb_upper"),
  bb_breakout_down: pair("price", "bb_lower"),
  at_52w_high: level("pct_from_52w_high", -T.near52w),
  at_52w_low: level("pct_from_52w_low", T.near52w),
  sma_50_above_sma_200: pair("sma_50", "sma_200"),
  golden_cross: cross("sma_50", "sma_200"),
  death_cross: cross("sma_50", "sma_200"),
  macd_bullish_cross: priceCross("macd_line", "macd_signal"),
  macd_bearish_cross: priceCross("macd_line", "macd_signal")
}

/** Differences between a computed row and the reference columns at index t (empty when they agree). */
export const rowMismatches = (
  row: Readonly<Record<string, Cell>>,
  reference: ReadonlyMap<string, ReadonlyArray<Cell>>,
  t: number,
  tol = 1e-9
): Array<string> => {
  const get: Get = (name, u) => {
    const v = reference.get(name)?.[u]
    return typeof v === "number" ? v : Number.NaN
  }
  const out: Array<string> = []
  for (const [name, column] of reference) {
    const a = row[name]
    const b = column[t]
    const same =
      typeof a === "number" && typeof b === "number"
        ? close(a, b, tol)
        : a === b && (a !== undefined || b === undefined)
    const tie = !same && typeof a === "boolean" && typeof b === "boolean" && (TIE_MARGINS[name]?.(get, t) ?? 1) <= tol
    if (!same && !tie) out.push(`${name}@${t}: ${String(a)} vs ${String(b)}`)
  }
  return out
}

/** A deterministic bar series with realistic intraday structure (for synthetic tests). */
export const syntheticBars = (n: number, startDay: number, seed = 1): Array<DailyBar> => {
  let s = seed >>> 0
  const rand = () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0
    return s / 2 ** 32
  }
  const bars: Array<DailyBar> = []
  let prev = 100
  for (let t = 0; t < n; t++) {
    const open = prev * (1 + (rand() - 0.5) * 0.02)
    const close = open * (1 + (rand() - 0.5) * 0.04)
    const high = Math.max(open, close) * (1 + rand() * 0.01)
    const low = Math.min(open, close) * (1 - rand() * 0.01)
    bars.push({ day: startDay + t, open, high, low, close, volume: Math.round(1e5 + rand() * 1e6) })
    prev = close
  }
  return bars
}

/** Bars as the column arrays `restoreFromBars` reads (days as Int32Array, prices and volumes as Float64Array). */
export const barArrays = (bars: ReadonlyArray<DailyBar>): BarArrays => ({
  days: Int32Array.from(bars, (b) => b.day),
  open: Float64Array.from(bars, (b) => b.open),
  high: Float64Array.from(bars, (b) => b.high),
  low: Float64Array.from(bars, (b) => b.low),
  close: Float64Array.from(bars, (b) => b.close),
  volume: Float64Array.from(bars, (b) => b.volume)
})

/** The same columns holding only bars [from, to) (a store that keeps a recent tail). */
export const sliceArrays = (a: BarArrays, from: number, to: number): BarArrays => ({
  days: Int32Array.from(Array.prototype.slice.call(a.days, from, to) as Array<number>),
  open: Float64Array.from(Array.prototype.slice.call(a.open, from, to) as Array<number>),
  high: Float64Array.from(Array.prototype.slice.call(a.high, from, to) as Array<number>),
  low: Float64Array.from(Array.prototype.slice.call(a.low, from, to) as Array<number>),
  close: Float64Array.from(Array.prototype.slice.call(a.close, from, to) as Array<number>),
  volume: Float64Array.from(Array.prototype.slice.call(a.volume, from, to) as Array<number>)
})
