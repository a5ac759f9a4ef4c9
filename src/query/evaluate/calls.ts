/**
 * Function calls (`ABS`, `ROUND`, `LENGTH`, `LOWER`, `COALESCE`, `GREATEST`, `NULLIF`, …) as plans.
 */
import { isRankFn } from "../functions.js"
import type { Node, Type } from "../ir.js"
import { lowerAscii, upperAscii } from "../semantics.js"
import * as K from "./kernels.js"
import { type EvalPlan, make, type Strs, type Vec } from "./planCore.js"
import { rankVector } from "./rank.js"
import { compare, encodeLiteral, extreme, isNull, type Scalar } from "./scalar.js"

/** argument `i` of a string / boolean function call at row `r` (constants were evaluated once) */
const argAt = (
  type: Type,
  consts: ReadonlyArray<boolean>,
  vs: ReadonlyArray<Scalar | Vec>,
  i: number,
  r: number
): Scalar =>
  consts[i] ? (vs[i] as Scalar) : type === "string" ? ((vs[i] as Strs)[r] ?? null) : (vs[i] as Uint8Array)[r]!

export const callPlan = (n: Extract<Node, { k: "call" }>, plan: (n: Node) => EvalPlan): EvalPlan => {
  // a partition (a RANK's second argument) is read by the rank itself, not planned
  const args = (isRankFn(n.fn) ? n.args.slice(0, 1) : n.args).map(plan)
  switch (n.fn) {
    case "ABS":
    case "SIGN":
    case "ROUND":
    case "TRUNC":
    case "FLOOR":
    case "CEIL": {
      const a = args[0]!
      const fn = n.fn
      return make("numeric", (env, sel, m) => {
        const out = env.arena.f64()
        K.numericFnV(fn, a.vec(env, sel, m) as Float64Array, out, sel, m)
        return out
      })
    }
    case "LENGTH": {
      const a = args[0]!
      return make("numeric", (env, sel, m) => {
        const out = env.arena.f64()
        K.lengthV(a.vec(env, sel, m) as Strs, out, sel, m)
        return out
      })
    }
    case "LOWER":
    case "UPPER": {
      const a = args[0]!
      const f = n.fn === "LOWER" ? lowerAscii : upperAscii
      return make("string", (env, sel, m) => {
        const s = a.vec(env, sel, m) as Strs
        const out = new Array<string | null>(env.snap.size)
        for (let j = 0; j < m; j++) {
          const r = sel[j]!
          const x = s[r]
          out[r] = x === null || x === undefined ? null : f(x)
        }
        return out
      })
    }
    case "PCT_RANK":
    case "RANK":
    case "ZSCORE": {
      // the whole scope's values (memoized), whatever rows are asked for
      const a = args[0]!
      return make("numeric", (env, sel, m) => rankVector(env, n, a, sel, m))
    }
    case "COALESCE":
    case "LEAST":
    case "GREATEST":
    case "NULLIF": {
      const type = n.type
      const fn = n.fn
      if (type === "numeric") {
        return make("numeric", (env, sel, m) => {
          const vs = args.map((p) => p.vec(env, sel, m) as Float64Array)
          const out = env.arena.f64()
          if (fn === "NULLIF") K.nullifNumeric(vs[0]!, vs[1]!, out, sel, m)
          else K.foldNumeric(fn, vs, out, sel, m)
          return out
        })
      }
      return make(type, (env, sel, m) => {
        const vs = args.map((p) => (p.constant ? p.scalar(env) : p.vec(env, sel, m)))
        const consts = args.map((p) => p.constant)
        const out: Array<Scalar> | Uint8Array = type === "string" ? new Array<Scalar>(env.snap.size) : env.arena.u8()
        const row: Array<Scalar> = new Array(args.length)
        for (let j = 0; j < m; j++) {
          const r = sel[j]!
          let v: Scalar
          if (fn === "COALESCE") {
            v = encodeLiteral(type, null)
            for (let i = 0; i < args.length; i++) {
              const x = argAt(type, consts, vs, i, r)
              if (!isNull(type, x)) {
                v = x
                break
              }
            }
          } else if (fn === "NULLIF") {
            const x = argAt(type, consts, vs, 0, r)
            v = compare("=", type, x, argAt(type, consts, vs, 1, r)) === 2 ? encodeLiteral(type, null) : x
          } else {
            for (let i = 0; i < args.length; i++) row[i] = argAt(type, consts, vs, i, r)
            v = extreme(type, fn === "GREATEST", row)
          }
          ;(out as Array<Scalar>)[r] = v
        }
        return out as Vec
      })
    }
  }
}
