/**
 * Compiles a typed tree, once, into a tree of closures over the column
 * kernels: each node is bound to its kernel, its constants and its column
 * names when the predicate is compiled; evaluating runs each node once over
 * the whole selection (vectorized), never an interpreter step per row.
 *
 * Selections make the evaluation lazy where it matters: a predicate in
 * "select" mode returns the rows where it is TRUE (or FALSE); AND narrows the
 * selection conjunct by conjunct, OR only evaluates later disjuncts on rows
 * not yet matched, and a conjunct `ticker = '…'` / `ticker IN (…)` is
 * answered from the snapshot's index. Constant subtrees (literals,
 * cross-ticker references) are computed once per evaluation.
 *
 * Here: the plan of each node kind and the comparisons; beside it, AND/OR (`logic.ts`), IN and
 * the ticker index (`membership.ts`), function calls (`calls.ts`), and what every plan is made of
 * (`planCore.ts`).
 *
 * NAMED_CLOSURES: closures made per node or per evaluation are methods or
 * anonymous arguments, never `const f = () => …`: the service runs under tsx,
 * whose transform (esbuild `keepNames`) wraps every named closure in an
 * `Object.defineProperty` call when it is created, which made compiling a
 * predicate about twice as slow.
 */
import type { CompareOp } from "../ast.js"
import type { Node, Type } from "../ir.js"
import { lowerAscii } from "../semantics.js"
import { type Bits, bitsOfRows, compareBits, emptyBits, truthBits } from "./bits.js"
import { callPlan } from "./calls.js"
import { booleanColumn, numericColumn, stringCodes, stringColumn } from "./columns.js"
import * as K from "./kernels.js"
import { conjunctOrder, logicPlan } from "./logic.js"
import { inPlan, tickerLookup } from "./membership.js"
import {
  boolNode,
  cmpNode,
  constantPlan,
  type Env,
  type EvalPlan,
  isTickerColumn,
  make,
  notNode,
  type Strs
} from "./planCore.js"
import { registerPlanner } from "./rank.js"
import { likeMatcher } from "./scalar.js"

export type { Env, EvalPlan } from "./planCore.js"

export const plan = (n: Node): EvalPlan => {
  if (n.constant) return constantPlan(n)
  switch (n.k) {
    case "lit":
    case "xref":
      return constantPlan(n)
    case "col":
      return columnPlan(n.type, n.name)
    case "neg": {
      const a = plan(n.arg)
      return make("numeric", (env, sel, m) => {
        const out = env.arena.f64()
        K.negV(a.vec(env, sel, m) as Float64Array, out, sel, m)
        return out
      })
    }
    case "arith": {
      const l = plan(n.left)
      const r = plan(n.right)
      const op = n.op
      return make("numeric", (env, sel, m) => {
        const out = env.arena.f64()
        if (l.constant) K.arithKV(op, l.scalar(env) as number, r.vec(env, sel, m) as Float64Array, out, sel, m)
        else if (r.constant) K.arithVK(op, l.vec(env, sel, m) as Float64Array, r.scalar(env) as number, out, sel, m)
        else K.arithVV(op, l.vec(env, sel, m) as Float64Array, r.vec(env, sel, m) as Float64Array, out, sel, m)
        return out
      })
    }
    case "cmp":
      return comparePlan(n.op, n.left, n.right)
    case "and":
      return andPlan(n.args)
    case "or":
      return orPlan(n.args)
    case "not": {
      const a = plan(n.arg)
      return make(
        "boolean",
        (env, sel, m) => {
          const t = a.vec(env, sel, m) as Uint8Array
          const out = env.arena.u8()
          for (let j = 0; j < m; j++) {
            const r = sel[j]!
            out[r] = 2 - t[r]!
          }
          return out
        },
        (env, sel, m, want, out) => a.select(env, sel, m, (2 - want) as 0 | 2, out),
        a.bits === undefined ? undefined : (env, want) => a.bits!(env, (2 - want) as 0 | 2)
      )
    }
    case "between": {
      const rewritten = n.negated
        ? boolNode("or", [cmpNode("<", n.arg, n.low), cmpNode(">", n.arg, n.high)])
        : boolNode("and", [cmpNode(">=", n.arg, n.low), cmpNode("<=", n.arg, n.high)])
      return plan(rewritten)
    }
    case "in":
      return inPlan(n, plan)
    case "like": {
      const a = plan(n.arg)
      const matcher = likeMatcher(n.pattern, n.caseInsensitive)
      const hit = n.negated ? 0 : 2
      const miss = 2 - hit
      const ci = n.caseInsensitive
      return make("boolean", (env, sel, m) => {
        const s = a.vec(env, sel, m) as Strs
        const out = env.arena.u8()
        for (let j = 0; j < m; j++) {
          const r = sel[j]!
          const x = s[r]
          out[r] = x === null || x === undefined ? 1 : matcher.test(ci ? lowerAscii(x) : x) ? hit : miss
        }
        return out
      })
    }
    case "isnull": {
      const a = plan(n.arg)
      const type = n.arg.type
      const yes = n.negated ? 0 : 2
      return make("boolean", (env, sel, m) => {
        const v = a.vec(env, sel, m)
        const out = env.arena.u8()
        if (type === "numeric") {
          const x = v as Float64Array
          for (let j = 0; j < m; j++) {
            const r = sel[j]!
            out[r] = x[r] !== x[r] ? yes : 2 - yes
          }
        } else if (type === "boolean") {
          const x = v as Uint8Array
          for (let j = 0; j < m; j++) {
            const r = sel[j]!
            out[r] = x[r] === 1 ? yes : 2 - yes
          }
        } else {
          const x = v as Strs
          for (let j = 0; j < m; j++) {
            const r = sel[j]!
            out[r] = x[r] === null || x[r] === undefined ? yes : 2 - yes
          }
        }
        return out
      })
    }
    case "isbool": {
      const a = plan(n.arg)
      const code = n.value ? 2 : 0
      const yes = n.negated ? 0 : 2
      return make("boolean", (env, sel, m) => {
        const x = a.vec(env, sel, m) as Uint8Array
        const out = env.arena.u8()
        for (let j = 0; j < m; j++) {
          const r = sel[j]!
          out[r] = x[r] === code ? yes : 2 - yes
        }
        return out
      })
    }
    case "call":
      return callPlan(n, plan)
  }
}

const columnPlan = (type: Type, name: string): EvalPlan => {
  switch (type) {
    case "numeric":
      return make("numeric", (env) => numericColumn(env.snap, name))
    case "boolean":
      return make(
        "boolean",
        (env) => booleanColumn(env.snap, name),
        (env, sel, m, want, out) =>
          sel === env.all
            ? K.selTruthDense(booleanColumn(env.snap, name), want, m, out)
            : K.selTruth(booleanColumn(env.snap, name), want, sel, m, out),
        (env, want) => truthBits(booleanColumn(env.snap, name), want)
      )
    case "string":
      return make("string", (env) => stringColumn(env.snap, name))
  }
}

const comparePlan = (op0: CompareOp, left: Node, right: Node): EvalPlan => {
  // a constant on the left is moved to the right
  const swap = left.constant && !right.constant
  const op = swap ? K.flip(op0) : op0
  const lhs = swap ? right : left
  const rhs = swap ? left : right
  const type = left.type
  // `flag = TRUE` is `flag`, `flag = FALSE` is `NOT flag` (NULL stays NULL)
  if (type === "boolean" && rhs.k === "lit" && rhs.value !== null && (op === "=" || op === "<>")) {
    return plan((op === "=") === rhs.value ? lhs : notNode(lhs))
  }
  const l = plan(lhs)
  const r = plan(rhs)
  const ticker = isTickerColumn(lhs) && r.constant
  const stringCol = type === "string" && lhs.k === "col" && r.constant && (op === "=" || op === "<>")
  const column = lhs.k === "col" ? lhs.name : ""

  // methods, not named closures (see `NAMED_CLOSURES`)
  const fns = {
    vec(env: Env, sel: Int32Array, m: number): Uint8Array {
      const out = env.arena.u8()
      if (type === "numeric") {
        const a = l.vec(env, sel, m) as Float64Array
        if (r.constant) {
          const k = r.scalar(env) as number
          if (k !== k) out.fill(1)
          else K.cmpNumVK(op, a, k, out, sel, m)
        } else K.cmpNumVV(op, a, r.vec(env, sel, m) as Float64Array, out, sel, m)
      } else if (type === "string") {
        if (r.constant) {
          const k = r.scalar(env) as string | null
          if (k === null) out.fill(1)
          else if (stringCol) {
            const { codes, ids } = stringCodes(env.snap, column)
            const table = new Uint8Array(ids.size)
            const id = ids.get(k)
            if (id !== undefined) table[id] = 1
            K.codeInTruth(codes, table, op === "=" ? 2 : 0, op === "=" ? 0 : 2, out, sel, m)
          } else K.cmpStrVK(op, l.vec(env, sel, m) as Strs, k, out, sel, m)
        } else K.cmpStrVV(op, l.vec(env, sel, m) as Strs, r.vec(env, sel, m) as Strs, out, sel, m)
      } else {
        K.cmpTruthVV(op, l.vec(env, sel, m) as Uint8Array, r.vec(env, sel, m) as Uint8Array, out, sel, m)
      }
      return out
    },

    select(env: Env, sel: Int32Array, m: number, want: 0 | 2, out: Int32Array): number {
      if (type === "numeric") {
        const o = want === 2 ? op : K.negate(op)
        const a = l.vec(env, sel, m) as Float64Array
        if (r.constant) {
          const k = r.scalar(env) as number
          if (k !== k) return 0
          return sel === env.all ? K.selNumVKDense(o, a, k, m, out) : K.selNumVK(o, a, k, sel, m, out)
        }
        return K.selNumVV(o, a, r.vec(env, sel, m) as Float64Array, sel, m, out)
      }
      if (type === "string" && r.constant && want === 2 && op === "=") {
        const k = r.scalar(env)
        if (k === null) return 0
        if (ticker) return tickerLookup(env, [k], sel, m, out)
        if (stringCol) {
          const { codes, ids } = stringCodes(env.snap, column)
          const id = ids.get(k as string)
          return id === undefined ? 0 : K.selCode(codes, id, sel, m, out, sel === env.all)
        }
        return K.selStrEqK(l.vec(env, sel, m) as Strs, k as string, sel, m, out)
      }
      return K.selTruth(fns.vec(env, sel, m), want, sel, m, out)
    },

    bits(env: Env, want: 0 | 2): Bits | undefined {
      if (type === "numeric") {
        const k = r.scalar(env) as number
        // a comparison with NULL is neither TRUE nor FALSE
        return k !== k ? emptyBits(env.snap.size) : compareBits(env.snap, column, want === 2 ? op : K.negate(op), k)
      }
      // `ticker = k`
      const k = r.scalar(env)
      if (want !== 2 || typeof k !== "string") return k === null ? emptyBits(env.snap.size) : undefined
      const found = env.arena.i32()
      return bitsOfRows(env.snap.size, found, tickerLookup(env, [k], env.all, env.snap.size, found))
    }
  }
  const indexed = lhs.k === "col" && r.constant && (type === "numeric" || (ticker && op === "="))
  return make("boolean", fns.vec, fns.select, indexed ? fns.bits : undefined)
}

const andPlan = (args: ReadonlyArray<Node>): EvalPlan => logicPlan(conjunctOrder(args).map(plan), true)

const orPlan = (args: ReadonlyArray<Node>): EvalPlan => logicPlan(args.map(plan), false)

registerPlanner(plan)
