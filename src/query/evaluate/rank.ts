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
 *   evaluator and PostgreSQL's exact numeric agree to the bit); NULL when every value is the same.
 *
 * A call's values for the whole scope are computed once per (snapshot, scope array, call) and
 * memoized on the snapshot (`WeakMap`s: they live as long as the snapshot and the scope's rows), so
 * any number of predicates sharing a ranked expression over one universe compute it once a tick.
 * The scope is identified by its array: callers pass the same array for the same universe.
 */
import type { Snapshot } from "../../market/snapshot.js"
import type { RankFnName } from "../functions.js"
import type { Node } from "../ir.js"
import { Arena, allRows } from "./arena.js"
import { stringCodes } from "./columns.js"
import type { Env, EvalPlan } from "./planCore.js"

type CallNode = Extract<Node, { k: "call" }>

const memo = new WeakMap<Snapshot, WeakMap<Int32Array, Map<string, Float64Array>>>()
const keys = new WeakMap<Node, string>()

/** how many scope-wide rankings were computed (not served from the memo): for benchmarks and tests */
export const rankCounters = { computed: 0 }

/** the call's identity: function, argument and partition (the typed tree, canonical) */
const keyOf = (n: CallNode): string => {
  let k = keys.get(n)
  if (k === undefined) {
    k = JSON.stringify(n)
    keys.set(n, k)
  }
  return k
}

/** first index of `sorted` whose value is not below `v` (rows below `v`) */
const lowerBound = (sorted: Float64Array, v: number): number => {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! < v) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** first index of `sorted` whose value is above `v` (rows not above `v`) */
const upperBound = (sorted: Float64Array, v: number): number => {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (v < sorted[mid]!) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** Neumaier-compensated sum of `f(i)` for i in [0, n) */
const compensatedSum = (n: number, f: (i: number) => number): number => {
  let sum = 0
  let c = 0
  for (let i = 0; i < n; i++) {
    const v = f(i)
    const t = sum + v
    c += Math.abs(sum) >= Math.abs(v) ? sum - t + v : v - t + sum
    sum = t
  }
  return sum + c
}

const ZSCORE_SCALE = 1e10

/** `z` rounded to 10 decimals, halves away from zero, never -0 (PostgreSQL's `round(numeric, 10)`) */
const roundZ = (z: number): number =>
  (z < 0 ? -Math.round(-z * ZSCORE_SCALE) : Math.round(z * ZSCORE_SCALE)) / ZSCORE_SCALE + 0

/** one partition's values (`rows` of `x`): writes each row's result to `out` */
const rankGroup = (fn: RankFnName, x: Float64Array, rows: Int32Array, out: Float64Array) => {
  const k = rows.length
  const vals = new Float64Array(k)
  for (let i = 0; i < k; i++) vals[i] = x[rows[i]!]!
  if (fn === "ZSCORE") {
    let min = vals[0]!
    let max = vals[0]!
    let amax = 0
    for (let i = 0; i < k; i++) {
      const v = vals[i]!
      if (v < min) min = v
      if (v > max) max = v
      const a = Math.abs(v)
      if (a > amax) amax = a
    }
    if (min === max) return // no deviation: NULL
    // scaled by a power of two (exact) so that no square overflows or underflows
    const s = 2 ** Math.ceil(Math.log2(amax))
    for (let i = 0; i < k; i++) vals[i] = vals[i]! / s
    const mean = compensatedSum(k, (i) => vals[i]!) / k
    const sd = Math.sqrt(compensatedSum(k, (i) => (vals[i]! - mean) ** 2) / k)
    for (let i = 0; i < k; i++) out[rows[i]!] = roundZ((vals[i]! - mean) / sd)
    return
  }
  const sorted = vals.slice().sort()
  for (let i = 0; i < k; i++) {
    const v = vals[i]!
    out[rows[i]!] = fn === "RANK" ? k - upperBound(sorted, v) + 1 : k === 1 ? 0 : lowerBound(sorted, v) / (k - 1)
  }
}

/** The call's value at every row of the scope (NaN: NULL, and every row outside it). */
const compute = (env: Env, n: CallNode, arg: EvalPlan): Float64Array => {
  const size = env.snap.size
  const out = new Float64Array(size).fill(Number.NaN)
  const scope = env.scope
  const x = arg.vec(env, scope, scope.length) as Float64Array
  const present: Array<number> = []
  for (let i = 0; i < scope.length; i++) {
    const r = scope[i]!
    if (x[r] === x[r]) present.push(r)
  }
  if (present.length === 0) return out
  const fn = n.fn as RankFnName
  const by = n.args[1]
  if (by === undefined || by.k !== "col") {
    rankGroup(fn, x, Int32Array.from(present), out)
    return out
  }
  // group by the partition's dictionary code (NULL, -1, is a partition too)
  const { codes, ids } = stringCodes(env.snap, by.name)
  const counts = new Int32Array(ids.size + 1)
  for (const r of present) counts[codes[r]! + 1]!++
  const starts = new Int32Array(ids.size + 2)
  for (let g = 0; g < counts.length; g++) starts[g + 1] = starts[g]! + counts[g]!
  const grouped = new Int32Array(present.length)
  const fill = starts.slice(0, counts.length)
  for (const r of present) grouped[fill[codes[r]! + 1]!++] = r
  for (let g = 0; g < counts.length; g++) {
    if (counts[g]! > 0) rankGroup(fn, x, grouped.subarray(starts[g]!, starts[g + 1]!), out)
  }
  return out
}

/** The call's values over the evaluation's scope, memoized per (snapshot, scope, call). */
export const rankVector = (env: Env, n: CallNode, arg: EvalPlan): Float64Array => {
  let byScope = memo.get(env.snap)
  if (byScope === undefined) {
    byScope = new WeakMap()
    memo.set(env.snap, byScope)
  }
  let byCall = byScope.get(env.scope)
  if (byCall === undefined) {
    byCall = new Map()
    byScope.set(env.scope, byCall)
  }
  const key = keyOf(n)
  let v = byCall.get(key)
  if (v === undefined) {
    v = compute(env, n, arg)
    rankCounters.computed++
    byCall.set(key, v)
  }
  return v
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
    return rankVector({ snap, arena, all, scope: scope ?? all }, n, arg)[row]!
  } finally {
    arena.release()
  }
}
