/**
 * The cross-sectional functions — PCT_RANK, RANK and ZSCORE — over the rows of an evaluation's
 * scope (`Env.scope`: a scan's or a webhook's universe, every row by default), optionally within
 * each row's partition (a static text column; NULL is a partition of its own, as in PostgreSQL's
 * `PARTITION BY`). Rows whose argument is NULL take no part and get NULL; so does a row outside
 * the scope.
 *
 * - PCT_RANK: `percent_rank()` ascending — (rows below) / (rows − 1), 0 for a single row;
 * - RANK: `rank()` descending — 1 + rows above, ties share a rank;
 * - ZSCORE: (x − mean) / population standard deviation, rounded to 10 decimals (so the
 *   evaluator and PostgreSQL's numeric agree to the bit — except for a z within ~1e-15 of a
 *   rounding midpoint, where each side's last-digit error may round it to a neighbouring value);
 *   NULL when every value is the same.
 *
 * A call's values for the whole scope are computed once per (snapshot, scope array, call) and
 * memoized on the snapshot (`WeakMap`s: they live as long as the snapshot and the scope's rows), so
 * any number of predicates sharing a ranked expression over one universe compute it once a tick;
 * RANK and PCT_RANK of one argument and partition share one order (`rankOrder.ts`: the snapshot
 * before's, with the values that moved put back). A call read at only a few rows of its scope is
 * answered at those rows from the shared standings (`rankVector`). The scope is identified by its
 * array: callers pass the same array for the same universe. Values are kept at the scope's
 * positions (a universe of 10 keeps 10, not one per row of the market).
 */
import type { Snapshot } from "../../market/snapshot.js"
import type { Node } from "../ir.js"
import { Arena, allRows } from "./arena.js"
import { stringCodes } from "./columns.js"
import type { Env, EvalPlan } from "./planCore.js"
import { type Order, orderAcross, scratchOf } from "./rankOrder.js"

type CallNode = Extract<Node, { k: "call" }>

const memo = new WeakMap<Snapshot, WeakMap<Int32Array, ScopeMemo>>()
const keys = new WeakMap<Node, string>()

/**
 * how many scope-wide rankings were computed (not served from the memo), and how many rows a call was
 * read at without one (`rankVector`): for benchmarks and tests
 */
export const rankCounters = { computed: 0, sparseRows: 0 }

/** the call's identity: function, argument and partition (the typed tree, canonical) */
const keyOf = (n: Node): string => {
  let k = keys.get(n)
  if (k === undefined) {
    k = JSON.stringify(n)
    keys.set(n, k)
  }
  return k
}

const ZSCORE_SCALE = 1e10

/** `z` rounded to 10 decimals, halves away from zero, never -0 (PostgreSQL's `round(numeric, 10)`) */
const roundZ = (z: number): number =>
  (z < 0 ? -Math.round(-z * ZSCORE_SCALE) : Math.round(z * ZSCORE_SCALE)) / ZSCORE_SCALE + 0

/**
 * Where each value of a scope stands in its partition, three numbers per position `p` side by side
 * (one cache line for a read at one row): `[3p]` rows below it, `[3p + 1]` rows not above it,
 * `[3p + 2]` rows in all (0 where the value is NULL).
 */
type Standing = Int32Array

/** Per partition (index: partition code + 1, 0 for NULL or no partition): the scale, mean and deviation ZSCORE divides by. */
interface ZStats {
  /** 0 where the partition has no deviation (its rows stay NULL) */
  readonly scale: Float64Array
  readonly mean: Float64Array
  readonly sd: Float64Array
}

/** each scope position's partition (code + 1; 0 for NULL), or undefined for one partition */
const groupsOf = (
  env: Env,
  partition: string | undefined,
  m: number
): { group: Int32Array | undefined; count: number } => {
  if (partition === undefined) return { group: undefined, count: 1 }
  const { codes, ids } = stringCodes(env.snap, partition)
  const scope = env.scope
  const group = scratchOf("a", m)
  for (let j = 0; j < m; j++) group[j] = codes[scope[j]!]! + 1
  return { group, count: ids.size + 1 }
}

/**
 * ZSCORE's statistics of every partition in one set of passes over the scope (no per-partition
 * copies): each partition's values are taken in ascending scope position, as a per-partition pass
 * would take them, so its sums — and so its values — are the same to the bit. Per partition: min,
 * max and the largest magnitude; the values scaled by a power of two (exact) so that no square
 * overflows or underflows; the compensated mean, then the compensated population variance.
 */
const zstatsOf = (env: Env, xs: Float64Array, partition: string | undefined): ZStats => {
  const m = xs.length
  const { group, count: groupCount } = groupsOf(env, partition, m)
  const count = new Int32Array(groupCount)
  const min = new Float64Array(groupCount).fill(Number.POSITIVE_INFINITY)
  const max = new Float64Array(groupCount).fill(Number.NEGATIVE_INFINITY)
  const amax = new Float64Array(groupCount)
  for (let j = 0; j < m; j++) {
    const v = xs[j]!
    if (v !== v) continue
    const g = group === undefined ? 0 : group[j]!
    count[g]!++
    if (v < min[g]!) min[g] = v
    if (v > max[g]!) max[g] = v
    const a = Math.abs(v)
    if (a > amax[g]!) amax[g] = a
  }
  // the scale of each partition with a deviation (0: none, its rows stay NULL)
  const scale = new Float64Array(groupCount)
  const mean = new Float64Array(groupCount)
  const sd = new Float64Array(groupCount)
  let any = false
  for (let g = 0; g < groupCount; g++)
    if (count[g]! > 0 && min[g] !== max[g]) {
      scale[g] = 2 ** Math.ceil(Math.log2(amax[g]!))
      any = true
    }
  if (!any) return { scale, mean, sd }
  // Neumaier-compensated sums per partition, in ascending position
  const sum = new Float64Array(groupCount)
  const comp = new Float64Array(groupCount)
  for (let j = 0; j < m; j++) {
    const x = xs[j]!
    if (x !== x) continue
    const g = group === undefined ? 0 : group[j]!
    const s = scale[g]!
    if (s === 0) continue
    const v = x / s
    const acc = sum[g]!
    const t = acc + v
    comp[g]! += Math.abs(acc) >= Math.abs(v) ? acc - t + v : v - t + acc
    sum[g] = t
  }
  for (let g = 0; g < groupCount; g++) {
    if (scale[g] === 0) continue
    mean[g] = (sum[g]! + comp[g]!) / count[g]!
    sum[g] = 0
    comp[g] = 0
  }
  for (let j = 0; j < m; j++) {
    const x = xs[j]!
    if (x !== x) continue
    const g = group === undefined ? 0 : group[j]!
    const s = scale[g]!
    if (s === 0) continue
    const v = (x / s - mean[g]!) ** 2
    const acc = sum[g]!
    const t = acc + v
    comp[g]! += Math.abs(acc) >= Math.abs(v) ? acc - t + v : v - t + acc
    sum[g] = t
  }
  for (let g = 0; g < groupCount; g++) if (scale[g] !== 0) sd[g] = Math.sqrt((sum[g]! + comp[g]!) / count[g]!)
  return { scale, mean, sd }
}

/** ZSCORE of `x` in partition `g` (NaN: NULL) */
const zOf = (st: ZStats, x: number, g: number): number => {
  const s = st.scale[g]!
  return x !== x || s === 0 ? Number.NaN : roundZ((x / s - st.mean[g]!) / st.sd[g]!)
}

/** the argument's values at the scope's positions */
const argValues = (env: Env, memo: ScopeMemo, argNode: Node, arg: EvalPlan): Float64Array => {
  const key = keyOf(argNode)
  let xs = memo.args.get(key)
  if (xs === undefined) {
    const scope = env.scope
    const x = arg.vec(env, scope, scope.length) as Float64Array
    xs = new Float64Array(scope.length)
    for (let j = 0; j < scope.length; j++) xs[j] = x[scope[j]!]!
    memo.args.set(key, xs)
  }
  return xs
}

interface ScopeMemo {
  /** an argument's values at the scope's positions, by argument: ZSCORE and the orders of every partition share them */
  readonly args: Map<string, Float64Array>
  /** a call's values at the scope's positions, by call */
  readonly values: Map<string, Float64Array>
  /** the standings RANK and PCT_RANK of one argument and partition share, by argument and partition */
  readonly standings: Map<string, Standing>
  /** an argument's values and its non-NULL positions by ascending value: one sort for every partition */
  readonly orders: Map<string, Order>
  /** ZSCORE's statistics per partition, by argument and partition */
  readonly zstats: Map<string, ZStats>
  /** rows a call was read at without its scope-wide values (`rankVector`), by call */
  readonly sparseRows: Map<string, number>
}

/** the argument's values at the scope's positions and those not NULL in ascending order of value */
const orderOf = (env: Env, memo: ScopeMemo, argNode: Node, arg: EvalPlan): Order => {
  const key = keyOf(argNode)
  let o = memo.orders.get(key)
  if (o === undefined) {
    o = orderAcross(env.scope, key, argValues(env, memo, argNode, arg))
    memo.orders.set(key, o)
  }
  return o
}

/**
 * Where each value stands in its partition (none: one partition; NULL is a partition of its own),
 * from the argument's one sorted order: a run of equal values takes the counts before it.
 */
const standingOf = (env: Env, memo: ScopeMemo, n: CallNode, arg: EvalPlan): Standing => {
  const by = n.args[1]
  const partition = by?.k === "col" ? by.name : undefined
  const key = `${keyOf(n.args[0]!)}\u0000${partition ?? ""}`
  const cached = memo.standings.get(key)
  if (cached !== undefined) return cached
  const { xs, order, sorted } = orderOf(env, memo, n.args[0]!, arg)
  const m = xs.length
  const n0 = order.length
  const st: Standing = new Int32Array(3 * m)
  // runs of equal values read off the sorted values (sequential; the same runs as xs[order[k]])
  if (partition === undefined) {
    // one partition: a run [i, j) has i rows below it and j not above it
    let i = 0
    while (i < n0) {
      const v = sorted[i]!
      let j = i + 1
      while (j < n0 && sorted[j] === v) j++
      for (let k = i; k < j; k++) {
        const p = order[k]!
        st[3 * p] = i
        st[3 * p + 1] = j
        st[3 * p + 2] = n0
      }
      i = j
    }
    memo.standings.set(key, st)
    return st
  }
  const { group: g0, count: groupCount } = groupsOf(env, partition, m)
  const group = g0!
  const total = new Int32Array(groupCount)
  for (let i = 0; i < n0; i++) total[group[order[i]!]!]!++
  const seen = new Int32Array(groupCount)
  let i = 0
  while (i < n0) {
    const v = sorted[i]!
    let j = i + 1
    while (j < n0 && sorted[j] === v) j++
    for (let k = i; k < j; k++) {
      const p = order[k]!
      st[3 * p] = seen[group[p]!]!
    }
    for (let k = i; k < j; k++) seen[group[order[k]!]!]!++
    for (let k = i; k < j; k++) {
      const p = order[k]!
      const g = group[p]!
      st[3 * p + 1] = seen[g]!
      st[3 * p + 2] = total[g]!
    }
    i = j
  }
  memo.standings.set(key, st)
  return st
}

/** The call's value at each position of the scope (NaN: NULL). */
const compute = (env: Env, memo: ScopeMemo, n: CallNode, arg: EvalPlan): Float64Array => {
  const m = env.scope.length
  const out = new Float64Array(m).fill(Number.NaN)
  if (n.fn === "ZSCORE") {
    const xs = argValues(env, memo, n.args[0]!, arg)
    const partition = partitionOf(n)
    const codes = partition === undefined ? undefined : stringCodes(env.snap, partition).codes
    const st = zstatsAt(env, memo, n, arg)
    const scope = env.scope
    for (let j = 0; j < m; j++) out[j] = zOf(st, xs[j]!, codes === undefined ? 0 : codes[scope[j]!]! + 1)
    return out
  }
  const st = standingOf(env, memo, n, arg)
  if (n.fn === "RANK")
    for (let j = 0; j < m; j++) {
      const k = st[3 * j + 2]!
      if (k !== 0) out[j] = k - st[3 * j + 1]! + 1
    }
  else
    for (let j = 0; j < m; j++) {
      const k = st[3 * j + 2]!
      if (k !== 0) out[j] = k === 1 ? 0 : st[3 * j]! / (k - 1)
    }
  return out
}

/** rows of its scope a call is read at alone per snapshot, at most one in SPARSE_SHARE (see `rankVector`) */
const SPARSE_SHARE = 2

/** the memo of the evaluation's snapshot and scope */
const scopeMemo = (env: Env): ScopeMemo => {
  let byScope = memo.get(env.snap)
  if (byScope === undefined) {
    byScope = new WeakMap()
    memo.set(env.snap, byScope)
  }
  let m = byScope.get(env.scope)
  if (m === undefined) {
    m = {
      args: new Map(),
      values: new Map(),
      standings: new Map(),
      orders: new Map(),
      zstats: new Map(),
      sparseRows: new Map()
    }
    byScope.set(env.scope, m)
  }
  return m
}

const partitionOf = (n: CallNode): string | undefined => {
  const by = n.args[1]
  return by?.k === "col" ? by.name : undefined
}

/** ZSCORE's statistics of the call's argument and partition over the scope */
const zstatsAt = (env: Env, memo: ScopeMemo, n: CallNode, arg: EvalPlan): ZStats => {
  const partition = partitionOf(n)
  const key = `${keyOf(n.args[0]!)}\u0000${partition ?? ""}`
  let st = memo.zstats.get(key)
  if (st === undefined) {
    st = zstatsOf(env, argValues(env, memo, n.args[0]!, arg), partition)
    memo.zstats.set(key, st)
  }
  return st
}

/**
 * The call's values at the rows `sel[0..m)` into `out` (by row), without its values over the whole
 * scope: the same numbers as `compute`, read off the standings RANK and PCT_RANK of the argument and
 * partition share, or ZSCORE's statistics.
 */
const sparseInto = (
  env: Env,
  memo: ScopeMemo,
  n: CallNode,
  arg: EvalPlan,
  sel: Int32Array,
  m: number,
  out: Float64Array
) => {
  const scope = env.scope
  const whole = scope === env.all
  rankCounters.sparseRows += m
  if (n.fn === "ZSCORE") {
    const xs = argValues(env, memo, n.args[0]!, arg)
    const partition = partitionOf(n)
    const codes = partition === undefined ? undefined : stringCodes(env.snap, partition).codes
    const st = zstatsAt(env, memo, n, arg)
    for (let j = 0; j < m; j++) {
      const r = sel[j]!
      const p = whole ? r : positionIn(scope, r)
      out[r] = p < 0 ? Number.NaN : zOf(st, xs[p]!, codes === undefined ? 0 : codes[r]! + 1)
    }
    return
  }
  const st = standingOf(env, memo, n, arg)
  const rank = n.fn === "RANK"
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    const p = whole ? r : positionIn(scope, r)
    const k = p < 0 ? 0 : st[3 * p + 2]!
    if (k === 0) out[r] = Number.NaN
    else if (rank) out[r] = k - st[3 * p + 1]! + 1
    else out[r] = k === 1 ? 0 : st[3 * p]! / (k - 1)
  }
}

/**
 * The call's values over the evaluation's scope at the scope's positions (`env.scope[j]`'s value is
 * `[j]`), memoized per (snapshot, scope, call).
 */
export const rankValues = (env: Env, n: CallNode, arg: EvalPlan): Float64Array => {
  const m = scopeMemo(env)
  const key = keyOf(n)
  let v = m.values.get(key)
  if (v === undefined) {
    v = compute(env, m, n, arg)
    rankCounters.computed++
    m.values.set(key, v)
  }
  return v
}

/** position of `row` in the ascending `scope`, -1 when absent */
const positionIn = (scope: Int32Array, row: number): number => {
  let lo = 0
  let hi = scope.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (scope[mid]! < row) lo = mid + 1
    else hi = mid
  }
  return lo < scope.length && scope[lo] === row ? lo : -1
}

/**
 * The call's values for the rows `sel[0..m)` (the evaluator's vector), ranked among the scope: NULL outside it.
 *
 * A call read at a few rows of a large scope — the last conjunct of `price > 80 AND pct_rank(x) > 0.9`,
 * or a ticker's own row — is answered at those rows alone (`sparseInto`: a binary search of the row's
 * value among its partition's sorted values, or ZSCORE's statistics) rather than by the call's values
 * over the whole scope: off the standings every RANK and PCT_RANK of the argument and partition
 * shares, or ZSCORE's statistics of them. Once the rows read so at a snapshot pass half the scope, the
 * call's values are computed over the scope and its later reads served from them (a read of every row
 * is a copy, not a computation per row).
 */
export const rankVector = (env: Env, n: CallNode, arg: EvalPlan, sel: Int32Array, m: number): Float64Array => {
  const scope = env.scope
  const memo = scopeMemo(env)
  const key = keyOf(n)
  if (!memo.values.has(key)) {
    const read = (memo.sparseRows.get(key) ?? 0) + m
    if (read * SPARSE_SHARE <= scope.length) {
      memo.sparseRows.set(key, read)
      const out = env.arena.f64()
      sparseInto(env, memo, n, arg, sel, m, out)
      return out
    }
  }
  const values = rankValues(env, n, arg)
  const out = env.arena.f64()
  if (sel === scope || scope === env.all) {
    // a row's position is its index in the selection, or the row itself
    if (sel === scope) for (let j = 0; j < m; j++) out[sel[j]!] = values[j]!
    else for (let j = 0; j < m; j++) out[sel[j]!] = values[sel[j]!]!
    return out
  }
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    const p = positionIn(scope, r)
    out[r] = p < 0 ? Number.NaN : values[p]!
  }
  return out
}

/** the planner, registered by plan.ts (which depends on this module through calls.ts) */
let planner: ((n: Node) => EvalPlan) | undefined

export const registerPlanner = (p: (n: Node) => EvalPlan) => {
  planner = p
}

const argPlans = new WeakMap<Node, EvalPlan>()

/** The call's value at one row (explain: `evalScalar` given a row), ranked among `scope` (default: every row). */
export const rankAt = (snap: Snapshot, n: CallNode, row: number, scope: Int32Array | undefined): number => {
  let arg = argPlans.get(n)
  if (arg === undefined) {
    if (planner === undefined) throw new Error("rank.ts: no planner registered")
    arg = planner(n.args[0]!)
    argPlans.set(n, arg)
  }
  const arena = new Arena(snap.size)
  try {
    const all = allRows(snap.size)
    const env = { snap, arena, all, scope: scope ?? all }
    const p = env.scope === all ? row : positionIn(env.scope, row)
    return p < 0 ? Number.NaN : rankValues(env, n, arg)[p]!
  } finally {
    arena.release()
  }
}
