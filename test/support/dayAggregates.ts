/**
 * Whole-market daily aggregate files as Polygon/Massive flat files lay them out
 * (`ticker,volume,open,close,high,low,window_start,transactions`, `window_start` in nanoseconds:
 * New York midnight for shares, UTC midnight for crypto pairs `X:<BASE>USD`), generated
 * deterministically from the date: every ticker given, plus `untracked` symbols no directory
 * tracks. For the import's tests and `bench/import.ts`.
 */
import { nyWallTime } from "../../src/market/calendar.js"
import type { TickerMeta } from "../../src/market/tickers/index.js"

export const AGGREGATES_HEADER = "ticker,volume,open,close,high,low,window_start,transactions"

/** A tracked ticker as a flat file writes it. */
export const flatFileTicker = (t: Pick<TickerMeta, "ticker" | "asset_type">): string =>
  t.asset_type === "CRYPTO" ? `X:${t.ticker.replace(/-USD$/, "")}USD` : t.ticker

/** `window_start` of a date: nanoseconds of its New York midnight (shares) or UTC midnight (crypto). */
export const windowStart = (date: string, crypto: boolean): string =>
  `${crypto ? Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) : nyWallTime(date, 0)}000000`

/** a small deterministic hash of a string to [0, 1) */
const unit = (text: string): number => {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return ((h >>> 0) % 1_000_003) / 1_000_003
}

/** One row of a day: prices around a level set by the ticker, moved by the date. */
export const aggregateRow = (symbol: string, date: string, crypto: boolean): string => {
  const level = 5 + 200 * unit(symbol)
  const open = level * (1 + 0.02 * (unit(`${symbol}${date}o`) - 0.5))
  const close = level * (1 + 0.02 * (unit(`${symbol}${date}c`) - 0.5))
  const high = Math.max(open, close) * (1 + 0.01 * unit(`${symbol}${date}h`))
  const low = Math.min(open, close) * (1 - 0.01 * unit(`${symbol}${date}l`))
  const volume = crypto
    ? (1000 * unit(`${symbol}${date}v`)).toFixed(6)
    : String(Math.round(1e6 * unit(`${symbol}${date}v`)))
  const r = (x: number) => x.toFixed(4)
  return `${symbol},${volume},${r(open)},${r(close)},${r(high)},${r(low)},${windowStart(date, crypto)},${Math.round(5000 * unit(symbol))}`
}

/** A whole-market day: every ticker of `tickers`, and `untracked` symbols Vigil does not track (`ZZQ1`…). */
export const dayAggregatesCsv = (
  date: string,
  tickers: ReadonlyArray<Pick<TickerMeta, "ticker" | "asset_type">>,
  untracked = 0
): string => {
  const lines = [AGGREGATES_HEADER]
  for (const t of tickers) lines.push(aggregateRow(flatFileTicker(t), date, t.asset_type === "CRYPTO"))
  for (let i = 0; i < untracked; i++) lines.push(aggregateRow(`ZZQ${i}`, date, false))
  return `${lines.join("\n")}\n`
}
