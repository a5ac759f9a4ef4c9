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
 * NAMED_CLOSURES: closures made per node or per evaluation are methods or
 * anonymous arguments, never `const f = () => …`: the service runs under tsx,
 * whose transform (esbuild `keepNames`) wraps every named closure in an
 * `Object.defineProperty` call when it is created, which made compiling a
 * predicate about twice as slow.
 */
import type { Snapshot } from "../../market/snapshot.js"
import type { CompareOp } from "../ast.js"
import type { Node, Type } from "../ir.js"
import { isPure } from "../ir.js"
import { lowerAscii, upperAscii } from "../semantics.js"
import type { Arena } from "./arena.js"
import { allBits, andInto, type Bits, bitsOfRows, compareBits, emptyBits, orInto, truthBits } from "./bits.js"
import { booleanColumn, numericColumn, stringCodes, stringColumn } from "./columns.js"
import * as K from "./kernels.js"
import { compare, encodeLiteral, evalScalar, extreme, isNull, likeMatcher, type Scalar } from "./scalar.js"

export interface Env {
  readonly snap: Snapshot
  readonly arena: Arena
  /** every row, 0..n-1: a selection that is this array lets kernels skip the indirection */
  readonly all: Int32Array
}

type Strs = ReadonlyArray<string | null>
type Vec = Float64Array | Uint8Array | Strs

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

const make = (type: Type, vec: EvalPlan["vec"], select?: EvalPlan["select"], bits?: EvalPlan["bits"]): EvalPlan => {
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

const constantPlan = (n: Node): EvalPlan => {
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
const tickerLookup = (env: Env, keys: ReadonlyArray<Scalar>, sel: Int32Array, m: number, out: Int32Array): number => {
  const rows: Array<number> = []
  for (const k of keys) {
    if (typeof k !== "string") continue
    const r = env.snap.index.get(k)
    if (r !== undefined && env.snap.tickers[r] === k) rows.push(r)
  }
  rows.sort((a, b) => a - b)
  return intersectSorted(sel, m, rows, out)
}

const isTickerColumn = (n: Node) => n.k === "col" && n.name === "ticker"

const cmpNode = (op: CompareOp, left: Node, right: Node): Node => ({
  k: "cmp",
  type: "boolean",
  op,
  left,
  right,
  nullable: left.nullable || right.nullable,
  constant: left.constant && right.constant
})

const boolNode = (k: "and" | "or", args: ReadonlyArray<Node>): Node => ({
  k,
  type: "boolean",
  args,
  nullable: args.some((a) => a.nullable),
  constant: args.every((a) => a.constant)
})

const notNode = (arg: Node): Node => ({
  k: "not",
  type: "boolean",
  arg,
  nullable: arg.nullable,
  constant: arg.constant
})

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
      return inPlan(n)
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
      return callPlan(n)
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

const conjunctOrder = (args: ReadonlyArray<Node>): ReadonlyArray<Node> =>
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
const logicPlan = (plans: ReadonlyArray<EvalPlan>, all: boolean): EvalPlan => {
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

const andPlan = (args: ReadonlyArray<Node>): EvalPlan => logicPlan(conjunctOrder(args).map(plan), true)

const orPlan = (args: ReadonlyArray<Node>): EvalPlan => logicPlan(args.map(plan), false)

const inPlan = (n: Extract<Node, { k: "in" }>): EvalPlan => {
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

/** argument `i` of a string / boolean function call at row `r` (constants were evaluated once) */
const argAt = (
  type: Type,
  consts: ReadonlyArray<boolean>,
  vs: ReadonlyArray<Scalar | Vec>,
  i: number,
  r: number
): Scalar =>
  consts[i] ? (vs[i] as Scalar) : type === "string" ? ((vs[i] as Strs)[r] ?? null) : (vs[i] as Uint8Array)[r]!

const callPlan = (n: Extract<Node, { k: "call" }>): EvalPlan => {
  const args = n.args.map(plan)
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
