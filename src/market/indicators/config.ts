/**
 * Per-asset-class windows of the daily indicators. Equities and ETFs trade
 * about 252 sessions a year; crypto trades every day, so its "52 weeks" are
 * 365 bars, its week 7 bars, and its volatility is annualized with sqrt(365).
 */
export interface IndicatorConfig {
  /** bars in 52 weeks: the 52-week high/low window, `return_1y` and the annualization factor */
  readonly yearDays: number
  readonly weekDays: number
  readonly monthDays: number
  readonly quarterDays: number
  readonly halfYearDays: number
}

export const EQUITY_DAILY: IndicatorConfig = {
  yearDays: 252,
  weekDays: 5,
  monthDays: 21,
  quarterDays: 63,
  halfYearDays: 126
}

export const CRYPTO_DAILY: IndicatorConfig = {
  yearDays: 365,
  weekDays: 7,
  monthDays: 30,
  quarterDays: 91,
  halfYearDays: 182
}

/** The config for an `asset_type` value (`CRYPTO` trades 7 days a week; everything else uses sessions). */
export const configForAssetType = (assetType: string): IndicatorConfig =>
  assetType.toUpperCase() === "CRYPTO" ? CRYPTO_DAILY : EQUITY_DAILY

/** The close ring must reach back to the SMA-200 outgoing value and the 60-return window. */
export const validateConfig = (config: IndicatorConfig): void => {
  const { yearDays, weekDays, monthDays, quarterDays, halfYearDays } = config
  const ok =
    Number.isInteger(yearDays) &&
    yearDays >= 201 &&
    [weekDays, monthDays, quarterDays, halfYearDays].every((d) => Number.isInteger(d) && d >= 1 && d <= yearDays)
  if (!ok) throw new RangeError(`invalid indicator config: ${JSON.stringify(config)}`)
}
