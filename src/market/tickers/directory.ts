/**
 * Runtime access to the tracked tickers: reads the committed seed
 * (`data/tickers.json`) once and answers symbol lookups in any convention.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Context, Layer } from "effect"
import { decodeSeed, type SeedFile } from "./seed.js"
import { normalizeSymbol } from "./symbols.js"
import type { AssetType, TickerMeta } from "./types.js"

/** Absolute path of the committed seed file. */
export const SEED_PATH: string = fileURLToPath(new URL("../../../data/tickers.json", import.meta.url))

/** Read and decode a seed file (no caching). */
export const readTickerSeed = (path: string = SEED_PATH): ReadonlyArray<TickerMeta> =>
  decodeSeed(JSON.parse(readFileSync(path, "utf8")) as SeedFile)

let cached: ReadonlyArray<TickerMeta> | undefined

/** All tracked tickers, sorted ascending by ticker. Reads the seed on first call only. */
export const loadTickers = (): ReadonlyArray<TickerMeta> => {
  if (cached === undefined) cached = Object.freeze(readTickerSeed())
  return cached
}

/**
 * The `asset_type` filter of GET /v2/tickers, case-insensitive:
 * `equity` → CS and ETF, `crypto` → CRYPTO, and the raw values `cs`, `etf`.
 * Undefined for anything else (the caller decides between 400 and an empty page).
 */
export const assetTypeFilter = (value: string): ReadonlyArray<AssetType> | undefined => {
  switch (value.trim().toLowerCase()) {
    case "equity":
      return EQUITY
    case "crypto":
      return CRYPTO
    case "cs":
      return CS
    case "etf":
      return ETF
    default:
      return undefined
  }
}
const EQUITY: ReadonlyArray<AssetType> = Object.freeze(["CS", "ETF"] as const)
const CRYPTO: ReadonlyArray<AssetType> = Object.freeze(["CRYPTO"] as const)
const CS: ReadonlyArray<AssetType> = Object.freeze(["CS"] as const)
const ETF: ReadonlyArray<AssetType> = Object.freeze(["ETF"] as const)

export interface TickerDirectory {
  /** every tracked ticker, ascending by ticker */
  readonly all: ReadonlyArray<TickerMeta>
  readonly size: number
  /**
   * Find a ticker from a symbol in any convention (`brk-b`, `BRK/B`, `$aapl`, `btc-usd`).
   * A `<SYM>-USD` pair also finds a crypto tracked under its bare symbol (`SOL-USD` → `SOL`);
   * a bare symbol shared with a listed security finds the listed one (`LINK` → Interlink).
   */
  lookup(symbol: string): TickerMeta | undefined
  /** row index of a canonical ticker in `all`, or -1 */
  indexOf(ticker: string): number
}

export const makeTickerDirectory = (tickers: ReadonlyArray<TickerMeta>): TickerDirectory => {
  const all = [...tickers].sort((a, b) => (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0))
  const index = new Map<string, number>()
  all.forEach((t, i) => {
    if (index.has(t.ticker)) throw new Error(`ticker directory: duplicate ticker ${t.ticker}`)
    index.set(t.ticker, i)
  })
  const lookup = (symbol: string): TickerMeta | undefined => {
    const s = normalizeSymbol(symbol)
    const i = index.get(s)
    if (i !== undefined) return all[i]
    if (s.endsWith("-USD")) {
      const j = index.get(s.slice(0, -4))
      if (j !== undefined && all[j]!.asset_type === "CRYPTO") return all[j]
    }
    return undefined
  }
  return {
    all,
    size: all.length,
    lookup,
    indexOf: (ticker) => index.get(ticker) ?? -1
  }
}

let defaultDirectory: TickerDirectory | undefined

/** The directory over `loadTickers()`, built once. */
export const tickerDirectory = (): TickerDirectory => {
  if (defaultDirectory === undefined) defaultDirectory = makeTickerDirectory(loadTickers())
  return defaultDirectory
}

/** Effect service carrying the ticker directory. */
export class Tickers extends Context.Tag("vigil/market/Tickers")<Tickers, TickerDirectory>() {}

/** Layer reading the committed seed. */
export const TickersLive: Layer.Layer<Tickers> = Layer.sync(Tickers, tickerDirectory)
