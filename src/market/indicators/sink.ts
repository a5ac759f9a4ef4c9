/**
 * Binding the scratch row to snapshot columns. `bindColumns` runs once per
 * set of column arrays (precomputing where each slot goes); `writeRow` then
 * copies one ticker's values with tight loops.
 *
 * Fast path: when the numeric values, the flag values and all validity masks
 * are views of three shared buffers (as `allocateColumns` makes them), a row
 * is written through three typed arrays with precomputed offsets; otherwise
 * through each column's own arrays.
 */
import type { BooleanColumn, Column, NumericColumn } from "../snapshot.js"
import { OUTPUT_COLUMNS, type Scratch, slot } from "./scratch.js"

interface Target {
  readonly slot: number
  readonly values: Float64Array | Uint8Array
  readonly valid: Uint8Array
}

interface Packed {
  readonly numbers: Float64Array
  readonly flags: Uint8Array
  readonly valid: Uint8Array
  /** per numeric target: element offset of its values in `numbers` and of its mask in `valid` */
  readonly numberAt: Int32Array
  readonly numberValidAt: Int32Array
  readonly flagAt: Int32Array
  readonly flagValidAt: Int32Array
}

export interface RowSink {
  readonly numericSlots: Int32Array
  readonly flagSlots: Int32Array
  readonly numeric: ReadonlyArray<Target>
  readonly flag: ReadonlyArray<Target>
  readonly packed: Packed | null
}

/** The columns a computed row writes (every non-string catalog column). */
export const COMPUTED_COLUMN_NAMES: ReadonlyArray<string> = OUTPUT_COLUMNS.map((c) => c.name)

const sharedView = <A extends Float64Array | Uint8Array>(
  arrays: ReadonlyArray<A>,
  make: (buffer: ArrayBufferLike) => A
): { readonly view: A; readonly offsets: Int32Array } | null => {
  if (arrays.length === 0) return null
  const buffer = arrays[0].buffer
  if (!arrays.every((a) => a.buffer === buffer)) return null
  const view = make(buffer)
  return { view, offsets: Int32Array.from(arrays, (a) => a.byteOffset / a.BYTES_PER_ELEMENT) }
}

const pack = (numeric: ReadonlyArray<Target>, flag: ReadonlyArray<Target>): Packed | null => {
  const numbers = sharedView(
    numeric.map((t) => t.values as Float64Array),
    (b) => new Float64Array(b)
  )
  const flags = sharedView(
    flag.map((t) => t.values as Uint8Array),
    (b) => new Uint8Array(b)
  )
  const valid = sharedView(
    [...numeric, ...flag].map((t) => t.valid),
    (b) => new Uint8Array(b)
  )
  if (numbers === null || flags === null || valid === null) return null
  return {
    numbers: numbers.view,
    flags: flags.view,
    valid: valid.view,
    numberAt: numbers.offsets,
    flagAt: flags.offsets,
    numberValidAt: valid.offsets.subarray(0, numeric.length),
    flagValidAt: valid.offsets.subarray(numeric.length)
  }
}

/**
 * Bind to the numeric and boolean columns of `columns` that the indicators
 * compute; other columns (strings, unknown names) are left alone. Throws if a
 * computed column is present with the wrong kind.
 */
export const bindColumns = (columns: ReadonlyMap<string, Column>): RowSink => {
  const numeric: Array<Target> = []
  const flag: Array<Target> = []
  for (const def of OUTPUT_COLUMNS) {
    const column = columns.get(def.name)
    if (column === undefined) continue
    const expected = def.type === "boolean" ? "boolean" : "numeric"
    if (column.kind !== expected) throw new TypeError(`column ${def.name} is ${column.kind}, expected ${expected}`)
    const target = { slot: slot(def.name), values: column.values, valid: column.valid }
    if (column.kind === "numeric") numeric.push(target)
    else flag.push(target)
  }
  return {
    numericSlots: Int32Array.from(numeric, (t) => t.slot),
    flagSlots: Int32Array.from(flag, (t) => t.slot),
    numeric,
    flag,
    packed: pack(numeric, flag)
  }
}

/** Copy the scratch row into row `row` of the bound columns. */
export const writeRow = (sink: RowSink, row: number, r: Scratch): void => {
  const V = r.v
  const OK = r.ok
  const ns = sink.numericSlots
  const fs = sink.flagSlots
  const p = sink.packed
  if (p !== null) {
    const { numbers, flags, valid, numberAt, numberValidAt, flagAt, flagValidAt } = p
    for (let j = 0; j < ns.length; j++) {
      const s = ns[j]
      numbers[numberAt[j] + row] = V[s]
      valid[numberValidAt[j] + row] = OK[s]
    }
    for (let j = 0; j < fs.length; j++) {
      const s = fs[j]
      flags[flagAt[j] + row] = V[s]
      valid[flagValidAt[j] + row] = OK[s]
    }
    return
  }
  for (let j = 0; j < ns.length; j++) {
    const s = ns[j]
    const t = sink.numeric[j]
    t.values[row] = V[s]
    t.valid[row] = OK[s]
  }
  for (let j = 0; j < fs.length; j++) {
    const s = fs[j]
    const t = sink.flag[j]
    t.values[row] = V[s]
    t.valid[row] = OK[s]
  }
}

/**
 * Every computed column of a snapshot of `size` rows in three buffers: the numeric columns' values
 * (column after column), the flags' values, and every column's mask (in `OUTPUT_COLUMNS` order).
 */
export interface ColumnBlock {
  readonly size: number
  readonly numbers: Float64Array
  readonly flags: Uint8Array
  readonly valid: Uint8Array
}

const NUMERIC_COUNT = OUTPUT_COLUMNS.filter((c) => c.type !== "boolean").length

/** A zeroed (all-null) block of every computed column for `size` rows. */
export const allocateColumnBlock = (size: number): ColumnBlock => ({
  size,
  numbers: new Float64Array(NUMERIC_COUNT * size),
  flags: new Uint8Array((OUTPUT_COLUMNS.length - NUMERIC_COUNT) * size),
  valid: new Uint8Array(OUTPUT_COLUMNS.length * size)
})

/** The block's columns by name: views of its three buffers, so `writeRow` takes its fast path. */
export const blockColumns = (block: ColumnBlock): Map<string, NumericColumn | BooleanColumn> => {
  const { size, numbers, flags, valid } = block
  const columns = new Map<string, NumericColumn | BooleanColumn>()
  let n = 0
  let f = 0
  OUTPUT_COLUMNS.forEach((def, k) => {
    const mask = valid.subarray(k * size, (k + 1) * size)
    if (def.type === "boolean") {
      columns.set(def.name, { kind: "boolean", values: flags.subarray(f * size, ++f * size), valid: mask })
    } else {
      columns.set(def.name, { kind: "numeric", values: numbers.subarray(n * size, ++n * size), valid: mask })
    }
  })
  return columns
}

/** Fresh zeroed (all-null) arrays for every computed column, for a snapshot of `size` rows (one block's views). */
export const allocateColumns = (size: number): Map<string, NumericColumn | BooleanColumn> =>
  blockColumns(allocateColumnBlock(size))

/** The scratch row as plain values by column name (allocates; for tests, debugging and single-row reads). */
export const scratchValues = (r: Scratch): Record<string, number | boolean | null> => {
  const out: Record<string, number | boolean | null> = {}
  for (const def of OUTPUT_COLUMNS) {
    const s = slot(def.name)
    out[def.name] = r.ok[s] === 0 ? null : def.type === "boolean" ? r.v[s] === 1 : r.v[s]
  }
  return out
}
