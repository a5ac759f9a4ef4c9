/**
 * Scalar evaluation of row-independent subtrees (literals, cross-ticker
 * references and anything built only from them): done once per evaluation,
 * never per row. Values use the evaluator's encoding (see semantics.ts).
 * Given a row, it evaluates any subtree at that row (explain.ts: why one
 * ticker does or does not match).
 */

import type { Snapshot } from "../../market/snapshot.js"
import type { CompareOp } from "../ast.js"
import { numericFn, stringFn } from "../functions.js"
import type { Node, Type } from "../ir.js"
import { compileLike } from "../like.js"
import { add, charLength, compareStrings, div, lowerAscii, mod, mul, sub, type Truth } from "../semantics.js"
import { cell } from "./columns.js"
import { rankAt } from "./rank.js"

/** numeric: number (NaN = NULL); boolean: truth code; string: string | null */
export type Scalar = number | string | null

export const isNull = (type: Type, v: Scalar): boolean =>
  type === "numeric" ? v !== v : type === "boolean" ? v === 1 : v === null

/** -1 / 0 / 1, or undefined when either side is NULL. */
export const order = (type: Type, a: Scalar, b: Scalar): number | undefined => {
  if (isNull(type, a) || isNull(type, b)) return undefined
  if (type === "string") return compareStrings(a as string, b as string)
  const x = a as number
  const y = b as number
  return x < y ? -1 : x > y ? 1 : 0
}

export const holds = (op: CompareOp, c: number): boolean => {
  switch (op) {
    case "=":
      return c === 0
    case "<>":
      return c !== 0
    case "<":
      return c < 0
    case "<=":
      return c <= 0
    case ">":
      return c > 0
    case ">=":
      return c >= 0
  }
}

export const compare = (op: CompareOp, type: Type, a: Scalar, b: Scalar): Truth => {
  const c = order(type, a, b)
  return c === undefined ? 1 : holds(op, c) ? 2 : 0
}

export const encodeLiteral = (type: Type, value: number | string | boolean | null): Scalar => {
  if (value === null) return type === "numeric" ? Number.NaN : type === "boolean" ? 1 : null
  if (typeof value === "boolean") return value ? 2 : 0
  return value
}

const likeCache = new Map<string, { test: (s: string) => boolean }>()

export const likeMatcher = (pattern: string, caseInsensitive: boolean) => {
  const key = `${caseInsensitive ? "i" : "c"}${pattern}`
  let m = likeCache.get(key)
  if (m === undefined) {
    const compiled = compileLike(caseInsensitive ? lowerAscii(pattern) : pattern)
    if (typeof compiled === "string") throw new Error(compiled)
    m = compiled
    likeCache.set(key, m)
    if (likeCache.size > 1000) likeCache.delete(likeCache.keys().next().value as string)
  }
  return m
}

/** LEAST / GREATEST over already-evaluated arguments: NULLs skipped, the first of equals kept. */
export const extreme = (type: Type, greatest: boolean, values: ReadonlyArray<Scalar>): Scalar => {
  let best: Scalar = type === "numeric" ? Number.NaN : type === "boolean" ? 1 : null
  let have = false
  for (const v of values) {
    if (isNull(type, v)) continue
    if (!have) {
      best = v
      have = true
      continue
    }
    const c = order(type, v, best)!
    if (greatest ? c > 0 : c < 0) best = v
  }
  return best
}

/**
 * `n` at `row` (no row: a constant subtree); cross-sectional calls rank among `scope` (ascending rows,
 * default every row)
 */
export const evalScalar = (n: Node, snap: Snapshot | undefined, row?: number, scope?: Int32Array): Scalar => {
  const at = (m: Node) => evalScalar(m, snap, row, scope)
  switch (n.k) {
    case "lit":
      return encodeLiteral(n.type, n.value)
    case "col":
      if (snap === undefined || row === undefined) throw new Error(`column '${n.name}' in a constant subtree`)
      return cell(snap, n.name, row, n.type)
    case "xref": {
      const row = snap?.index.get(n.ticker)
      if (snap === undefined || row === undefined) return encodeLiteral(n.type, null)
      return cell(snap, n.name, row, n.type)
    }
    case "neg":
      return -(at(n.arg) as number)
    case "arith": {
      const a = at(n.left) as number
      const b = at(n.right) as number
      switch (n.op) {
        case "+":
          return add(a, b)
        case "-":
          return sub(a, b)
        case "*":
          return mul(a, b)
        case "/":
          return div(a, b)
        case "%":
          return mod(a, b)
      }
      break
    }
    case "cmp":
      return compare(n.op, n.left.type, at(n.left), at(n.right))
    case "and": {
      let t = 2
      for (const a of n.args) {
        const v = at(a) as number
        if (v < t) t = v
        if (t === 0) break
      }
      return t
    }
    case "or": {
      let t = 0
      for (const a of n.args) {
        const v = at(a) as number
        if (v > t) t = v
        if (t === 2) break
      }
      return t
    }
    case "not":
      return 2 - (at(n.arg) as number)
    case "between": {
      const a = at(n.arg)
      const lo = at(n.low)
      const hi = at(n.high)
      const t = n.arg.type
      return n.negated
        ? Math.max(compare("<", t, a, lo), compare(">", t, a, hi))
        : Math.min(compare(">=", t, a, lo), compare("<=", t, a, hi))
    }
    case "in": {
      const a = at(n.arg)
      let t = 0
      for (const i of n.items) {
        const v = compare("=", n.arg.type, a, at(i))
        if (v > t) t = v
        if (t === 2) break
      }
      return n.negated ? 2 - t : t
    }
    case "like": {
      const s = at(n.arg) as string | null
      if (s === null) return 1
      const m = likeMatcher(n.pattern, n.caseInsensitive).test(n.caseInsensitive ? lowerAscii(s) : s)
      return m !== n.negated ? 2 : 0
    }
    case "isnull":
      return isNull(n.arg.type, at(n.arg)) !== n.negated ? 2 : 0
    case "isbool": {
      const v = at(n.arg)
      return (v === (n.value ? 2 : 0)) !== n.negated ? 2 : 0
    }
    case "call": {
      if (n.fn === "PCT_RANK" || n.fn === "RANK" || n.fn === "ZSCORE") {
        if (snap === undefined || row === undefined) throw new Error(`${n.fn} in a constant subtree`)
        return rankAt(snap, n, row, scope)
      }
      const args = n.args.map((a) => at(a))
      switch (n.fn) {
        case "ABS":
        case "SIGN":
        case "ROUND":
        case "TRUNC":
        case "FLOOR":
        case "CEIL":
          return numericFn(n.fn)(args[0] as number)
        case "LENGTH":
          return args[0] === null ? Number.NaN : charLength(args[0] as string)
        case "LOWER":
        case "UPPER":
          return args[0] === null ? null : stringFn(n.fn)(args[0] as string)
        case "COALESCE":
          return args.find((v) => !isNull(n.type, v)) ?? encodeLiteral(n.type, null)
        case "LEAST":
        case "GREATEST":
          return extreme(n.type, n.fn === "GREATEST", args)
        case "NULLIF":
          return compare("=", n.type, args[0]!, args[1]!) === 2 ? encodeLiteral(n.type, null) : args[0]!
      }
    }
  }
  throw new Error("unreachable")
}
