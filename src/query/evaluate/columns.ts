/**
 * Column access for the evaluator, in the evaluator's encodings: numeric
 * columns as Float64Array with NaN for NULL, boolean columns as truth codes
 * (0 FALSE, 1 NULL, 2 TRUE), string columns as arrays with `null`.
 *
 * The encoded copies are built once per column of a snapshot (snapshots are
 * immutable) and cached with the column object as the weak key, so they live
 * exactly as long as the snapshot. A column the snapshot does not carry (a
 * vendor column absent from an old snapshot) reads as all NULL.
 */
import type { BooleanColumn, Column, NumericColumn, Snapshot } from "../../market/snapshot.js"

const numericCache = new WeakMap<NumericColumn, Float64Array>()
const booleanCache = new WeakMap<BooleanColumn, Uint8Array>()
const nullNumeric = new Map<number, Float64Array>()
const nullBoolean = new Map<number, Uint8Array>()
const nullString = new Map<number, ReadonlyArray<null>>()

const mismatch = (name: string, want: string, got: Column): never => {
  throw new Error(`snapshot column '${name}' is ${got.kind}, the catalog says ${want}`)
}

const bounded = <V>(cache: Map<number, V>, n: number, make: () => V): V => {
  let v = cache.get(n)
  if (v === undefined) {
    v = make()
    cache.set(n, v)
    if (cache.size > 8) cache.delete(cache.keys().next().value as number)
  }
  return v
}

export const numericColumn = (snap: Snapshot, name: string): Float64Array => {
  const col = snap.columns.get(name)
  if (col === undefined) return bounded(nullNumeric, snap.size, () => new Float64Array(snap.size).fill(Number.NaN))
  if (col.kind !== "numeric") return mismatch(name, "numeric", col)
  let out = numericCache.get(col)
  if (out === undefined) {
    const { values, valid } = col
    out = new Float64Array(snap.size)
    for (let i = 0; i < out.length; i++) out[i] = valid[i] === 1 ? values[i]! : Number.NaN
    numericCache.set(col, out)
  }
  return out
}

export const booleanColumn = (snap: Snapshot, name: string): Uint8Array => {
  const col = snap.columns.get(name)
  if (col === undefined) return bounded(nullBoolean, snap.size, () => new Uint8Array(snap.size).fill(1))
  if (col.kind !== "boolean") return mismatch(name, "boolean", col)
  let out = booleanCache.get(col)
  if (out === undefined) {
    const { values, valid } = col
    out = new Uint8Array(snap.size)
    for (let i = 0; i < out.length; i++) out[i] = valid[i] === 1 ? (values[i] === 0 ? 0 : 2) : 1
    booleanCache.set(col, out)
  }
  return out
}

export const stringColumn = (snap: Snapshot, name: string): ReadonlyArray<string | null> => {
  const col = snap.columns.get(name)
  if (col === undefined) {
    if (name === "ticker") return snap.tickers
    return bounded(nullString, snap.size, () => new Array<null>(snap.size).fill(null))
  }
  if (col.kind !== "string") return mismatch(name, "string", col)
  return col.values
}

/** One value of a column at `row`, in the evaluator's encoding (for cross-ticker references). */
export const cell = (
  snap: Snapshot,
  name: string,
  row: number,
  type: "numeric" | "boolean" | "string"
): number | string | null => {
  const col = snap.columns.get(name)
  if (col === undefined) {
    if (type === "string") return name === "ticker" ? (snap.tickers[row] ?? null) : null
    return type === "numeric" ? Number.NaN : 1
  }
  if (col.kind !== type) return mismatch(name, type, col)
  switch (col.kind) {
    case "numeric":
      return col.valid[row] === 1 ? col.values[row]! : Number.NaN
    case "boolean":
      return col.valid[row] === 1 ? (col.values[row] === 0 ? 0 : 2) : 1
    case "string":
      return col.values[row] ?? null
  }
}

/** A string column dictionary-encoded: `codes[row]` is the value's id in `ids`, -1 for NULL. */
export interface StringCodes {
  readonly codes: Int32Array
  readonly ids: ReadonlyMap<string, number>
}

const codesCache = new WeakMap<object, StringCodes>()

/**
 * Dictionary encoding of a string column (built once per column of a snapshot), so that
 * comparing with a constant compares integers. The `ticker` column is encoded by the index.
 */
export const stringCodes = (snap: Snapshot, name: string): StringCodes => {
  const values = stringColumn(snap, name)
  let out = codesCache.get(values)
  if (out === undefined) {
    const codes = new Int32Array(snap.size)
    const ids = new Map<string, number>()
    for (let i = 0; i < codes.length; i++) {
      const v = values[i]
      if (v === null || v === undefined) {
        codes[i] = -1
        continue
      }
      let id = ids.get(v)
      if (id === undefined) {
        id = ids.size
        ids.set(v, id)
      }
      codes[i] = id
    }
    out = { codes, ids }
    codesCache.set(values, out)
  }
  return out
}
