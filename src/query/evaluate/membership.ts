/**
 * `IN` lists and `ticker = …` / `ticker IN (…)` answered from the snapshot's index; a list with
 * row-dependent items is rewritten as ORed equalities.
 */
import type { Node } from "../ir.js"
import { stringCodes } from "./columns.js"
import * as K from "./kernels.js"
import { boolNode, cmpNode, type Env, type EvalPlan, isTickerColumn, make, notNode, type Strs } from "./planCore.js"
import { isNull, type Scalar } from "./scalar.js"

/**
 * rows of `sel[0..m)` (ascending) that are in `rows` (ascending, few): binary search of each in
 * `sel`, so a ticker lookup costs O(k log m), not a scan of the selection
 */
const intersectSorted = (sel: Int32Array, m: number, rows: ReadonlyArray<number>, out: Int32Array): number => {
  let c = 0
  let lo = 0
  for (const r of rows) {
    let hi = m
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (sel[mid]! < r) lo = mid + 1
      else hi = mid
    }
    // a key listed twice is one row, once
    if (lo < m && sel[lo] === r) out[c++] = sel[lo++]!
  }
  return c
}

/** `ticker = k` / `ticker IN (…)` answered from the snapshot's index */
export const tickerLookup = (
  env: Env,
  keys: ReadonlyArray<Scalar>,
  sel: Int32Array,
  m: number,
  out: Int32Array
): number => {
  const rows: Array<number> = []
  for (const k of keys) {
    if (typeof k !== "string") continue
    const r = env.snap.index.get(k)
    if (r !== undefined && env.snap.tickers[r] === k) rows.push(r)
  }
  rows.sort((a, b) => a - b)
  return intersectSorted(sel, m, rows, out)
}

export const inPlan = (n: Extract<Node, { k: "in" }>, plan: (n: Node) => EvalPlan): EvalPlan => {
  if (!n.items.every((i) => i.constant)) {
    const any = boolNode(
      "or",
      n.items.map((i) => cmpNode("=", n.arg, i))
    )
    return plan(n.negated ? notNode(any) : any)
  }
  const a = plan(n.arg)
  const items = n.items.map(plan)
  const type = n.arg.type
  const hit = n.negated ? 0 : 2
  const ticker = isTickerColumn(n.arg) && !n.negated
  const stringCol = type === "string" && n.arg.k === "col" ? n.arg.name : undefined
  const fns = {
    vec(env: Env, sel: Int32Array, m: number): Uint8Array {
      const values = items.map((p) => p.scalar(env))
      const hasNull = values.some((v) => isNull(type, v))
      const set = new Set(values.filter((v) => !isNull(type, v)))
      const miss = hasNull ? 1 : 2 - hit
      const x = a.vec(env, sel, m)
      const out = env.arena.u8()
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        const v = type === "string" ? ((x as Strs)[r] ?? null) : (x as Float64Array | Uint8Array)[r]!
        out[r] = isNull(type, v) ? 1 : set.has(v) ? hit : miss
      }
      return out
    },
    /** membership table over the column's dictionary, and whether a NULL item makes misses NULL */
    table(env: Env, column: string) {
      const { codes, ids } = stringCodes(env.snap, column)
      const t = new Uint8Array(ids.size)
      let hasNull = false
      for (const p of items) {
        const v = p.scalar(env)
        if (v === null) hasNull = true
        else {
          const id = ids.get(v as string)
          if (id !== undefined) t[id] = 1
        }
      }
      return { codes, t, hasNull }
    },
    codedVec(env: Env, sel: Int32Array, m: number): Uint8Array {
      const { codes, t, hasNull } = fns.table(env, stringCol!)
      const out = env.arena.u8()
      K.codeInTruth(codes, t, hit, hasNull ? 1 : 2 - hit, out, sel, m)
      return out
    },
    select(env: Env, sel: Int32Array, m: number, want: 0 | 2, out: Int32Array) {
      if (ticker && want === 2) {
        return tickerLookup(
          env,
          items.map((p) => p.scalar(env)),
          sel,
          m,
          out
        )
      }
      if (stringCol !== undefined && want === hit) {
        const { codes, t } = fns.table(env, stringCol)
        return K.selCodeIn(codes, t, sel, m, out, sel === env.all)
      }
      return K.selTruth((stringCol === undefined ? fns.vec : fns.codedVec)(env, sel, m), want, sel, m, out)
    }
  }
  return make("boolean", stringCol === undefined ? fns.vec : fns.codedVec, fns.select)
}
