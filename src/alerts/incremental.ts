/**
 * Incremental evaluation between two refreshes.
 *
 * A predicate of the q language is row-local: whether it is TRUE for a
 * ticker depends only on that ticker's row, except for cross-ticker
 * references (`AAPL.price`), which make every row depend on another one.
 * So between two snapshots with the same rows, a (predicate, scope) pair's
 * matches can only change on the rows where one of the columns it reads
 * changed. `ColumnChanges` lists those rows per column (a compare of the two
 * snapshots' arrays, once per tick and column a pair reads); the evaluator then
 *
 * - skips a pair none of whose columns changed on any row it covers (the
 *   result is the previous array, so its actors hear nothing),
 * - evaluates a pair with few such rows on those rows only and patches the
 *   previous result (`patchIds`),
 * - evaluates everything else in full, as before.
 *
 * `tickerRestriction` finds the rows a predicate can match at all from a
 * `ticker = '…'` / `ticker IN (…)` conjunct (what `POST /v2/tickers/{t}/subscribe`
 * stores), so a ticker-scoped pair is checked on its one row, not the market.
 */
import type { Column, Snapshot } from "../market/snapshot.js"
import { allRows, type Node } from "../query/index.js"
import { EMPTY, fitted, sortedDistinct } from "./tickerIds.js"

/** Column names as small integers (process-wide), so a pair's columns are looked up by index. */
const columnIds = new Map<string, number>()
/** the names of the ids `columnId` gave, by id */
const columnNames: Array<string> = []
export const columnId = (name: string): number => {
  let id = columnIds.get(name)
  if (id === undefined) {
    id = columnIds.size
    columnIds.set(name, id)
    columnNames.push(name)
  }
  return id
}
/** column id lists already made, by their names: most pairs read one of a few sets of columns */
const columnSets = new Map<string, Int32Array>()
/** the ids of `names` (one shared array per distinct list) */
export const columnIdsOf = (names: ReadonlyArray<string>): Int32Array => {
  const key = names.join(",")
  let ids = columnSets.get(key)
  if (ids === undefined) {
    if (columnSets.size >= 65_536) columnSets.clear()
    ids = Int32Array.from(names, columnId)
    columnSets.set(key, ids)
  }
  return ids
}

/** a column compared and found unchanged (`rows` holds undefined for one not compared yet) */
const UNCHANGED = new Int32Array(0)

/**
 * The rows whose value changed, per column, between two snapshots with the same rows. A column is
 * compared the first time a pair asks for it: a tick whose due pairs read a few columns compares
 * those, not the snapshot's hundred-odd (each runner of a cluster pays this per tick).
 */
export class ColumnChanges {
  /** by column id: the changed rows (ascending), UNCHANGED, or undefined when not compared yet */
  private readonly rows: Array<Int32Array | undefined> = []
  private readonly masks: Array<Uint8Array | undefined> = []
  private generation = 0
  /** scratch for unions: `seen[r] === stamp()`'s value when row r was seen (see `dirtyRows`) */
  readonly seen: Uint32Array
  readonly size: number
  /** scratch for one comparison */
  private scratch: Int32Array | undefined
  private constructor(
    private readonly prev: Snapshot,
    private readonly next: Snapshot
  ) {
    this.size = next.size
    this.seen = new Uint32Array(next.size)
  }

  /** a fresh mark for `seen` */
  stamp(): number {
    return ++this.generation
  }

  /**
   * The changes from `prev` to `next`, or undefined when their rows differ (another ticker list):
   * then nothing can be patched and every pair is evaluated in full.
   */
  static between(prev: Snapshot, next: Snapshot): ColumnChanges | undefined {
    if (prev.size !== next.size) return undefined
    if (prev.tickers !== next.tickers) {
      for (let i = 0; i < next.size; i++) if (prev.tickers[i] !== next.tickers[i]) return undefined
    }
    return new ColumnChanges(prev, next)
  }

  /** compares column `id` of the two snapshots: its changed rows, or UNCHANGED */
  private compare(id: number): Int32Array {
    const name = columnNames[id]!
    const a = this.prev.columns.get(name)
    const b = this.next.columns.get(name)
    const n = this.size
    let rows: Int32Array
    if (a === b) rows = UNCHANGED
    // a column only one snapshot has, or of another kind: every row changed
    else if (a === undefined || b === undefined || a.kind !== b.kind) rows = n === 0 ? UNCHANGED : allRows(n)
    else {
      this.scratch ??= new Int32Array(n)
      const c = changedRows(a, b, n, this.scratch)
      rows = c === 0 ? UNCHANGED : this.scratch.slice(0, c)
    }
    this.rows[id] = rows
    return rows
  }

  /** the rows (ascending) where `column` changed; undefined when it did not change */
  changed(column: string): Int32Array | undefined {
    return this.changedById(columnId(column))
  }

  /** the same, by column id */
  changedById(id: number): Int32Array | undefined {
    const rows = this.rows[id] ?? this.compare(id)
    return rows === UNCHANGED ? undefined : rows
  }

  /** one byte per row, 1 where the column `id` changed (only for a column that changed) */
  maskById(id: number): Uint8Array {
    let m = this.masks[id]
    if (m === undefined) {
      m = new Uint8Array(this.size)
      for (const r of this.changedById(id) ?? EMPTY) m[r] = 1
      this.masks[id] = m
    }
    return m
  }

  /** how many of the two snapshots' columns changed on some row (compares every one) */
  get columns(): number {
    const names = new Set([...this.prev.columns.keys(), ...this.next.columns.keys()])
    let count = 0
    for (const name of names) if (this.changed(name) !== undefined) count++
    return count
  }
}

const fill = (out: Int32Array, n: number): number => {
  for (let i = 0; i < n; i++) out[i] = i
  return n
}

/** the rows where `a` and `b` differ (value or validity; -0 and 0 differ), into `out`; their count */
const changedRows = (a: Column, b: Column, n: number, out: Int32Array): number => {
  let c = 0
  if (a.kind === "string" && b.kind === "string") {
    const x = a.values
    const y = b.values
    for (let i = 0; i < n; i++) if (x[i] !== y[i]) out[c++] = i
    return c
  }
  if (a.kind === "string" || b.kind === "string") return fill(out, n)
  const x = a.values
  const y = b.values
  const vx = a.valid
  const vy = b.valid
  if (a.kind === "numeric") {
    for (let i = 0; i < n; i++) {
      const p = x[i]!
      const q = y[i]!
      if (vx[i] !== vy[i] || (p !== q && !(p !== p && q !== q)) || (p === 0 && q === 0 && 1 / p !== 1 / q)) out[c++] = i
    }
    return c
  }
  for (let i = 0; i < n; i++) if (vx[i] !== vy[i] || x[i] !== y[i]) out[c++] = i
  return c
}

/**
 * The tickers a predicate can be TRUE for at all, from a conjunct `ticker = '…'` or
 * `ticker IN ('…', …)` at its top (through AND, and OR when every branch has one); undefined
 * when it has none (any ticker may match).
 */
export const tickerRestriction = (n: Node): ReadonlyArray<string> | undefined => {
  switch (n.k) {
    case "cmp": {
      if (n.op !== "=") return undefined
      const lit = isTicker(n.left) ? n.right : isTicker(n.right) ? n.left : undefined
      return lit?.k === "lit" && typeof lit.value === "string" ? [lit.value] : undefined
    }
    case "in": {
      if (n.negated || !isTicker(n.arg)) return undefined
      const out: Array<string> = []
      for (const i of n.items) {
        if (i.k !== "lit") return undefined
        if (typeof i.value === "string") out.push(i.value)
        else if (i.value !== null) return undefined
      }
      return out
    }
    case "and": {
      let best: ReadonlyArray<string> | undefined
      for (const a of n.args) {
        const r = tickerRestriction(a)
        if (r !== undefined && (best === undefined || r.length < best.length)) best = r
      }
      return best
    }
    case "or": {
      const out: Array<string> = []
      for (const a of n.args) {
        const r = tickerRestriction(a)
        if (r === undefined) return undefined
        out.push(...r)
      }
      return out
    }
    default:
      return undefined
  }
}

const isTicker = (n: Node) => n.k === "col" && n.name === "ticker"

/** ascending distinct rows of `tickers` in a snapshot (exact symbols, as the evaluator's lookup) */
export const restrictionRows = (snapshot: Snapshot, tickers: ReadonlyArray<string>): Int32Array => {
  const rows: Array<number> = []
  for (const t of tickers) {
    const r = snapshot.index.get(t)
    if (r !== undefined && snapshot.tickers[r] === t) rows.push(r)
  }
  return sortedDistinct(Int32Array.from(rows))
}

/** the rows of `a` also in `b` (both ascending) */
export const intersectRows = (a: Int32Array, b: Int32Array): Int32Array => {
  if (a.length === 0 || b.length === 0) return EMPTY
  const out = new Int32Array(Math.min(a.length, b.length))
  let i = 0
  let j = 0
  let c = 0
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) i++
    else if (a[i]! > b[j]!) j++
    else {
      out[c++] = a[i]!
      i++
      j++
    }
  }
  return fitted(out, c)
}

/**
 * The rows among `scope` (ascending; undefined: every row) where one of the columns `columns`
 * (ids, see `columnIdsOf`) changed, ascending; undefined when there are more than `limit`
 * (evaluate in full instead).
 */
export const dirtyRows = (
  changes: ColumnChanges,
  columns: Int32Array,
  scope: Int32Array | undefined,
  limit: number
): Int32Array | undefined => {
  let lists = 0
  let total = 0
  let only: Int32Array | undefined
  for (let k = 0; k < columns.length; k++) {
    const rows = changes.changedById(columns[k]!)
    if (rows === undefined) continue
    lists++
    total += rows.length
    only = rows
  }
  if (lists === 0) return EMPTY
  if (scope !== undefined && scope.length <= total) {
    // a small scope (a universe, a ticker): look its rows up in the masks
    let out: Array<number> | undefined
    for (let i = 0; i < scope.length; i++) {
      const r = scope[i]!
      for (let k = 0; k < columns.length; k++) {
        const id = columns[k]!
        if (changes.changedById(id) !== undefined && changes.maskById(id)[r] === 1) {
          out ??= []
          out.push(r)
          break
        }
      }
      if (out !== undefined && out.length > limit) return undefined
    }
    return out === undefined ? EMPTY : Int32Array.from(out)
  }
  // few changed rows: their union, then within the scope
  let union: Int32Array
  if (lists === 1) union = only!
  else {
    if (total > limit && scope === undefined) return undefined
    const collected: Array<number> = []
    const mark = changes.stamp()
    const seen = changes.seen
    for (let k = 0; k < columns.length; k++) {
      const rows = changes.changedById(columns[k]!)
      if (rows === undefined) continue
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i]!
        if (seen[r] !== mark) {
          seen[r] = mark
          collected.push(r)
        }
      }
    }
    union = Int32Array.from(collected).sort()
  }
  const rows = scope === undefined ? union : intersectRows(union, scope)
  return rows.length > limit ? undefined : rows
}

/**
 * The previous matches `previous` (sorted ticker ids) after re-evaluating the rows `dirty`: the
 * ids of `dirty` leave, those of `matched` (a subset of `dirty`) are in. `previous` itself when
 * nothing changed. `ids` maps rows to ticker ids; `monotonic`: ids ascend with rows.
 */
export const patchIds = (
  previous: Int32Array,
  dirty: Int32Array,
  matched: Int32Array,
  matchedCount: number,
  ids: Int32Array,
  monotonic: boolean
): Int32Array => {
  const dirtyIds = Int32Array.from(dirty, (r) => ids[r]!)
  const inIds = new Int32Array(matchedCount)
  for (let i = 0; i < matchedCount; i++) inIds[i] = ids[matched[i]!]!
  if (!monotonic) {
    dirtyIds.sort()
    inIds.sort()
  }
  // unchanged when every dirty id is in `previous` exactly when it matches now
  let same = true
  {
    let p = 0
    let m = 0
    for (const d of dirtyIds) {
      while (p < previous.length && previous[p]! < d) p++
      const was = p < previous.length && previous[p] === d
      while (m < inIds.length && inIds[m]! < d) m++
      const is = m < inIds.length && inIds[m] === d
      if (was !== is) {
        same = false
        break
      }
    }
  }
  if (same) return previous
  const out = new Int32Array(previous.length + inIds.length)
  let c = 0
  let p = 0
  let d = 0
  let m = 0
  while (p < previous.length || m < inIds.length) {
    const x = p < previous.length ? previous[p]! : Number.MAX_SAFE_INTEGER
    const y = m < inIds.length ? inIds[m]! : Number.MAX_SAFE_INTEGER
    if (y <= x) {
      out[c++] = y
      m++
      if (y === x) p++
      continue
    }
    // x from previous: kept unless it is a dirty row (then it is in only through `inIds`)
    while (d < dirtyIds.length && dirtyIds[d]! < x) d++
    if (!(d < dirtyIds.length && dirtyIds[d] === x)) out[c++] = x
    p++
  }
  return fitted(out, c)
}
