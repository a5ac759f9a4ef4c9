/**
 * The shape of a daily bar file: which layout its header names (`findLayout`: long, per-ticker or
 * whole-market aggregates, and the column of each field), the range of an aggregates file's
 * `window_start`, and how a whole-market file's symbols resolve to tracked tickers
 * (`flatFileSymbol`, `flatResolver`). Used by `CsvBarParser` (csvBars.ts) and the bulk import's
 * file parser (importFile.ts).
 */
import { CsvImportError, headerColumns } from "./csvLine.js"

/** How a bar file lays out its rows (`splits` files are parsed by `csvSplits.ts`). */
export type BarLayout = "long" | "per-ticker" | "aggregates"

/** A bar file's layout and the column of each field (-1: absent). */
export interface Layout {
  readonly kind: BarLayout
  readonly long: boolean
  readonly ticker: number
  readonly date: number
  readonly open: number
  readonly high: number
  readonly low: number
  readonly close: number
  readonly volume: number
  readonly adjClose: number
  readonly split: number
  /** `window_start` (aggregates): nanoseconds since the epoch */
  readonly windowStart: number
}

/**
 * The layout a header names. Refused: a header without date, open, high, low, close and volume, or without a
 * ticker column when the caller gives no ticker.
 */
export const findLayout = (header: ReadonlyArray<string>, file: string, tickerGiven: boolean): Layout => {
  const { idx } = headerColumns(header)
  const layout = {
    ticker: idx("ticker", "symbol"),
    date: idx("date", "timestamp", "window_start"),
    open: idx("open"),
    high: idx("high"),
    low: idx("low"),
    close: idx("close"),
    volume: idx("volume"),
    adjClose: idx("adj_close", "adjusted_close", "adjclose"),
    split: idx("split_coefficient", "split_factor"),
    windowStart: idx("window_start")
  }
  const missing = (["date", "open", "high", "low", "close", "volume"] as const).filter((k) => layout[k] < 0)
  if (missing.length > 0) {
    throw new CsvImportError(
      1,
      `header lacks ${missing.join(", ")} (expected ticker,date,open,high,low,close,volume or a per-ticker header such as Date,Open,High,Low,Close,Adj Close,Volume)`,
      file
    )
  }
  if (layout.ticker < 0 && !tickerGiven) {
    throw new CsvImportError(1, "the file has no ticker column: name the ticker (--ticker T / ?ticker=T)", file)
  }
  const aggregates = layout.windowStart >= 0 && layout.ticker >= 0
  return {
    ...layout,
    kind: aggregates ? "aggregates" : layout.ticker >= 0 ? "long" : "per-ticker",
    long: layout.ticker >= 0
  }
}

/** `window_start` digits: nanoseconds since the epoch, 1990 to 2100 (`calendar.ts`'s range). */
export const NANOS = /^\d{18,19}$/
export const MIN_NANOS = Date.UTC(1990, 0, 1) * 1e6
export const MAX_NANOS = Date.UTC(2100, 0, 1) * 1e6

/**
 * A flat file's symbol as Vigil would look it up: `X:BTCUSD` → `BTC-USD` (crypto pairs quoted in
 * USD; other quotes, forex `C:` and indices `I:` are not tracked), undefined for a symbol that is
 * not a listed share Vigil could track (lower-case letters mark preferreds, when-issued and the
 * like in these files: `ABCpD`, `ABCw`).
 */
export const flatFileSymbol = (symbol: string): { readonly symbol: string; readonly crypto: boolean } | undefined => {
  if (symbol.startsWith("X:")) {
    const pair = /^X:([A-Z0-9]+)USD$/.exec(symbol)
    return pair === null ? undefined : { symbol: `${pair[1]}-USD`, crypto: true }
  }
  if (symbol.includes(":") || /[a-z]/.test(symbol)) return undefined
  return { symbol, crypto: false }
}

/** A whole-market file's symbol resolved: its canonical ticker and asset class, null when not tracked. */
export type FlatHit = { readonly ticker: string; readonly crypto: boolean } | null

/**
 * Resolves whole-market symbols (`flatFileSymbol`, then the directory), remembering each: a
 * resolver shared by the files of an import (or a process) resolves each symbol once.
 */
export const flatResolver = (
  resolveTicker: (symbol: string) => string | undefined,
  isCrypto: (ticker: string) => boolean
): ((symbol: string) => FlatHit) => {
  const known = new Map<string, FlatHit>()
  return (symbol) => {
    let hit = known.get(symbol)
    if (hit === undefined) {
      const flat = flatFileSymbol(symbol)
      const ticker = flat === undefined ? undefined : resolveTicker(flat.symbol)
      const crypto = ticker !== undefined && isCrypto(ticker)
      // a crypto pair must find a crypto, and a share a share (`X:LINKUSD` is not Interlink)
      hit = ticker === undefined || crypto !== flat!.crypto ? null : { ticker, crypto }
      known.set(symbol, hit)
    }
    return hit
  }
}
