/**
 * One past evaluation's snapshot, laid out from kept values: the rows of the
 * walked tickers that have a row at that time (a position in the kept
 * arrays), with the kept computed columns and the static text columns, so the
 * compiled query evaluates it as it evaluates a live snapshot. Rows are in
 * slot order (slots ascend), so the rows a query returns map back to sorted
 * slots.
 */
import { columnByName } from "../../market/catalog.js"
import { type MarketReader, STRING_COLUMNS } from "../../market/engine/MarketData.js"
import type { KeptColumn } from "../../market/history/keptRows.js"
import type { Column, Snapshot } from "../../market/snapshot.js"
import type { CompiledQuery } from "../../query/index.js"
import type { Evaluation } from "./replay.js"

/** An evaluation's `closeAt` over the market it read: bar `bar`'s close of slot `id`'s daily series (undefined: none yet). */
export const closeAtOf =
  (md: MarketReader): Evaluation["closeAt"] =>
  (id, bar) => {
    const s = md.series[id]!
    return bar < s.length ? s.close[bar] : undefined
  }

export const STRING_COLUMN_NAMES: ReadonlySet<string> = new Set(STRING_COLUMNS)

export class DaySnapshot {
  /** slot → position in `slots` (-1: not walked) */
  private readonly kOfSlot: Int32Array
  private readonly kinds: ReadonlyArray<"numeric" | "boolean">
  private readonly strings: ReadonlyArray<{ readonly name: string; readonly values: ReadonlyArray<string | null> }>
  /** the current layout: row → position in `slots`, position → row (-1: no row) */
  private kOfRow: Int32Array = new Int32Array(0)
  private rowOfK: Int32Array
  private priceValues: Float64Array = new Float64Array(0)
  private priceValid: Uint8Array = new Uint8Array(0)

  constructor(
    private readonly md: MarketReader,
    private readonly slots: ReadonlyArray<number>,
    private readonly kept: ReadonlyArray<KeptColumn>
  ) {
    this.kOfSlot = new Int32Array(md.size).fill(-1)
    slots.forEach((slot, k) => {
      this.kOfSlot[slot] = k
    })
    this.rowOfK = new Int32Array(slots.length).fill(-1)
    this.kinds = kept.map((c) => (columnByName.get(c.name)?.type === "boolean" ? "boolean" : "numeric"))
    this.strings = [...STRING_COLUMNS].map((name) => ({
      name,
      values: slots.map((slot) => (md.tickers[slot] as unknown as Record<string, string | null>)[name] ?? null)
    }))
    this.tickerOfK = slots.map((slot) => md.tickers[slot]!.ticker)
    this.kOfTicker = new Map(this.tickerOfK.map((t, k) => [t, k]))
  }

  private readonly tickerOfK: ReadonlyArray<string>
  private readonly kOfTicker: ReadonlyMap<string, number>

  /**
   * The snapshot at `asOf` of the walked tickers whose kept position is `positions[k]` (-1: no row),
   * with the static text columns `strings` names (default: all; laying out seven text columns of
   * 13,000 rows every day of a year was most of a year's evaluations).
   */
  at(asOf: number, positions: Int32Array, strings?: ReadonlyArray<string>): Snapshot {
    const rowOfK = this.rowOfK
    let size = 0
    for (let k = 0; k < positions.length; k++) rowOfK[k] = positions[k]! >= 0 ? size++ : -1
    const rows = new Int32Array(size)
    for (let k = 0; k < positions.length; k++) if (rowOfK[k]! >= 0) rows[rowOfK[k]!] = k
    this.kOfRow = rows
    const columns = new Map<string, Column>()
    // the kept positions of the day's rows, then each column gathered (one array type per loop)
    const at = new Int32Array(size)
    for (let r = 0; r < size; r++) at[r] = positions[rows[r]!]!
    this.kept.forEach((c, ci) => {
      const valid = gatherBytes(c.valid, at, new Uint8Array(size))
      if (this.kinds[ci] === "boolean") {
        columns.set(c.name, { kind: "boolean", values: gatherBooleans(c.values, at, new Uint8Array(size)), valid })
        return
      }
      const values = gatherDoubles(c.values, at, new Float64Array(size))
      columns.set(c.name, { kind: "numeric", values, valid })
      if (c.name === "price") {
        this.priceValues = values
        this.priceValid = valid
      }
    })
    for (const s of this.strings) {
      if (strings !== undefined && !strings.includes(s.name)) continue
      columns.set(s.name, { kind: "string", values: Array.from(rows, (k) => s.values[k] ?? null) })
    }
    const tickers = size === this.tickerOfK.length ? this.tickerOfK : Array.from(rows, (k) => this.tickerOfK[k]!)
    return { asOf, size, tickers, index: new RowIndex(this.kOfTicker, this.rowOfK, tickers), columns }
  }

  /**
   * One evaluation at `at` over the rows at `positions`: `q` among the slots in `scope` (ranked among
   * them), `clear` over every row; `bars` (kept by the evaluation) is each walked ticker's daily bar (-1: none).
   */
  evaluate(
    at: number,
    positions: Int32Array,
    bars: Int32Array,
    q: CompiledQuery,
    clear: CompiledQuery | undefined,
    scope: ReadonlySet<number> | undefined
  ): Evaluation {
    const snapshot = this.at(at, positions, [...q.columns, ...(clear?.columns ?? [])])
    // the scope's rows are also those q's ranks (PCT_RANK, RANK, ZSCORE) rank among; clear's rank
    // among every row, as the live evaluator's
    const rows = this.rowsIn(scope)
    return {
      at,
      matched: this.slotsOf(q.evaluate(snapshot, rows, rows)),
      clear: clear === undefined ? undefined : this.slotsOf(clear.evaluate(snapshot)),
      price: (id) => this.price(id),
      bar: (id) => {
        const k = this.positionOf(id)
        return k < 0 ? -1 : bars[k]!
      },
      closeAt: closeAtOf(this.md)
    }
  }

  /** The rows (ascending) of the slots in `scope`; undefined: every row. */
  rowsIn(scope: ReadonlySet<number> | undefined): Int32Array | undefined {
    if (scope === undefined) return undefined
    const out: Array<number> = []
    for (let r = 0; r < this.kOfRow.length; r++) if (scope.has(this.slots[this.kOfRow[r]!]!)) out.push(r)
    return Int32Array.from(out)
  }

  /** The slots of rows (ascending rows give ascending slots). */
  slotsOf(rows: Int32Array): Int32Array {
    const out = new Int32Array(rows.length)
    for (let i = 0; i < rows.length; i++) out[i] = this.slots[this.kOfRow[rows[i]!]!]!
    return out
  }

  /** Position of a slot in the walked slots (-1: not walked). */
  positionOf(slot: number): number {
    return this.kOfSlot[slot] ?? -1
  }

  /** The current layout's price of a slot (NaN: no row or no price). */
  price(slot: number): number {
    const k = this.positionOf(slot)
    const r = k < 0 ? -1 : this.rowOfK[k]!
    return r >= 0 && this.priceValid[r] === 1 ? this.priceValues[r]! : Number.NaN
  }
}

/** A snapshot's `index` (ticker → row) over the current layout, without building a map per evaluation. */
class RowIndex implements ReadonlyMap<string, number> {
  constructor(
    private readonly kOfTicker: ReadonlyMap<string, number>,
    private readonly rowOfK: Int32Array,
    private readonly tickers: ReadonlyArray<string>
  ) {}
  get(ticker: string): number | undefined {
    const k = this.kOfTicker.get(ticker)
    if (k === undefined) return undefined
    const r = this.rowOfK[k]!
    return r < 0 ? undefined : r
  }
  has(ticker: string): boolean {
    return this.get(ticker) !== undefined
  }
  get size(): number {
    return this.tickers.length
  }
  *entries(): MapIterator<[string, number]> {
    for (let r = 0; r < this.tickers.length; r++) yield [this.tickers[r]!, r]
  }
  *keys(): MapIterator<string> {
    yield* this.tickers
  }
  *values(): MapIterator<number> {
    for (let r = 0; r < this.tickers.length; r++) yield r
  }
  [Symbol.iterator](): MapIterator<[string, number]> {
    return this.entries()
  }
  forEach(f: (value: number, key: string, map: ReadonlyMap<string, number>) => void): void {
    for (let r = 0; r < this.tickers.length; r++) f(r, this.tickers[r]!, this)
  }
}

/** `out[r] = from[at[r]]`, one function per array type (each loop sees one kind of array) */
const gatherDoubles = (from: Float64Array, at: Int32Array, out: Float64Array): Float64Array => {
  for (let r = 0; r < at.length; r++) out[r] = from[at[r]!]!
  return out
}

const gatherBytes = (from: Uint8Array, at: Int32Array, out: Uint8Array): Uint8Array => {
  for (let r = 0; r < at.length; r++) out[r] = from[at[r]!]!
  return out
}

/** a kept boolean column's values (0/1 doubles) as a snapshot's bytes */
const gatherBooleans = (from: Float64Array, at: Int32Array, out: Uint8Array): Uint8Array => {
  for (let r = 0; r < at.length; r++) out[r] = from[at[r]!]!
  return out
}
