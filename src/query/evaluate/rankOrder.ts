/**
 * The sorted orders the cross-sectional functions rank by (`rank.ts`): an argument's values over a
 * scope and its non-NULL positions by ascending value — by a sort, or, when the same argument was
 * ordered over the same scope array on the snapshot before and only a few of its values moved, by
 * taking those out of the last order and merging them back (a tick moves a few of a column's values).
 */

/**
 * Scratch for the temporaries of one ranking (a partition code per position, the counting sort's
 * counts and places): evaluation is synchronous, so one set serves every ranking.
 */
const scratch = { a: new Int32Array(0), b: new Int32Array(0) }
export const scratchOf = (which: "a" | "b", n: number): Int32Array => {
  if (scratch[which].length < n) scratch[which] = new Int32Array(Math.max(n, scratch[which].length * 2))
  return scratch[which].subarray(0, n)
}

/** An argument's values at a scope's positions and its non-NULL positions by ascending value. */
export interface Order {
  readonly xs: Float64Array
  /** positions by ascending value, equal values by ascending position */
  readonly order: Int32Array
  /** the non-NULL values ascending: `sorted[k]` is `xs[order[k]]` (-0 and 0 aside, which tie) */
  readonly sorted: Float64Array
}

/**
 * The order each argument last had over each scope array, whatever the snapshot: the next snapshot's
 * order of the same argument over the same scope is that one with the few values that moved taken
 * out and put back (`reorder`) — a tick moves a few of a column's values, and a sort of the market is
 * what ranking it costs.
 */
const lastOrders = new WeakMap<Int32Array, Map<string, Order>>()

const sameValue = (a: number, b: number): boolean => a === b || (a !== a && b !== b)

/**
 * The order of `xs` from `prev`, an order of values at the same positions, when at most one in
 * sixteen of them differ (undefined otherwise): the positions whose value changed are taken out of
 * `prev`'s order and merged back at their new values, equal values by position — the order a sort
 * gives, in a pass over the positions.
 */
const reorder = (xs: Float64Array, prev: Order): Order | undefined => {
  const m = xs.length
  const px = prev.xs
  if (px.length !== m) return undefined
  const limit = Math.max(8, m >> 4)
  const moved: Array<number> = []
  for (let j = 0; j < m; j++) {
    if (sameValue(xs[j]!, px[j]!)) continue
    if (moved.length === limit) return undefined
    moved.push(j)
  }
  if (moved.length === 0) return { xs, order: prev.order, sorted: prev.sorted }
  const out = scratchOf("a", m).fill(0)
  for (const j of moved) out[j] = 1
  const back = moved.filter((j) => xs[j] === xs[j])
  back.sort((p, q) => (xs[p]! < xs[q]! ? -1 : xs[p]! > xs[q]! ? 1 : p - q))
  let gone = 0
  for (const j of moved) if (px[j] === px[j]) gone++
  const n = prev.order.length - gone + back.length
  const order = new Int32Array(n)
  const sorted = new Float64Array(n)
  let i = 0
  let t = 0
  for (let k = 0; k < n; k++) {
    while (i < prev.order.length && out[prev.order[i]!] === 1) i++
    let take: number
    if (t === back.length) take = prev.order[i++]!
    else if (i === prev.order.length) take = back[t++]!
    else {
      const a = prev.order[i]!
      const b = back[t]!
      const va = xs[a]!
      const vb = xs[b]!
      if (va < vb || (va === vb && a < b)) take = prev.order[i++]!
      else take = back[t++]!
    }
    order[k] = take
    sorted[k] = xs[take]!
  }
  return { xs, order, sorted }
}

/** `xs`'s order by a sort: the values sorted natively, then each position placed by the values below it */
const sortOrder = (xs: Float64Array): Order => {
  let n = 0
  for (let j = 0; j < xs.length; j++) if (xs[j] === xs[j]) n++
  // the values sorted natively (a comparator sort of positions is several times slower), then each
  // position placed by the number of values below its own (binary search; -0 ties 0), a counting sort
  const sorted = new Float64Array(n)
  n = 0
  for (let j = 0; j < xs.length; j++) if (xs[j] === xs[j]) sorted[n++] = xs[j]!
  sorted.sort()
  const start = scratchOf("a", n + 1).fill(0)
  const below = scratchOf("b", xs.length)
  for (let j = 0; j < xs.length; j++) {
    const v = xs[j]!
    if (v !== v) continue
    let lo = 0
    let hi = n
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (sorted[mid]! < v) lo = mid + 1
      else hi = mid
    }
    below[j] = lo
    start[lo + 1]!++
  }
  for (let k = 0; k < n; k++) start[k + 1]! += start[k]!
  const order = new Int32Array(n)
  for (let j = 0; j < xs.length; j++) if (xs[j] === xs[j]) order[start[below[j]!]!++] = j
  return { xs, order, sorted }
}

/**
 * The order of `xs` (an argument's values over `scope`, `key` the argument): the one this argument
 * last had over this scope array with the values that moved put back (`reorder`), or a sort.
 */
export const orderAcross = (scope: Int32Array, key: string, xs: Float64Array): Order => {
  let last = lastOrders.get(scope)
  if (last === undefined) lastOrders.set(scope, (last = new Map()))
  const prev = last.get(key)
  const o = (prev === undefined ? undefined : reorder(xs, prev)) ?? sortOrder(xs)
  // the most recent few arguments of each scope (a scan may rank any expression)
  last.delete(key)
  last.set(key, o)
  if (last.size > LAST_ORDERS) last.delete(last.keys().next().value!)
  return o
}

/** orders kept per scope array for the next snapshot: the distinct ranked arguments a tick reads, and room */
const LAST_ORDERS = 256
