/**
 * The columnar market snapshot: one immutable value per refresh (live) or per
 * trading day (historical).
 *
 * Layout: rows are tickers in ascending ticker order (`tickers[i]`), `index`
 * maps a ticker symbol to its row. Numeric columns are `Float64Array`s with a
 * validity mask beside them (`valid[i] === 1` when the value is present; the
 * value slot of a null holds 0, never NaN). Boolean columns are `Uint8Array`s
 * of 0/1 with the same validity mask. String columns are plain arrays.
 *
 * The mask is one byte per row rather than one bit: a compiled predicate reads
 * it without shifts or masks, and 13k rows cost 13 KB per column.
 */
export interface NumericColumn {
  readonly kind: "numeric"
  readonly values: Float64Array
  readonly valid: Uint8Array
}

export interface BooleanColumn {
  readonly kind: "boolean"
  readonly values: Uint8Array
  readonly valid: Uint8Array
}

export interface StringColumn {
  readonly kind: "string"
  readonly values: ReadonlyArray<string | null>
}

export type Column = NumericColumn | BooleanColumn | StringColumn

export interface Snapshot {
  /** epoch milliseconds of the data this snapshot reflects */
  readonly asOf: number
  /** trading date (YYYY-MM-DD) for a daily/historical snapshot; undefined for live */
  readonly date?: string | undefined
  readonly size: number
  readonly tickers: ReadonlyArray<string>
  readonly index: ReadonlyMap<string, number>
  readonly columns: ReadonlyMap<string, Column>
}
