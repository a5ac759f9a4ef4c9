/**
 * Test fixtures for the query module: a column set independent of the real
 * catalog, snapshots built from plain rows, and a ticker lookup.
 */
import type { ColumnDef, ColumnType } from "../../src/market/catalog.js"
import type { Column, Snapshot } from "../../src/market/snapshot.js"
import { type CompileContext, columnsOf, signalsOf } from "../../src/query/index.js"
import { compareStrings } from "../../src/query/semantics.js"

const def = (name: string, type: ColumnType, nullable: boolean): ColumnDef => ({
  name,
  type,
  source: "state",
  nullable,
  unit: "",
  description: name,
  minuteTier: false,
  signal: type !== "string"
})

export const TEST_COLUMNS: ReadonlyArray<ColumnDef> = [
  def("ticker", "string", false),
  def("name", "string", false),
  def("sector", "string", true),
  def("price", "numeric", false),
  def("volume_today", "numeric", false),
  def("relative_volume", "numeric", false),
  def("day_change_pct", "numeric", false),
  def("market_cap", "numeric", true),
  def("pe_ratio", "numeric", true),
  def("rsi_14", "numeric", true),
  def("eps", "numeric", true),
  def("golden_cross", "boolean", false),
  def("above_sma_50", "boolean", false),
  def("earnings_this_week", "boolean", true)
]

export const NUMERIC = TEST_COLUMNS.filter((c) => c.type === "numeric").map((c) => c.name)
export const BOOLEAN = TEST_COLUMNS.filter((c) => c.type === "boolean").map((c) => c.name)
export const STRING = TEST_COLUMNS.filter((c) => c.type === "string").map((c) => c.name)

export type Cell = number | string | boolean | null
export type Row = Readonly<Record<string, Cell>>

/** A snapshot of `rows` (each must have a `ticker`), in ascending byte order of ticker. */
export const snapshotOf = (rows: ReadonlyArray<Row>, columns: ReadonlyArray<ColumnDef> = TEST_COLUMNS): Snapshot => {
  const sorted = [...rows].sort((a, b) => compareStrings(a.ticker as string, b.ticker as string))
  const n = sorted.length
  const map = new Map<string, Column>()
  for (const c of columns) {
    if (c.type === "string") {
      map.set(c.name, { kind: "string", values: sorted.map((r) => (r[c.name] ?? null) as string | null) })
    } else if (c.type === "numeric") {
      const values = new Float64Array(n)
      const valid = new Uint8Array(n)
      sorted.forEach((r, i) => {
        const v = r[c.name]
        if (typeof v === "number") {
          values[i] = v
          valid[i] = 1
        }
      })
      map.set(c.name, { kind: "numeric", values, valid })
    } else {
      const values = new Uint8Array(n)
      const valid = new Uint8Array(n)
      sorted.forEach((r, i) => {
        const v = r[c.name]
        if (typeof v === "boolean") {
          values[i] = v ? 1 : 0
          valid[i] = 1
        }
      })
      map.set(c.name, { kind: "boolean", values, valid })
    }
  }
  const tickers = sorted.map((r) => r.ticker as string)
  return {
    asOf: 0,
    size: n,
    tickers,
    index: new Map(tickers.map((t, i) => [t, i])),
    columns: map
  }
}

/** Ticker lookup over a fixed list (case-insensitive, canonical = upper case). */
export const tickerLookup = (tickers: Iterable<string>) => {
  const set = new Set(tickers)
  return (symbol: string): string | undefined => {
    const upper = symbol.toUpperCase()
    return set.has(upper) ? upper : set.has(symbol) ? symbol : undefined
  }
}

export const context = (
  options: {
    readonly tickers?: Iterable<string>
    readonly signals?: Record<string, string>
    readonly mode?: "query" | "expr"
    readonly self?: string
  } = {}
): CompileContext => ({
  columns: columnsOf(TEST_COLUMNS),
  tickers: tickerLookup(options.tickers ?? ["SPY", "QQQ", "AAPL", "BRK.B", "ALL", "T0", "T1", "T2"]),
  signals: signalsOf(options.signals ?? {}),
  mode: options.mode,
  self: options.self
})
