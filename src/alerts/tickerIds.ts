/**
 * Ticker symbols interned as small integers for the evaluator and its actors.
 *
 * A match set is a sorted `Int32Array` of ids (4 bytes a ticker, diffed by a
 * merge, shared by reference between the evaluator and every actor of the
 * same predicate and scope) rather than a `Set<string>` per actor: 100,000
 * actors hold their sets in a few tens of MB.
 *
 * Ids are handed out in first-seen order; the evaluator interns the ticker
 * directory first (ascending), so id order is ticker order unless a symbol
 * outside the directory shows up (a delisted ticker in a stored set), which
 * `ordered` reports.
 */
import type { Snapshot } from "../market/snapshot.js"

export class TickerIds {
  private readonly ids = new Map<string, number>()
  private readonly names: Array<string> = []
  private readonly rowIds = new WeakMap<ReadonlyArray<string>, { ids: Int32Array; monotonic: boolean }>()
  /** id order is ascending ticker order (every id was handed out in ascending order) */
  ordered = true

  idOf(name: string): number {
    let id = this.ids.get(name)
    if (id === undefined) {
      id = this.names.length
      const last = this.names[id - 1]
      if (last !== undefined && !(last < name)) this.ordered = false
      this.ids.set(name, id)
      this.names.push(name)
    }
    return id
  }

  nameOf(id: number): string {
    return this.names[id]!
  }

  /** the sorted ids of a list of tickers (duplicates dropped) */
  sortedIds(names: ReadonlyArray<string>): Int32Array {
    // one shared empty set (a new empty array costs ~180 bytes; every new webhook starts empty)
    if (names.length === 0) return EMPTY
    if (names.length === 1) return single(this.idOf(names[0]!))
    return sortedDistinct(Int32Array.from(names, (n) => this.idOf(n)))
  }

  /** the ticker names of sorted ids, in ascending ticker order */
  namesOf(ids: Int32Array): Array<string> {
    const out = Array.from(ids, (id) => this.names[id]!)
    return this.ordered ? out : out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  }

  /** the id of each row of a snapshot (cached per ticker list), and whether they ascend with the rows */
  ofSnapshot(snapshot: Snapshot): { readonly ids: Int32Array; readonly monotonic: boolean } {
    let entry = this.rowIds.get(snapshot.tickers)
    if (entry === undefined) {
      const ids = Int32Array.from(snapshot.tickers, (t) => this.idOf(t))
      let monotonic = true
      for (let i = 1; i < ids.length; i++) if (ids[i]! <= ids[i - 1]!) monotonic = false
      entry = { ids, monotonic }
      this.rowIds.set(snapshot.tickers, entry)
    }
    return entry
  }
}

export const EMPTY: Int32Array = new Int32Array(0)

/** where `id` is in `sorted[from … to - 1]` (ascending), or -1 */
export const indexOfId = (sorted: Int32Array, id: number, from = 0, to = sorted.length): number => {
  let lo = from
  let hi = to - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const v = sorted[mid]!
    if (v === id) return mid
    if (v < id) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}

/**
 * The first `n` of `a`, as an array of its own when shorter. Not `subarray`: a view needs the
 * array's ArrayBuffer object, which a small typed array keeps on the V8 heap inline until asked
 * for (~200 bytes more per array, on and off the heap; 100,000 webhooks keep several each).
 */
export const fitted = (a: Int32Array, n: number): Int32Array =>
  n === 0 ? EMPTY : n === 1 ? single(a[0]!) : n === a.length ? a : a.slice(0, n)

/** `a` sorted, without repeats (sorts `a` in place; the result is `a`, a copy, or a shared array) */
export const sortedDistinct = (a: Int32Array): Int32Array => {
  a.sort()
  let w = 0
  for (let i = 0; i < a.length; i++) if (i === 0 || a[i] !== a[i - 1]) a[w++] = a[i]!
  return fitted(a, w)
}

const singles: Array<Int32Array | undefined> = []
/**
 * The one-element array of `x`, one per value: a ticker-scoped webhook's matches and rows are one
 * id (60% of webhooks), and a typed array costs ~100 bytes whatever it holds. Shared like every
 * result here: never written after it is made.
 */
export const single = (x: number): Int32Array => {
  let a = singles[x]
  if (a === undefined) {
    a = Int32Array.of(x)
    singles[x] = a
  }
  return a
}

/** equal contents */
export const sameIds = (a: Int32Array, b: Int32Array): boolean => {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** ids of `next` not in `previous` (both sorted ascending), ascending */
export const addedIds = (previous: Int32Array, next: Int32Array): Int32Array => {
  let i = 0
  let count = 0
  let out: Int32Array | undefined
  for (let j = 0; j < next.length; j++) {
    const x = next[j]!
    while (i < previous.length && previous[i]! < x) i++
    if (i < previous.length && previous[i] === x) continue
    if (out === undefined) out = new Int32Array(next.length - j)
    out[count++] = x
  }
  return out === undefined ? EMPTY : fitted(out, count)
}
