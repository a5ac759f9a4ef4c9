/**
 * Ordering scan matches fast (the scans' pages, a backtest's top `limit` on
 * each rebalance day). Per snapshot and (column, direction) the rows
 * are sorted once — by the column's value in the direction, NULLs last in
 * both directions, ties by ticker ascending (row order) — and cached as a
 * rank per row. A page is then the first `limit` matches whose rank lies past
 * the cursor's key: the ordering is walked from the cursor's position,
 * testing each row in the matches' bitset, until the page is full.
 */
import type { Column, Snapshot } from "../market/snapshot.js"
import { type Bits, hasBit, rowsOfBits } from "./evaluate/bits.js"

export type OrderValue = number | string | null

interface Ordering {
  /** rows in order */
  readonly perm: Int32Array
  /** position of each row in `perm` */
  readonly rank: Int32Array
}

const cache = new WeakMap<Snapshot, Map<string, Ordering>>()

export const valueAt = (col: Column, r: number): OrderValue =>
  col.kind === "string" ? (col.values[r] ?? null) : col.valid[r] === 0 ? null : col.values[r]!

/** Compares two keys (value, ticker) in scan order: -1 when a comes first. */
export const compareKeys = (a: OrderValue, at: string, b: OrderValue, bt: string, desc: boolean): number => {
  if (a !== b) {
    if (a === null) return 1
    if (b === null) return -1
    const c = a < b ? -1 : 1
    return desc ? -c : c
  }
  return at < bt ? -1 : at > bt ? 1 : 0
}

const orderingOf = (snapshot: Snapshot, column: string, desc: boolean): Ordering => {
  let bySnapshot = cache.get(snapshot)
  if (bySnapshot === undefined) {
    bySnapshot = new Map()
    cache.set(snapshot, bySnapshot)
  }
  const cacheKey = `${column}:${desc ? "d" : "a"}`
  const hit = bySnapshot.get(cacheKey)
  if (hit !== undefined) return hit
  const col = snapshot.columns.get(column)!
  const n = snapshot.size
  const perm = new Int32Array(n)
  for (let i = 0; i < n; i++) perm[i] = i
  if (col.kind === "string") {
    const v = col.values
    perm.sort((x, y) => {
      const a = v[x] ?? null
      const b = v[y] ?? null
      if (a !== b) {
        if (a === null) return 1
        if (b === null) return -1
        return (a < b ? -1 : 1) * (desc ? -1 : 1)
      }
      return x - y
    })
  } else {
    const v = col.values
    const ok = col.valid
    perm.sort((x, y) => {
      const nx = ok[x] === 0
      const ny = ok[y] === 0
      if (nx || ny) return nx && ny ? x - y : nx ? 1 : -1
      const a = v[x]!
      const b = v[y]!
      if (a !== b) return (a < b ? -1 : 1) * (desc ? -1 : 1)
      return x - y
    })
  }
  const rank = new Int32Array(n)
  for (let p = 0; p < n; p++) rank[perm[p]!] = p
  const ordering = { perm, rank }
  bySnapshot.set(cacheKey, ordering)
  return ordering
}

/**
 * The next page of the matched rows (a bitset and its count) in scan order after `after` (the last
 * key of the previous page, or none): up to `limit` rows, and whether more follow. The ordering is
 * walked from the cursor's position until the page is full; few matches are ranked directly.
 */
export const pageOf = (
  snapshot: Snapshot,
  matched: { readonly bits: Bits; readonly count: number },
  column: string,
  desc: boolean,
  limit: number,
  after: { readonly value: OrderValue; readonly ticker: string } | undefined
): { readonly rows: Array<number>; readonly more: boolean } => {
  const { perm, rank } = orderingOf(snapshot, column, desc)
  const col = snapshot.columns.get(column)!
  const n = snapshot.size
  // first position whose key comes after the cursor's key
  let start = 0
  if (after !== undefined) {
    let lo = 0
    let hi = n
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const r = perm[mid]!
      if (compareKeys(valueAt(col, r), snapshot.tickers[r]!, after.value, after.ticker, desc) <= 0) lo = mid + 1
      else hi = mid
    }
    start = lo
  }
  const rows: Array<number> = []
  const { bits, count } = matched
  if (count <= 64) {
    // few matches: sort their ranks directly
    const matches = new Int32Array(count)
    rowsOfBits(bits, matches)
    const ranks: Array<number> = []
    for (let i = 0; i < count; i++) {
      const p = rank[matches[i]!]!
      if (p >= start) ranks.push(p)
    }
    ranks.sort((a, b) => a - b)
    for (let i = 0; i < ranks.length && i < limit; i++) rows.push(perm[ranks[i]!]!)
    return { rows, more: ranks.length > limit }
  }
  for (let p = start; p < n; p++) {
    const r = perm[p]!
    if (hasBit(bits, r)) {
      if (rows.length === limit) return { rows, more: true }
      rows.push(r)
    }
  }
  return { rows, more: false }
}
