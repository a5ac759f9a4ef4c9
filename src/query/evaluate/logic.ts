/**
 * AND and OR plans: conjuncts in the order that narrows the selection fastest, TRUE and FALSE rows
 * as intersections and unions of the operands' selections, Kleene truth over the rows still
 * undecided, and bitsets combined word by word where every operand has them.
 */
import type { Node } from "../ir.js"
import { andInto, type Bits, orInto } from "./bits.js"
import { type Env, type EvalPlan, isTickerColumn, make } from "./planCore.js"

/**
 * `bits` of a conjunction (`all`) or disjunction of plans that all have one: the intersection or
 * union of theirs; undefined when one of them has none
 */
const combineBits = (plans: ReadonlyArray<EvalPlan>, all: boolean): EvalPlan["bits"] => {
  if (!plans.every((p) => p.bits !== undefined)) return undefined
  return (env, want) => {
    let acc: Bits | undefined
    for (const p of plans) {
      const b = p.bits!(env, want)
      if (b === undefined) return undefined
      acc = acc === undefined ? b : all ? andInto(acc, b) : orInto(acc, b)
    }
    return acc
  }
}

/**
 * Orders conjuncts (AND has no side effects, so any order gives the same rows): those answered from
 * the ticker index first, then equality tests (usually the most selective), then comparisons of a
 * column with a constant, then everything else; the original order otherwise.
 */
const simpleCmp = (a: Node, b: Node) => a.k === "col" && b.constant

const conjunctRank = (n: Node): number => {
  const simple = simpleCmp
  if (n.k === "cmp" && n.op === "=" && (isTickerColumn(n.left) || isTickerColumn(n.right))) {
    if (n.left.constant || n.right.constant) return 0
  }
  if (n.k === "in" && !n.negated && isTickerColumn(n.arg) && n.items.every((i) => i.constant)) return 0
  if (n.k === "cmp" && n.op === "=" && (simple(n.left, n.right) || simple(n.right, n.left))) return 1
  if (n.k === "in" && !n.negated && n.arg.k === "col" && n.items.every((i) => i.constant)) return 1
  if (n.k === "col") return 1
  if (n.k === "cmp" && (simple(n.left, n.right) || simple(n.right, n.left))) return 2
  return 3
}

export const conjunctOrder = (args: ReadonlyArray<Node>): ReadonlyArray<Node> =>
  args
    .map((n, i) => ({ n, i, r: conjunctRank(n) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.n)

/** rows of `sel` where at least one plan has truth code `want` */
const unionSelect = (
  plans: ReadonlyArray<EvalPlan>,
  env: Env,
  sel: Int32Array,
  m: number,
  want: 0 | 2,
  out: Int32Array
) => {
  const mark = env.arena.u8Zero()
  let rest = env.arena.i32()
  rest.set(sel.subarray(0, m))
  let restN = m
  const hits = env.arena.i32()
  let spare = env.arena.i32()
  for (const p of plans) {
    if (restN === 0) break
    const h = p.select(env, rest, restN, want, hits)
    if (h === 0) continue
    for (let j = 0; j < h; j++) mark[hits[j]!] = 1
    // branch-free, as the kernels' selections
    let c = 0
    for (let j = 0; j < restN; j++) {
      const r = rest[j]!
      spare[c] = r
      c += 1 - mark[r]!
    }
    const t = rest
    rest = spare
    spare = t
    restN = c
  }
  let c = 0
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    out[c] = r
    c += mark[r]!
  }
  return c
}

/** rows of `sel` where every plan has truth code `want` */
const intersectSelect = (
  plans: ReadonlyArray<EvalPlan>,
  env: Env,
  sel: Int32Array,
  m: number,
  want: 0 | 2,
  out: Int32Array
) => {
  if (plans.length === 1) return plans[0]!.select(env, sel, m, want, out)
  let src = sel
  let n = m
  const a = env.arena.i32()
  const b = env.arena.i32()
  for (let i = 0; i < plans.length; i++) {
    const dst = i === plans.length - 1 ? out : i % 2 === 0 ? a : b
    n = plans[i]!.select(env, src, n, want, dst)
    src = dst
    if (n === 0) return 0
  }
  return n
}

/** Kleene AND (`min`) / OR (`max`) as truth codes; later operands only on rows still undecided. */
const foldTruth = (plans: ReadonlyArray<EvalPlan>, and: boolean) => (env: Env, sel: Int32Array, m: number) => {
  const decided = and ? 0 : 2
  const t = env.arena.u8()
  const first = plans[0]!.vec(env, sel, m) as Uint8Array
  let open = env.arena.i32()
  let spare = env.arena.i32()
  let openN = 0
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    const v = first[r]!
    t[r] = v
    open[openN] = r
    openN += +(v !== decided)
  }
  for (let i = 1; i < plans.length && openN > 0; i++) {
    const u = plans[i]!.vec(env, open, openN) as Uint8Array
    let c = 0
    for (let j = 0; j < openN; j++) {
      const r = open[j]!
      const v = u[r]!
      const w = t[r]!
      const x = and ? (v < w ? v : w) : v > w ? v : w
      t[r] = x
      spare[c] = r
      c += +(x !== decided)
    }
    const swap = open
    open = spare
    spare = swap
    openN = c
  }
  return t
}

/**
 * AND (`all`) or OR of plans: the TRUE rows of one are the intersection (union) of the operands'
 * TRUE rows, its FALSE rows the union (intersection) of their FALSE rows
 */
export const logicPlan = (plans: ReadonlyArray<EvalPlan>, all: boolean): EvalPlan => {
  const same = combineBits(plans, all)
  const dual = combineBits(plans, !all)
  const trueRows = all ? intersectSelect : unionSelect
  const falseRows = all ? unionSelect : intersectSelect
  return make(
    "boolean",
    foldTruth(plans, all),
    (env, sel, m, want, out) =>
      want === 2 ? trueRows(plans, env, sel, m, 2, out) : falseRows(plans, env, sel, m, 0, out),
    same === undefined ? undefined : (env, want) => (want === 2 ? same(env, 2) : dual!(env, 0))
  )
}
