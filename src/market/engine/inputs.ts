/**
 * Per-ticker inputs of the indicator engine that do not come from bars:
 * fundamentals, vendor fields, the earnings calendar and news, read from the
 * simulator's columns for one date.
 */
import type { TickerInputs } from "../indicators/index.js"
import type { FundamentalColumns } from "../sim/index.js"

/** Columns the engine derives from `TickerInputs` (the rest come from bars alone). */
export const INPUT_COLUMNS: ReadonlySet<string> = new Set([
  "analyst_target_price",
  "analyst_target_upside",
  "beta",
  "days_to_cover",
  "days_to_earnings",
  "dividend_payer",
  "dividend_yield",
  "earnings_this_week",
  "earnings_yield",
  "eps",
  "forward_pe",
  "insider_ownership",
  "institutional_ownership",
  "large_cap",
  "market_cap",
  "mega_cap",
  "micro_cap",
  "mid_cap",
  "news_volume",
  "news_volume_weighted_sentiment",
  "pe_ratio",
  "price_to_book",
  "price_to_sales",
  "shares_outstanding",
  "short_interest",
  "small_cap"
])

const orNull = (x: number): number | null => (Number.isFinite(x) ? x : null)

/** A `TickerInputs` to refill (`inputsInto`): a walk reads one ticker's inputs at a time and keeps none. */
export type MutableInputs = { -readonly [K in keyof TickerInputs]: TickerInputs[K] }

export const newInputs = (): MutableInputs => ({
  sharesOutstanding: null,
  eps: null,
  forwardEps: null,
  bookValuePerShare: null,
  salesPerShare: null,
  dividendPerShare: null,
  beta: null,
  sharesShort: null,
  institutionalOwnership: null,
  insiderOwnership: null,
  analystTargetPrice: null,
  earningsDay: null,
  newsVolume: 0,
  newsSentiment: 0
})

/**
 * Inputs of ticker `i` from one date's fundamentals and the news columns, written into `out`.
 * `vendor` false nulls the forward-only vendor fields (before the feed began).
 */
export const inputsInto = (
  out: MutableInputs,
  f: FundamentalColumns,
  i: number,
  newsVolume: number,
  newsSentiment: number,
  vendor: boolean
): TickerInputs => {
  out.sharesOutstanding = orNull(f.sharesOutstanding[i])
  out.eps = orNull(f.eps[i])
  out.forwardEps = vendor ? orNull(f.forwardEps[i]) : null
  out.bookValuePerShare = orNull(f.bookValuePerShare[i])
  out.salesPerShare = orNull(f.salesPerShare[i])
  out.dividendPerShare = orNull(f.dividendPerShare[i])
  out.beta = orNull(f.beta[i])
  out.sharesShort = vendor ? orNull(f.sharesShort[i]) : null
  out.institutionalOwnership = vendor ? orNull(f.institutionalOwnership[i]) : null
  out.insiderOwnership = vendor ? orNull(f.insiderOwnership[i]) : null
  out.analystTargetPrice = vendor ? orNull(f.analystTargetPrice[i]) : null
  out.earningsDay = orNull(f.earningsDay[i])
  out.newsVolume = newsVolume
  out.newsSentiment = newsSentiment
  return out
}

/** Inputs of ticker `i` from one date's fundamentals and the news columns (a new object). */
export const tickerInputs = (
  f: FundamentalColumns,
  i: number,
  newsVolume: number,
  newsSentiment: number,
  vendor: boolean
): TickerInputs => inputsInto(newInputs(), f, i, newsVolume, newsSentiment, vendor)
