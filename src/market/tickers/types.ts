/**
 * Static metadata and simulator seed values of one tracked ticker.
 *
 * Field names follow the ticker-row column names of the interface (`asset_type`,
 * `shares_outstanding`, `market_cap`, ...) so a snapshot builder can copy them
 * column by column. See docs/tickers.md for every rule behind the values.
 */

/** `CS` common stock (incl. ADRs, REIT/fund shares, LP units, OTC common stocks), `ETF` exchange-traded product, `CRYPTO`. */
export type AssetType = "CS" | "ETF" | "CRYPTO"

export const ASSET_TYPES: ReadonlyArray<AssetType> = ["CS", "ETF", "CRYPTO"]

/**
 * Uppercase exchange code. `OTC`: quoted over the counter (OTC Markets), not exchange-listed; only common
 * stocks added from the SEC ticker file to reach the spec's count (docs/tickers.md, "OTC fill").
 * Crypto trades on no single exchange: `CRYPTO`.
 */
export type ExchangeCode = "NASDAQ" | "NYSE" | "NYSEARCA" | "NYSEAMERICAN" | "CBOEBZX" | "OTC" | "CRYPTO"

export const EXCHANGE_CODES: ReadonlyArray<ExchangeCode> = [
  "NASDAQ",
  "NYSE",
  "NYSEARCA",
  "NYSEAMERICAN",
  "CBOEBZX",
  "OTC",
  "CRYPTO"
]

/**
 * Where `sector`/`industry` came from:
 * - `gics`: S&P 500 constituents file (GICS sector and sub-industry);
 * - `screener`: nasdaq.com screener (its sector name mapped onto the GICS sector names, its industry kept);
 * - `fund`: ETF, industry from keywords in the fund name;
 * - `heuristic`: keywords in the company name;
 * - `crypto`: Vigil's small crypto category table.
 */
export type ClassificationSource = "gics" | "screener" | "fund" | "heuristic" | "crypto"

/**
 * Where a seed value came from: `screener` (nasdaq.com, 2026-08-21 close), `sp500`
 * (S&P 500 financials snapshot), `cmc` (CoinMarketCap listing, 2025-11-03),
 * `yahoo` (SPY/QQQ daily files, last 10 sessions to 2021-06-04), `derived`
 * (deterministic pseudo-random, seeded by the ticker).
 */
export type SeedSource = "screener" | "sp500" | "cmc" | "yahoo" | "derived"

/** Real fundamentals of an S&P 500 name, from fundamentals/sp500_constituents_financials.csv (null when blank). */
export interface Sp500Fundamentals {
  readonly eps: number | null
  /** fraction: 0.0175 means 1.75 % */
  readonly dividend_yield: number | null
  readonly price_to_book: number | null
  readonly price_to_sales: number | null
  readonly pe_ratio: number | null
  readonly low_52w: number | null
  readonly high_52w: number | null
  /** USD, as reported in the file (may differ slightly from price × shares) */
  readonly market_cap: number | null
}

export interface TickerMeta {
  /** canonical symbol (see symbols.ts) */
  readonly ticker: string
  readonly name: string
  readonly asset_type: AssetType
  readonly exchange: ExchangeCode
  /** lowercase ISO 3166-1 alpha-2; `""` for crypto (no country) */
  readonly country: string
  readonly sector: string
  readonly industry: string
  readonly classification_source: ClassificationSource
  /** member of the S&P 500 (symbols/sp500_constituents.csv) */
  readonly sp500: boolean
  /** crypto market-cap rank 1..100 (CoinMarketCap, 2025-11-03); null for listed securities */
  readonly rank: number | null
  /** starting price, USD */
  readonly price: number
  /** shares outstanding; circulating supply for crypto */
  readonly shares_outstanding: number
  /** price × shares_outstanding, USD (ETFs: assets under management) */
  readonly market_cap: number
  /** typical daily volume in shares (coins for crypto) */
  readonly avg_volume: number
  readonly seed_source: {
    readonly price: SeedSource
    readonly shares: SeedSource
    readonly volume: SeedSource
  }
  /** S&P 500 names only */
  readonly fundamentals: Sp500Fundamentals | null
  /**
   * The first year of its daily history where later than 2003 (a listing's IPO year, a crypto's
   * first year of trading; docs/market-data.md, "Coverage"); null: from 2003
   */
  readonly first_year: number | null
}
