/**
 * Ticker rows as answers carry them: a snapshot row as a JSON object (or, for
 * a page of rows, its JSON text written directly), the row's columns in
 * catalog order, and the static fields that always reflect current values.
 */
import { columnByName } from "../../market/catalog.js"
import type { Column, Snapshot } from "../../market/snapshot.js"

/** Static fields of the row: they always reflect current values, also in historical reads. */
export const FROZEN_FIELDS = ["name", "sector", "industry", "asset_type", "exchange"] as const

/** One snapshot row as JSON: the named columns (every column when omitted), nulls kept. */
export const renderRow = (
  snapshot: Snapshot,
  r: number,
  columns?: ReadonlyArray<string>
): Record<string, string | number | boolean | null> => {
  const out: Record<string, string | number | boolean | null> = {}
  const names = columns ?? [...snapshot.columns.keys()]
  for (const name of names) {
    const col = snapshot.columns.get(name)
    if (col === undefined) continue
    if (col.kind === "string") out[name] = col.values[r] ?? null
    else if (col.valid[r] === 0) out[name] = null
    else out[name] = col.kind === "boolean" ? col.values[r] === 1 : col.values[r]
  }
  return out
}

/** A value of a column as JSON writes it: a finite number as its ToString, NaN and ±Infinity as null. */
const valueJson = (col: Column, r: number): string => {
  if (col.kind === "string") {
    const v = col.values[r]
    return v === null || v === undefined ? "null" : JSON.stringify(v)
  }
  if (col.valid[r] === 0) return "null"
  if (col.kind === "boolean") return col.values[r] === 1 ? "true" : "false"
  const v = col.values[r]!
  return Number.isFinite(v) ? String(v) : "null"
}

/**
 * Per snapshot, each row's JSON text for the last few sets of columns pages were written with,
 * made when first written (`ROW_TEXT_SETS` sets at most, least recently used out): a page of
 * distinct rows is then 50 lookups and a join, where concatenating ~10 cells a row was the page's
 * largest cost. The texts of the whole market for the default columns are ~3 MB.
 */
const ROW_TEXT_SETS = 4
const rowTexts = new WeakMap<Snapshot, Map<string, Array<string | undefined>>>()

const rowTextsOf = (snapshot: Snapshot, columnsKey: string): Array<string | undefined> => {
  let sets = rowTexts.get(snapshot)
  if (sets === undefined) {
    sets = new Map()
    rowTexts.set(snapshot, sets)
  }
  let texts = sets.get(columnsKey)
  if (texts !== undefined) {
    // most recently used last
    sets.delete(columnsKey)
  } else {
    texts = new Array<string | undefined>(snapshot.tickers.length)
    if (sets.size >= ROW_TEXT_SETS) sets.delete(sets.keys().next().value as string)
  }
  sets.set(columnsKey, texts)
  return texts
}

/**
 * The JSON text of `rows` rendered as `renderRow` renders them — the very text of
 * `JSON.stringify(rows.map((r) => renderRow(snapshot, r, columns)))` — written directly, with no
 * object per row (a scan page's rows were ~15% of its CPU through objects and `JSON.stringify`).
 */
export const renderRowsJson = (snapshot: Snapshot, rows: ReadonlyArray<number>, columns: ReadonlyArray<string>) => {
  const keys: Array<string> = []
  const cols: Array<Column> = []
  const seen = new Set<string>()
  for (const name of columns) {
    const col = snapshot.columns.get(name)
    if (col === undefined || seen.has(name)) continue
    seen.add(name)
    keys.push(`${keys.length === 0 ? "{" : ","}${JSON.stringify(name)}:`)
    cols.push(col)
  }
  if (cols.length === 0) return `[${rows.map(() => "{}").join(",")}]`
  const known = rowTextsOf(snapshot, keys.join(""))
  const parts = new Array<string>(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!
    let text = known[r]
    if (text === undefined) {
      const cells = new Array<string>(cols.length * 2 + 1)
      for (let j = 0; j < cols.length; j++) {
        cells[2 * j] = keys[j]!
        cells[2 * j + 1] = valueJson(cols[j]!, r)
      }
      cells[cols.length * 2] = "}"
      // joined, not concatenated: a flat string, not a rope of the cells, is what is kept
      text = cells.join("")
      known[r] = text
    }
    parts[i] = text
  }
  return `[${parts.join(",")}]`
}

/** Every column name of the ticker row in catalog order. */
export const ROW_COLUMNS: ReadonlyArray<string> = [...columnByName.keys()]
