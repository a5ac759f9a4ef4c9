/**
 * From the tracked tickers to the simulator's input, and the dates that pin
 * the simulated market.
 */
import type { SimTickerSpec } from "../sim/index.js"
import type { TickerMeta } from "../tickers/index.js"

/**
 * The simulated market is pinned to the seed data: every ticker closes at its
 * seed price on this date (the listing snapshot's date), and moves from there.
 */
export const SIM_ANCHOR_DATE = "2026-08-21"

/**
 * Vendor-sourced fields (`forward_pe`, `short_interest`, ownership, analyst
 * targets) are forward-only: the simulated vendor feed starts on this date,
 * and older rows carry null for them ("not yet backfilled").
 */
export const VENDOR_FEED_START = "2025-07-01"

export const simSpec = (t: TickerMeta): SimTickerSpec => ({
  ticker: t.ticker,
  assetType: t.asset_type,
  sector: t.sector,
  price: t.price,
  sharesOutstanding: t.shares_outstanding,
  avgVolume: t.avg_volume,
  eps: t.fundamentals?.eps ?? null,
  dividendYield: t.fundamentals?.dividend_yield ?? null,
  priceToBook: t.fundamentals?.price_to_book ?? null,
  priceToSales: t.fundamentals?.price_to_sales ?? null,
  // pegged coins barely move
  dailyVol: t.asset_type === "CRYPTO" && t.industry === "Stablecoin" ? 0.0008 : null
})

/**
 * Prices move in ticks: a cent for equities at $1 and above, a hundredth of a
 * cent below; crypto quotes keep 2 decimals from $1,000, 4 from $1 and 6
 * significant digits below.
 */
export const tickRound = (price: number, crypto: boolean): number => {
  if (!Number.isFinite(price)) return price
  if (crypto) {
    if (price >= 1000) return Math.round(price * 100) / 100
    if (price >= 1) return Math.round(price * 10_000) / 10_000
    return Number(price.toPrecision(6))
  }
  return price >= 1 ? Math.round(price * 100) / 100 : Math.max(0.0001, Math.round(price * 10_000) / 10_000)
}
