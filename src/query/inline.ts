/**
 * Custom-signal inlining: every name that is not a column but is one of the
 * account's own custom signals is replaced by the signal's parsed `expr`
 * (recursively), wrapped in a `Signal` node that renders parenthesized.
 *
 * Depth: the text being compiled is level 0 in "query" mode and level 1 in
 * "expr" mode (a custom signal's body is itself inlined at level 1 wherever it
 * is used); a signal inlined at a level above 5 is `recursion_depth_exceeded`,
 * and so is a cycle (reported with its path). `<ticker>.<signal>` inlines the
 * signal with every column reference in it qualified by that ticker.
 *
 * Errors inside an inlined body are reported at the position of the outermost
 * reference in the caller's text.
 */
import type { Expr } from "./ast.js"
import type { CompileContext } from "./context.js"
import { entry, type RawEntry } from "./errors.js"
import { type ParseResult, parse } from "./parser.js"

export const MAX_INLINE_DEPTH = 5

interface State {
  readonly ctx: CompileContext
  readonly parsed: Map<string, ParseResult>
  readonly errors: Array<RawEntry>
}

interface Scope {
  /** names being inlined, outermost first */
  readonly stack: ReadonlyArray<string>
  readonly level: number
  /** position (in the caller's text) of the outermost signal reference, when inside a body */
  readonly anchor: number | undefined
  /** ticker that qualifies column references (inside `<ticker>.<signal>`) */
  readonly qualifier: string | undefined
}

const bodyOf = (st: State, name: string): ParseResult | undefined => {
  const cached = st.parsed.get(name)
  if (cached !== undefined) return cached
  const expr = st.ctx.signals?.get(name)
  if (expr === undefined) return undefined
  const result = parse(expr)
  st.parsed.set(name, result)
  return result
}

const expand = (
  st: State,
  name: string,
  pos: number,
  scope: Scope,
  qualifier: string | undefined
): Expr | undefined => {
  const body = bodyOf(st, name)
  if (body === undefined) return undefined
  const at = scope.anchor ?? pos
  if (scope.stack.includes(name)) {
    const path = [...scope.stack.slice(scope.stack.indexOf(name)), name].join(" → ")
    st.errors.push(entry("cycle", `custom signals reference each other in a cycle: ${path}`, at))
    return { _tag: "Null", pos }
  }
  const level = scope.level + 1
  if (level > MAX_INLINE_DEPTH) {
    const path = [...scope.stack, name].join(" → ")
    st.errors.push(
      entry("recursion_depth_exceeded", `custom signals nest deeper than ${MAX_INLINE_DEPTH} levels: ${path}`, at)
    )
    return { _tag: "Null", pos }
  }
  if (!body.ok) {
    st.errors.push(entry(body.error.code, `custom signal '${name}' does not compile: ${body.error.message}`, at))
    return { _tag: "Null", pos }
  }
  const inner = walk(st, body.expr, { stack: [...scope.stack, name], level, anchor: at, qualifier })
  return { _tag: "Signal", name, body: inner, pos }
}

const walk = (st: State, e: Expr, scope: Scope): Expr => {
  switch (e._tag) {
    case "Number":
    case "String":
    case "Bool":
    case "Null":
      return e
    case "Ident": {
      if (st.ctx.columns.get(e.name) !== undefined) {
        return scope.qualifier === undefined
          ? e
          : { _tag: "Qualified", ticker: scope.qualifier, name: e.name, pos: e.pos }
      }
      return expand(st, e.name, e.pos, scope, scope.qualifier) ?? e
    }
    case "Qualified":
      if (st.ctx.columns.get(e.name) !== undefined) return e
      return expand(st, e.name, e.pos, scope, e.ticker) ?? e
    case "Neg":
    case "Not":
    case "IsNull":
    case "IsBool":
      return { ...e, arg: walk(st, e.arg, scope) }
    case "And":
    case "Or":
    case "Compare":
    case "Arith":
      return { ...e, left: walk(st, e.left, scope), right: walk(st, e.right, scope) }
    case "Between":
      return { ...e, arg: walk(st, e.arg, scope), low: walk(st, e.low, scope), high: walk(st, e.high, scope) }
    case "In":
      return { ...e, arg: walk(st, e.arg, scope), items: e.items.map((i) => walk(st, i, scope)) }
    case "Like":
      return { ...e, arg: walk(st, e.arg, scope), pattern: walk(st, e.pattern, scope) }
    case "Call":
      return { ...e, args: e.args.map((a) => walk(st, a, scope)) }
    case "Signal":
      return { ...e, body: walk(st, e.body, scope) }
  }
}

export interface InlineResult {
  readonly expr: Expr
  readonly errors: ReadonlyArray<RawEntry>
}

/** Inlines the account's custom signals into `expr`. */
export const inline = (expr: Expr, ctx: CompileContext): InlineResult => {
  if (ctx.signals === undefined) return { expr, errors: [] }
  const st: State = { ctx, parsed: new Map(), errors: [] }
  const exprMode = ctx.mode === "expr"
  const scope: Scope = {
    stack: exprMode && ctx.self !== undefined ? [ctx.self] : [],
    level: exprMode ? 1 : 0,
    anchor: undefined,
    qualifier: undefined
  }
  return { expr: walk(st, expr, scope), errors: st.errors }
}
