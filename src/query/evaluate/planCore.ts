/**
 * What every evaluation plan is made of (see `plan.ts`): the plan's shape, its environment, the
 * plan of a constant, and the IR nodes plans build when they rewrite a node.
 */
import type { Snapshot } from "../../market/snapshot.js"
import type { CompareOp } from "../ast.js"
import type { Node, Type } from "../ir.js"
import { isPure } from "../ir.js"
import type { Arena } from "./arena.js"
import { allBits, type Bits, emptyBits } from "./bits.js"
import * as K from "./kernels.js"
import { evalScalar, type Scalar } from "./scalar.js"

export interface Env {
  readonly snap: Snapshot
  readonly arena: Arena
  /** every row, 0..n-1: a selection that is this array lets kernels skip the indirection */
  readonly all: Int32Array
  /**
   * the rows cross-sectional functions rank among (ascending; `all` by default): the universe the
   * query runs over, whatever subset of rows is evaluated
   */
  readonly scope: Int32Array
}

export type Strs = ReadonlyArray<string | null>
export type Vec = Float64Array | Uint8Array | Strs

export interface EvalPlan {
  readonly type: Type
  /** row-independent: `scalar` is the value for every row */
  readonly constant: boolean
  readonly scalar: (env: Env) => Scalar
  /** values for the rows of `sel[0..m)` (other positions unspecified); may be a shared read-only array */
  readonly vec: (env: Env, sel: Int32Array, m: number) => Vec
  /** booleans: appends to `out` the rows of `sel[0..m)` whose truth code is `want`; returns the count */
  readonly select: (env: Env, sel: Int32Array, m: number, want: 0 | 2, out: Int32Array) => number
  /**
   * booleans answered over every row at once (bits.ts): a new bitset of the rows whose truth code is
   * `want`, or undefined when this evaluation cannot (then `select` answers)
   */
  readonly bits?: ((env: Env, want: 0 | 2) => Bits | undefined) | undefined
}

const noScalar = (): Scalar => {
  throw new Error("not a constant")
}

const selectByTruth =
  (plan: Pick<EvalPlan, "vec">) => (env: Env, sel: Int32Array, m: number, want: 0 | 2, out: Int32Array) =>
    K.selTruth(plan.vec(env, sel, m) as Uint8Array, want, sel, m, out)

const notBoolean = (): number => {
  throw new Error("not a boolean expression")
}

export const make = (
  type: Type,
  vec: EvalPlan["vec"],
  select?: EvalPlan["select"],
  bits?: EvalPlan["bits"]
): EvalPlan => {
  const p: EvalPlan = {
    type,
    constant: false,
    scalar: noScalar,
    vec,
    select:
      select ??
      (type === "boolean" ? (env, sel, m, want, out) => selectByTruth(p)(env, sel, m, want, out) : notBoolean),
    bits
  }
  return p
}

const broadcast = (env: Env, type: Type, v: Scalar, sel: Int32Array, m: number): Vec => {
  if (type === "string") {
    const out = new Array<string | null>(env.snap.size)
    for (let j = 0; j < m; j++) out[sel[j]!] = v as string | null
    return out
  }
  const out = type === "numeric" ? env.arena.f64() : env.arena.u8()
  for (let j = 0; j < m; j++) out[sel[j]!] = v as number
  return out
}

export const constantPlan = (n: Node): EvalPlan => {
  const fixed = isPure(n) ? evalScalar(n, undefined) : undefined
  const scalar = fixed === undefined ? (env: Env) => evalScalar(n, env.snap) : () => fixed
  return {
    type: n.type,
    constant: true,
    scalar,
    vec(env, sel, m) {
      return broadcast(env, n.type, scalar(env), sel, m)
    },
    select(env, sel, m, want, out) {
      if (scalar(env) !== want) return 0
      out.set(sel.subarray(0, m))
      return m
    },
    bits(env, want) {
      return scalar(env) === want ? allBits(env.snap.size) : emptyBits(env.snap.size)
    }
  }
}

export const isTickerColumn = (n: Node) => n.k === "col" && n.name === "ticker"

export const cmpNode = (op: CompareOp, left: Node, right: Node): Node => ({
  k: "cmp",
  type: "boolean",
  op,
  left,
  right,
  nullable: left.nullable || right.nullable,
  constant: left.constant && right.constant
})

export const boolNode = (k: "and" | "or", args: ReadonlyArray<Node>): Node => ({
  k,
  type: "boolean",
  args,
  nullable: args.some((a) => a.nullable),
  constant: args.every((a) => a.constant)
})

export const notNode = (arg: Node): Node => ({
  k: "not",
  type: "boolean",
  arg,
  nullable: arg.nullable,
  constant: arg.constant
})
