/**
 * Pure pieces of the signal endpoints: name rules, reference detection,
 * `condition` parsing, and the matches of a signal in a snapshot.
 */
import type { ColumnDef } from "../../market/catalog.js"
import type { Snapshot } from "../../market/snapshot.js"
import { parse } from "../../query/index.js"

export const NAME = /^[a-z][a-z0-9_]{0,63}$/
export const MAX_EXPR = 4000
export const MAX_DESCRIPTION = 500

/** Whether `name` reads back as an identifier in an expression (not a keyword such as `and`, `true`, `null`). */
export const isIdentifier = (name: string): boolean => {
  const parsed = parse(name)
  return parsed.ok && parsed.expr._tag === "Ident" && parsed.expr.name === name
}

/** Lower-case identifiers appearing in an expression's text (a text match: string contents count too). */
export const identifiersIn = (expr: string): ReadonlySet<string> =>
  new Set(expr.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? [])

export type Op = ">" | ">=" | "=" | "!=" | "<" | "<="

export interface Condition {
  readonly op: Op
  readonly value: number
  /** canonical text, e.g. `>=70` */
  readonly text: string
}

const CONDITION = /^\s*(>=|<=|!=|<>|>|<|=)\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*$/

/** `<op><value>`; undefined when malformed. `<>` is accepted as `!=`. */
export const parseCondition = (raw: string): Condition | undefined => {
  const m = CONDITION.exec(raw)
  if (m === null) return undefined
  const value = Number(m[2])
  if (!Number.isFinite(value)) return undefined
  const op = (m[1] === "<>" ? "!=" : m[1]) as Op
  return { op, value, text: `${op}${value}` }
}

export const compareNumbers = (op: Op, x: number, y: number): boolean => {
  switch (op) {
    case ">":
      return x > y
    case ">=":
      return x >= y
    case "=":
      return x === y
    case "!=":
      return x !== y
    case "<":
      return x < y
    case "<=":
      return x <= y
  }
}

export interface Match {
  readonly row: number
  readonly ticker: string
  readonly value: number | true
}

const allRows = (snapshot: Snapshot): Int32Array => {
  const out = new Int32Array(snapshot.size)
  for (let r = 0; r < snapshot.size; r++) out[r] = r
  return out
}

const byTicker = (a: Match, b: Match) => (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0)

/** Rows where a boolean built-in is TRUE, by ticker. */
export const booleanMatches = (snapshot: Snapshot, column: ColumnDef, rows?: Int32Array): Array<Match> => {
  const col = snapshot.columns.get(column.name)
  if (col === undefined || col.kind !== "boolean") return []
  const out: Array<Match> = []
  for (const r of rows ?? allRows(snapshot)) {
    if (col.valid[r] === 1 && col.values[r] === 1) out.push({ row: r, ticker: snapshot.tickers[r], value: true })
  }
  return out.sort(byTicker)
}

/** Rows where a numeric built-in satisfies the condition, by value descending then ticker. */
export const numericMatches = (
  snapshot: Snapshot,
  column: ColumnDef,
  condition: Condition,
  rows?: Int32Array
): Array<Match> => {
  const col = snapshot.columns.get(column.name)
  if (col === undefined || col.kind !== "numeric") return []
  const out: Array<Match> = []
  for (const r of rows ?? allRows(snapshot)) {
    if (col.valid[r] === 1 && compareNumbers(condition.op, col.values[r], condition.value)) {
      out.push({ row: r, ticker: snapshot.tickers[r], value: col.values[r] })
    }
  }
  return out.sort((a, b) => (b.value as number) - (a.value as number) || byTicker(a, b))
}

/** Rows given as matching (a custom signal's TRUE rows), by ticker. */
export const rowMatches = (snapshot: Snapshot, rows: Int32Array): Array<Match> =>
  Array.from(rows, (r): Match => ({ row: r, ticker: snapshot.tickers[r], value: true })).sort(byTicker)

/** Index of the first match after a cursor position (`[value, ticker]` for numerics, `ticker` otherwise). */
export const startAfter = (matches: ReadonlyArray<Match>, numeric: boolean, position: unknown): number | undefined => {
  if (numeric) {
    if (!Array.isArray(position) || typeof position[0] !== "number" || typeof position[1] !== "string") return undefined
    const [v, t] = position as [number, string]
    const i = matches.findIndex((m) => (m.value as number) < v || ((m.value as number) === v && m.ticker > t))
    return i < 0 ? matches.length : i
  }
  if (typeof position !== "string") return undefined
  const i = matches.findIndex((m) => m.ticker > position)
  return i < 0 ? matches.length : i
}
