/**
 * Name resolution and type checking: (inlined) syntax tree → typed tree.
 *
 * Rules (docs/query-language.md, "Types"):
 * - AND, OR, NOT, IS [NOT] TRUE/FALSE take booleans; + - * / % and unary -
 *   take numerics; LIKE / ILIKE take a string and a string-literal pattern;
 * - comparisons, BETWEEN, IN, COALESCE, LEAST, GREATEST, NULLIF take operands
 *   of one type (numeric, string or boolean);
 * - NULL takes the type its context requires (boolean when nothing does).
 *
 * All errors are collected (not just the first); a subtree with an error is
 * not checked further, so one mistake is reported once.
 */
import type { Expr } from "./ast.js"
import type { CompileContext } from "./context.js"
import { entry, type RawEntry } from "./errors.js"
import { type FnSpec, FUNCTION_NAMES, functionSpec, PARTITION_COLUMNS } from "./functions.js"
import type { Node, Type } from "./ir.js"
import { irChildren } from "./ir.js"
import { compileLike } from "./like.js"
import { suggest } from "./suggest.js"

/** Deepest typed tree accepted after inlining (AND / OR chains count as one level). */
export const MAX_DEPTH = 160

/** A checked subtree: typed, or NULL-typed and waiting for its context's type. */
type Checked = { readonly node: Node } | { readonly make: (t: Type) => Node }

const typeOf = (c: Checked): Type | "null" => ("node" in c ? c.node.type : "null")
const as = (c: Checked, t: Type): Node => ("node" in c ? c.node : c.make(t))

interface Anchor {
  readonly pos: number
  readonly name: string
}

interface State {
  readonly ctx: CompileContext
  readonly errors: Array<RawEntry>
}

const startOf = (e: Expr): number => {
  let cur = e
  for (;;) {
    switch (cur._tag) {
      case "And":
      case "Or":
      case "Compare":
      case "Arith":
        cur = cur.left
        continue
      case "Between":
      case "In":
      case "Like":
      case "IsNull":
      case "IsBool":
        cur = cur.arg
        continue
      default:
        return cur.pos
    }
  }
}

const report = (
  st: State,
  anchor: Anchor | undefined,
  code: RawEntry["code"],
  message: string,
  pos: number,
  suggestion?: string
) => {
  if (anchor === undefined) st.errors.push(entry(code, message, pos, suggestion))
  else
    st.errors.push(
      entry(code, `in custom signal '${anchor.name}' (position ${pos} of its expr): ${message}`, anchor.pos, suggestion)
    )
}

const all = (nodes: ReadonlyArray<Node>, f: (n: Node) => boolean) => nodes.every(f)
const any = (nodes: ReadonlyArray<Node>, f: (n: Node) => boolean) => nodes.some(f)

const mk = {
  lit: (type: Type, value: number | string | boolean | null): Node => ({
    k: "lit",
    type,
    value,
    nullable: value === null,
    constant: true
  }),
  bool: (k: "and" | "or", args: ReadonlyArray<Node>): Node => ({
    k,
    type: "boolean",
    args,
    nullable: any(args, (a) => a.nullable),
    constant: all(args, (a) => a.constant)
  })
}

const article = (t: Type | "null") => (t === "null" ? "NULL" : t === "numeric" ? "a numeric" : `a ${t}`)

/** Unifies the types of `items`: the one non-null type, "null" if all are NULL, undefined on conflict. */
const unify = (items: ReadonlyArray<Checked>): Type | "null" | undefined => {
  let t: Type | "null" = "null"
  for (const c of items) {
    const u = typeOf(c)
    if (u === "null") continue
    if (t === "null") t = u
    else if (t !== u) return undefined
  }
  return t
}

/*
 * The helpers below are module-level functions rather than closures created per node: the service
 * runs under tsx, whose transform (esbuild `keepNames`) wraps every named closure in a
 * `defineProperty` call at creation, which costs more than checking the node itself.
 */

const fail = (
  st: State,
  anchor: Anchor | undefined,
  code: RawEntry["code"],
  message: string,
  pos: number,
  suggestion?: string
): undefined => {
  report(st, anchor, code, message, pos, suggestion)
  return undefined
}

/** checks `sub` and requires type `t` (NULL accepted) */
const expect = (st: State, anchor: Anchor | undefined, sub: Expr, t: Type, what: string): Node | undefined => {
  const c = check(st, sub, anchor)
  if (c === undefined) return undefined
  const u = typeOf(c)
  if (u !== "null" && u !== t)
    return fail(st, anchor, "type_mismatch", `${what} expects ${article(t)} operand, got ${article(u)}`, startOf(sub))
  return as(c, t)
}

/** a NULL literal: typed by its context */
const NULL_CHECKED: Checked = {
  make(t) {
    return mk.lit(t, null)
  }
}

const check = (st: State, e: Expr, anchor: Anchor | undefined): Checked | undefined => {
  switch (e._tag) {
    case "Number":
      return { node: mk.lit("numeric", e.value) }
    case "String":
      return { node: mk.lit("string", e.value) }
    case "Bool":
      return { node: mk.lit("boolean", e.value) }
    case "Null":
      return NULL_CHECKED
    case "Ident": {
      const def = st.ctx.columns.get(e.name)
      if (def === undefined) {
        const hint = suggest(e.name, [...st.ctx.columns.names, ...(st.ctx.signals?.names ?? [])])
        return fail(
          st,
          anchor,
          "unknown_column",
          `unknown column '${e.name}'${hint === undefined ? "" : `; did you mean '${hint}'?`}`,
          e.pos,
          hint
        )
      }
      return { node: { k: "col", type: def.type, name: def.name, nullable: def.nullable, constant: false } }
    }
    case "Qualified": {
      const def = st.ctx.columns.get(e.name)
      const canonical = st.ctx.tickers?.(e.ticker)
      if (canonical === undefined) fail(st, anchor, "unknown_ticker", `unknown ticker '${e.ticker}'`, e.pos)
      if (def === undefined) {
        const hint = suggest(e.name, [...st.ctx.columns.names, ...(st.ctx.signals?.names ?? [])])
        return fail(
          st,
          anchor,
          "unknown_column",
          `unknown column '${e.name}'${hint === undefined ? "" : `; did you mean '${hint}'?`}`,
          e.pos,
          hint
        )
      }
      if (canonical === undefined) return undefined
      return { node: { k: "xref", type: def.type, ticker: canonical, name: def.name, nullable: true, constant: true } }
    }
    case "Neg": {
      const arg = expect(st, anchor, e.arg, "numeric", "unary -")
      return arg && { node: { k: "neg", type: "numeric", arg, nullable: arg.nullable, constant: arg.constant } }
    }
    case "Not": {
      const arg = expect(st, anchor, e.arg, "boolean", "NOT")
      return arg && { node: { k: "not", type: "boolean", arg, nullable: arg.nullable, constant: arg.constant } }
    }
    case "And":
    case "Or": {
      // flatten the (left-deep) chain iteratively
      const operands: Array<Expr> = []
      let cur: Expr = e
      while (cur._tag === e._tag) {
        operands.push((cur as typeof e).right)
        cur = (cur as typeof e).left
      }
      operands.push(cur)
      operands.reverse()
      const args = operands.map((o) => expect(st, anchor, o, "boolean", e._tag.toUpperCase()))
      if (args.some((a) => a === undefined)) return undefined
      return { node: mk.bool(e._tag === "And" ? "and" : "or", args as ReadonlyArray<Node>) }
    }
    case "Compare": {
      const l = check(st, e.left, anchor)
      const r = check(st, e.right, anchor)
      if (l === undefined || r === undefined) return undefined
      const t = unify([l, r])
      if (t === undefined) {
        return fail(
          st,
          anchor,
          "type_mismatch",
          `cannot compare ${article(typeOf(l))} with ${article(typeOf(r))} using ${e.op}`,
          e.pos
        )
      }
      const ty: Type = t === "null" ? "boolean" : t
      const left = as(l, ty)
      const right = as(r, ty)
      return {
        node: {
          k: "cmp",
          type: "boolean",
          op: e.op,
          left,
          right,
          nullable: left.nullable || right.nullable,
          constant: left.constant && right.constant
        }
      }
    }
    case "Arith": {
      const left = expect(st, anchor, e.left, "numeric", `operator ${e.op}`)
      const right = expect(st, anchor, e.right, "numeric", `operator ${e.op}`)
      if (left === undefined || right === undefined) return undefined
      return {
        node: {
          k: "arith",
          type: "numeric",
          op: e.op,
          left,
          right,
          nullable: true,
          constant: left.constant && right.constant
        }
      }
    }
    case "Between": {
      const parts = [check(st, e.arg, anchor), check(st, e.low, anchor), check(st, e.high, anchor)]
      if (parts.some((p) => p === undefined)) return undefined
      const cs = parts as ReadonlyArray<Checked>
      const t = unify(cs)
      if (t === undefined) {
        return fail(
          st,
          anchor,
          "type_mismatch",
          `BETWEEN operands must have one type (got ${cs.map((c) => typeOf(c)).join(", ")})`,
          e.pos
        )
      }
      const ty: Type = t === "null" ? "boolean" : t
      const [arg, low, high] = cs.map((c) => as(c, ty)) as [Node, Node, Node]
      return {
        node: {
          k: "between",
          type: "boolean",
          negated: e.negated,
          arg,
          low,
          high,
          nullable: arg.nullable || low.nullable || high.nullable,
          constant: arg.constant && low.constant && high.constant
        }
      }
    }
    case "In": {
      const parts = [check(st, e.arg, anchor), ...e.items.map((i) => check(st, i, anchor))]
      if (parts.some((p) => p === undefined)) return undefined
      const cs = parts as ReadonlyArray<Checked>
      const t = unify(cs)
      if (t === undefined) {
        const first = typeOf(cs[0]!)
        const bad = e.items.findIndex((_, i) => {
          const u = typeOf(cs[i + 1]!)
          return u !== "null" && first !== "null" && u !== first
        })
        const pos = bad >= 0 ? startOf(e.items[bad]!) : e.pos
        return fail(st, anchor, "type_mismatch", "IN list items must have the type of the left operand", pos)
      }
      const ty: Type = t === "null" ? "boolean" : t
      const [arg, ...items] = cs.map((c) => as(c, ty)) as [Node, ...Array<Node>]
      return {
        node: {
          k: "in",
          type: "boolean",
          negated: e.negated,
          arg,
          items,
          nullable: arg.nullable || any(items, (i) => i.nullable),
          constant: arg.constant && all(items, (i) => i.constant)
        }
      }
    }
    case "Like": {
      const op = e.caseInsensitive ? "ILIKE" : "LIKE"
      const arg = expect(st, anchor, e.arg, "string", op)
      if (e.pattern._tag !== "String") {
        return fail(st, anchor, "type_mismatch", `${op} pattern must be a string literal`, startOf(e.pattern))
      }
      const compiled = compileLike(e.pattern.value)
      if (typeof compiled === "string") return fail(st, anchor, "invalid_literal", compiled, e.pattern.pos)
      if (arg === undefined) return undefined
      return {
        node: {
          k: "like",
          type: "boolean",
          negated: e.negated,
          caseInsensitive: e.caseInsensitive,
          arg,
          pattern: e.pattern.value,
          nullable: arg.nullable,
          constant: arg.constant
        }
      }
    }
    case "IsNull": {
      const c = check(st, e.arg, anchor)
      if (c === undefined) return undefined
      const arg = as(c, "boolean")
      return {
        node: { k: "isnull", type: "boolean", negated: e.negated, arg, nullable: false, constant: arg.constant }
      }
    }
    case "IsBool": {
      const arg = expect(st, anchor, e.arg, "boolean", `IS ${e.negated ? "NOT " : ""}${e.value ? "TRUE" : "FALSE"}`)
      return (
        arg && {
          node: {
            k: "isbool",
            type: "boolean",
            negated: e.negated,
            value: e.value,
            arg,
            nullable: false,
            constant: arg.constant
          }
        }
      )
    }
    case "Call":
      return checkCall(st, e, anchor)
    case "Signal":
      return check(st, e.body, anchor ?? { pos: e.pos, name: e.name })
  }
}

/** a one-argument function of `want` returning `result` */
const checkUnary = (
  st: State,
  anchor: Anchor | undefined,
  e: Extract<Expr, { _tag: "Call" }>,
  fn: FnSpec,
  c: Checked,
  want: Type,
  result: Type
): Checked | undefined => {
  const u = typeOf(c)
  if (u !== "null" && u !== want) {
    return fail(
      st,
      anchor,
      "type_mismatch",
      `${e.name} expects ${article(want)} argument, got ${article(u)}`,
      startOf(e.args[0]!)
    )
  }
  const arg = as(c, want)
  return {
    node: { k: "call", type: result, fn: fn.name, args: [arg], nullable: arg.nullable, constant: arg.constant }
  }
}

/** COALESCE / LEAST / GREATEST / NULLIF with every argument typed `ty` */
const buildVariadic = (fn: FnSpec, cs: ReadonlyArray<Checked>, ty: Type): Node => {
  const args = cs.map((c) => as(c, ty))
  const nullable = fn.shape === "nullif" ? true : all(args, (a) => a.nullable)
  return { k: "call", type: ty, fn: fn.name, args, nullable, constant: all(args, (a) => a.constant) }
}

const checkCall = (st: State, e: Extract<Expr, { _tag: "Call" }>, anchor: Anchor | undefined): Checked | undefined => {
  const fn: FnSpec | undefined = functionSpec(e.name)
  if (fn === undefined) {
    const hint = suggest(e.name, FUNCTION_NAMES)
    return fail(
      st,
      anchor,
      "unknown_function",
      `unknown function ${e.name}${hint === undefined ? "" : `; did you mean ${hint}?`}`,
      e.pos,
      hint
    )
  }
  // a partition is a column name, not an expression: checked by `checkRank` alone
  const parts = (fn.shape === "rank" ? e.args.slice(0, 1) : e.args).map((a) => check(st, a, anchor))
  if (e.args.length < fn.minArgs || e.args.length > fn.maxArgs) {
    const n =
      fn.minArgs === fn.maxArgs
        ? `${fn.minArgs}`
        : fn.maxArgs < 100
          ? `${fn.minArgs} to ${fn.maxArgs}`
          : `at least ${fn.minArgs}`
    return fail(
      st,
      anchor,
      "wrong_arity",
      `${e.name} takes ${n} argument(s), got ${e.args.length}: ${fn.signature}`,
      e.pos
    )
  }
  if (fn.shape === "rank") return checkRank(st, anchor, e, fn, parts[0])
  if (parts.some((p) => p === undefined)) return undefined
  const cs = parts as ReadonlyArray<Checked>
  switch (fn.shape) {
    case "numeric":
      return checkUnary(st, anchor, e, fn, cs[0]!, "numeric", "numeric")
    case "length":
      return checkUnary(st, anchor, e, fn, cs[0]!, "string", "numeric")
    case "string":
      return checkUnary(st, anchor, e, fn, cs[0]!, "string", "string")
    case "variadic":
    case "nullif": {
      const t = unify(cs)
      if (t === undefined) {
        return fail(
          st,
          anchor,
          "type_mismatch",
          `${e.name} arguments must have one type (got ${cs.map(typeOf).join(", ")})`,
          e.pos
        )
      }
      if (t !== "null") return { node: buildVariadic(fn, cs, t) }
      return {
        make(ty) {
          return buildVariadic(fn, cs, ty)
        }
      }
    }
  }
}

/**
 * PCT_RANK / RANK / ZSCORE: a numeric argument and an optional partition, which must be one of the
 * static text columns named as such (not an expression, a literal or another column)
 */
const checkRank = (
  st: State,
  anchor: Anchor | undefined,
  e: Extract<Expr, { _tag: "Call" }>,
  fn: FnSpec,
  c: Checked | undefined
): Checked | undefined => {
  const by = e.args[1]
  let partition: Node | undefined
  if (by !== undefined) {
    const name = by._tag === "Ident" ? by.name : undefined
    const def = name === undefined || !PARTITION_COLUMNS.includes(name) ? undefined : st.ctx.columns.get(name)
    if (def === undefined || def.type !== "string") {
      const allowed = PARTITION_COLUMNS.filter((c) => st.ctx.columns.get(c) !== undefined).join(", ")
      return fail(
        st,
        anchor,
        "invalid_argument",
        `${e.name}'s second argument (the partition) must be one of the static text columns ${allowed}`,
        startOf(by)
      )
    }
    partition = { k: "col", type: "string", name: def.name, nullable: def.nullable, constant: false }
  }
  if (c === undefined) return undefined
  const u = typeOf(c)
  if (u !== "null" && u !== "numeric") {
    return fail(
      st,
      anchor,
      "type_mismatch",
      `${e.name} expects a numeric argument, got ${article(u)}`,
      startOf(e.args[0]!)
    )
  }
  const arg = as(c, "numeric")
  // never constant: the value depends on the rows in scope, not only on the row
  return {
    node: {
      k: "call",
      type: "numeric",
      fn: fn.name,
      args: partition === undefined ? [arg] : [arg, partition],
      nullable: true,
      constant: false
    }
  }
}

const irDepth = (root: Node): number => {
  let max = 0
  const stack: Array<[Node, number]> = [[root, 1]]
  while (stack.length > 0) {
    const [n, d] = stack.pop()!
    if (d > max) max = d
    for (const c of irChildren(n)) stack.push([c, d + 1])
  }
  return max
}

export interface CheckResult {
  readonly node: Node | undefined
  readonly errors: ReadonlyArray<RawEntry>
}

/** Resolves and type-checks an (inlined) expression; the root may have any type. */
export const typecheck = (expr: Expr, ctx: CompileContext): CheckResult => {
  const st: State = { ctx, errors: [] }
  const c = check(st, expr, undefined)
  if (c === undefined || st.errors.length > 0) return { node: undefined, errors: st.errors }
  const node = as(c, "boolean")
  if (irDepth(node) > MAX_DEPTH) {
    return {
      node: undefined,
      errors: [entry("nesting_too_deep", `expression nested deeper than ${MAX_DEPTH} levels`, startOf(expr))]
    }
  }
  return { node, errors: [] }
}

export { startOf }
