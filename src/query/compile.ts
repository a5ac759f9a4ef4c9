/**
 * The entry points: text → (lex, parse, inline custom signals, type check) →
 * a compiled expression with both backends (the in-memory evaluator and the
 * PostgreSQL compiler) and its canonical text. Failures are values
 * (`Either.left(QueryError)`); nothing from the text can make these throw.
 */
import { Either } from "effect"
import type { Snapshot } from "../market/snapshot.js"
import type { Expr } from "./ast.js"
import { startOf, typecheck } from "./check.js"
import type { CompileContext } from "./context.js"
import { entry, type Mode, QueryError, type RawEntry, toQueryError } from "./errors.js"
import { Arena, allRows } from "./evaluate/arena.js"
import { andInto, type Bits, bitsOfRows, countBits } from "./evaluate/bits.js"
import { type Env, type EvalPlan, plan } from "./evaluate/plan.js"
import { inline } from "./inline.js"
import { columnsReferenced, isCrossSectional, type Node, type Type, tickersOf, type Value } from "./ir.js"
import { parse } from "./parser.js"
import { type RenderOptions, render } from "./render.js"
import { type SqlFragment, type SqlOptions, selectTickersSql, toSql } from "./sql.js"

export interface CompiledExpression {
  /** syntax tree with the custom signals inlined */
  readonly ast: Expr
  /** typed tree */
  readonly ir: Node
  readonly type: Type
  readonly nullable: boolean
  /** canonical text (custom signals expanded, tickers canonical): the frozen `q` */
  readonly text: string
  /**
   * stable identity: the canonical text without the parentheses added around inlined signals; equal for
   * predicates that differ only in spacing, case, spelling or redundant parentheses, and equal to the key
   * of the frozen text
   */
  readonly key: string
  /** columns referenced (sorted) */
  readonly columns: ReadonlyArray<string>
  /** cross-ticker references, canonical symbols (sorted) */
  readonly tickers: ReadonlyArray<string>
  /** custom signals inlined (sorted) */
  readonly signals: ReadonlyArray<string>
  readonly toText: () => string
  /** parameterized PostgreSQL for the expression (a WHERE predicate when boolean) */
  readonly toSql: (options: SqlOptions | string) => SqlFragment
  /**
   * it calls a cross-sectional function (PCT_RANK, RANK, ZSCORE): a row's value depends on every row
   * of the evaluation's `scope`, so a caller must pass the universe it runs over, and a change in any
   * row of it can change every row's value
   */
  readonly crossSectional: boolean
  /**
   * the value for each row of `rows` (default: every row), NULL as `null`; cross-sectional functions
   * rank among `scope` (ascending rows; default every row of the snapshot), whatever `rows` is
   */
  readonly values: (
    snapshot: Snapshot,
    rows?: ReadonlyArray<number> | Int32Array,
    scope?: Int32Array | undefined
  ) => Array<Value>
}

/**
 * The row selection of a compiled predicate and nothing else (no text, AST,
 * IR or other methods): what a cache of many predicates keeps (~half the
 * memory of a whole `CompiledQuery`).
 */
export interface Predicate {
  /** see `CompiledQuery.evaluateInto` */
  readonly evaluateInto: (snapshot: Snapshot, out: Int32Array, rows?: Int32Array, scope?: Int32Array) => number
}

/** made in a scope of its own, so the closure holds the plan only */
const predicateOf = (compiled: EvalPlan): Predicate => ({
  evaluateInto(snapshot, out, rows, scope) {
    if (out.length < (rows?.length ?? snapshot.size)) throw new RangeError("evaluateInto: output buffer too small")
    return run(snapshot, (arena) => {
      const sel = rows ?? allRows(snapshot.size)
      return compiled.select(envFor(snapshot, arena, scope), sel, sel.length, 2, out)
    })
  }
})

export interface CompiledQuery extends CompiledExpression {
  readonly type: "boolean"
  /** the row selection alone, for callers that keep many predicates */
  readonly predicate: Predicate
  /**
   * rows (ascending) where the predicate is TRUE, optionally only among `rows` (ascending);
   * cross-sectional functions rank among `scope` (default every row: see `crossSectional`)
   */
  readonly evaluate: (snapshot: Snapshot, rows?: Int32Array, scope?: Int32Array) => Int32Array
  /**
   * `evaluate` into a caller-owned buffer (at least `rows.length`, or the snapshot's size, long): writes
   * the matching rows to `out[0..n)` and returns `n`. Allocates nothing, for callers that evaluate many
   * predicates in a row (subscriptions) and reuse one buffer.
   */
  readonly evaluateInto: (snapshot: Snapshot, out: Int32Array, rows?: Int32Array, scope?: Int32Array) => number
  /**
   * the rows where the predicate is TRUE as a bitset (evaluate/bits.ts), optionally only among `rows`
   * (ascending), and how many: a conjunction of comparisons with constants is answered from the
   * snapshot's sorted columns, word by word, without a comparison per row
   */
  readonly matchBits: (
    snapshot: Snapshot,
    rows?: Int32Array,
    scope?: Int32Array
  ) => { readonly bits: Bits; readonly count: number }
  /** one byte per row of the snapshot: 1 where the predicate is TRUE */
  readonly mask: (snapshot: Snapshot, rows?: Int32Array, scope?: Int32Array) => Uint8Array
  /** tickers where the predicate is TRUE, in row (ascending ticker) order */
  readonly matches: (snapshot: Snapshot, rows?: Int32Array, scope?: Int32Array) => Array<string>
  /** truth code per row: 0 FALSE, 1 NULL, 2 TRUE */
  readonly truth: (snapshot: Snapshot, scope?: Int32Array) => Uint8Array
  /** `SELECT ticker FROM <table> WHERE <predicate> ORDER BY ticker` */
  readonly selectSql: (table: string) => SqlFragment
}

const signalsIn = (root: Expr): ReadonlyArray<string> => {
  const out = new Set<string>()
  const stack = [root]
  while (stack.length > 0) {
    const e = stack.pop()!
    switch (e._tag) {
      case "Signal":
        out.add(e.name)
        stack.push(e.body)
        break
      case "Neg":
      case "Not":
      case "IsNull":
      case "IsBool":
        stack.push(e.arg)
        break
      case "And":
      case "Or":
      case "Compare":
      case "Arith":
        stack.push(e.left, e.right)
        break
      case "Between":
        stack.push(e.arg, e.low, e.high)
        break
      case "In":
        stack.push(e.arg, ...e.items)
        break
      case "Like":
        stack.push(e.arg, e.pattern)
        break
      case "Call":
        stack.push(...e.args)
        break
      default:
        break
    }
  }
  return [...out].sort()
}

const decode = (type: Type, v: number | string | null | undefined): Value => {
  if (v === undefined || v === null) return null
  if (type === "numeric") return v !== v ? null : (v as number)
  if (type === "boolean") return v === 1 ? null : v === 2
  return v as string
}

const rowsOf = (snapshot: Snapshot, rows: ReadonlyArray<number> | Int32Array | undefined): Int32Array =>
  rows === undefined ? allRows(snapshot.size) : rows instanceof Int32Array ? rows : Int32Array.from(rows)

const envFor = (snap: Snapshot, arena: Arena, scope?: Int32Array | undefined): Env => {
  const all = allRows(snap.size)
  return { snap, arena, all, scope: scope ?? all }
}

const run = <A>(snapshot: Snapshot, f: (arena: Arena) => A): A => {
  const arena = new Arena(snapshot.size)
  try {
    return f(arena)
  } finally {
    arena.release()
  }
}

interface Front {
  readonly ast: Expr
  readonly ir: Node
}

/** Lex, parse, inline and type-check; errors are raw (UTF-16 positions). */
const front = (text: string, ctx: CompileContext): Front | ReadonlyArray<RawEntry> => {
  const parsed = parse(text)
  if (!parsed.ok) return [parsed.error]
  const inlined = inline(parsed.expr, ctx)
  if (inlined.errors.length > 0) return inlined.errors
  const checked = typecheck(inlined.expr, ctx)
  if (checked.node === undefined) return checked.errors
  return { ast: inlined.expr, ir: checked.node }
}

/**
 * The same string, flat: V8 keeps a string built by concatenation as the tree of its parts (a
 * rendered q: ~8 times the size of its characters) until something reads a character, which
 * flattens it in place. The text and key of a compiled query live as long as the webhooks or
 * caches that hold them.
 */
export const flat = (s: string): string => {
  s.charCodeAt(0)
  return s
}

const build = (ast: Expr, ir: Node, compiled: EvalPlan, ctx: CompileContext): CompiledExpression => {
  const tickers = ctx.tickers
  // methods and anonymous arguments rather than named closures: see NAMED_CLOSURES in evaluate/plan.ts
  const options: RenderOptions = {
    ticker(t: string) {
      return tickers?.(t) ?? t
    }
  }
  const text = flat(render(ast, options))
  const key = flat(render(ast, { ...options, signalParentheses: false }))
  return {
    ast,
    ir,
    type: ir.type,
    nullable: ir.nullable,
    text,
    key,
    columns: columnsReferenced(ir),
    crossSectional: isCrossSectional(ir),
    tickers: tickersOf(ir),
    signals: signalsIn(ast),
    toText() {
      return text
    },
    toSql(options) {
      return toSql(ir, typeof options === "string" ? { table: options } : options)
    },
    values(snapshot, rows, scope) {
      return run(snapshot, (arena) => {
        const sel = rowsOf(snapshot, rows)
        const p = compiled
        const env = envFor(snapshot, arena, scope)
        if (p.constant) {
          const v = decode(ir.type, p.scalar(env))
          return Array.from(sel, () => v)
        }
        const vec = p.vec(env, sel, sel.length)
        return Array.from(sel, (r) => decode(ir.type, (vec as ArrayLike<number | string | null>)[r]))
      })
    }
  }
}

const withMode = (ctx: CompileContext, mode: Mode | undefined): Mode => mode ?? ctx.mode ?? "query"

/** Compiles an expression of any type (numeric, string or boolean). */
export const compileExpression = (text: string, ctx: CompileContext): Either.Either<CompiledExpression, QueryError> => {
  const mode = withMode(ctx, undefined)
  const f = front(text, ctx)
  if (!("ir" in f)) return Either.left(toQueryError(mode, text, f))
  return Either.right(build(f.ast, f.ir, plan(f.ir), ctx))
}

/** Lex, parse, inline and type-check a predicate: the root must be boolean. */
const frontOfPredicate = (text: string, ctx: CompileContext): Either.Either<Front, QueryError> => {
  const mode = withMode(ctx, undefined)
  const f = front(text, ctx)
  if (!("ir" in f)) return Either.left(toQueryError(mode, text, f))
  if (f.ir.type !== "boolean") {
    const what = mode === "expr" ? "a custom signal" : "q"
    return Either.left(
      toQueryError(mode, text, [
        entry("not_boolean", `${what} must be a boolean expression, got a ${f.ir.type} expression`, startOf(f.ast))
      ])
    )
  }
  return Either.right(f)
}

/** see `CompiledQuery.matchBits` (a scope of its own: the closure holds the plan only) */
const matchBitsOf =
  (compiled: EvalPlan): CompiledQuery["matchBits"] =>
  (snapshot, rows, scope) =>
    run(snapshot, (arena) => {
      const env = envFor(snapshot, arena, scope)
      const bits = compiled.bits?.(env, 2)
      if (bits === undefined) {
        const sel = rows ?? env.all
        const out = arena.i32()
        const n = compiled.select(env, sel, sel.length, 2, out)
        return { bits: bitsOfRows(snapshot.size, out, n), count: n }
      }
      if (rows !== undefined) andInto(bits, bitsOfRows(snapshot.size, rows))
      return { bits, count: countBits(bits) }
    })

/** A predicate's matches and nothing else: what a page of a one-off scan reads. */
export type Matcher = Pick<CompiledQuery, "matchBits">

/**
 * Compiles a predicate as `compileQuery` does (the same errors), to its matches only: no canonical
 * texts rendered, no references listed — for a `q` answered once and dropped.
 */
export const compileMatcher = (text: string, ctx: CompileContext): Either.Either<Matcher, QueryError> =>
  Either.map(frontOfPredicate(text, ctx), (f) => ({ matchBits: matchBitsOf(plan(f.ir)) }))

/**
 * Compiles a predicate (scan `q`, subscription condition, or — with
 * `ctx.mode = "expr"` — a custom signal's `expr`): the root must be boolean.
 */
export const compileQuery = (text: string, ctx: CompileContext): Either.Either<CompiledQuery, QueryError> => {
  const checked = frontOfPredicate(text, ctx)
  if (Either.isLeft(checked)) return Either.left(checked.left)
  const f = checked.right
  const compiled = plan(f.ir)
  const base = build(f.ast, f.ir, compiled, ctx)
  const predicate = predicateOf(compiled)
  const fns: Pick<
    CompiledQuery,
    "predicate" | "evaluate" | "evaluateInto" | "matchBits" | "mask" | "matches" | "truth" | "selectSql"
  > = {
    predicate,
    evaluate(snapshot, rows, scope) {
      return run(snapshot, (arena) => {
        const sel = rows ?? allRows(snapshot.size)
        const out = arena.i32()
        const n = compiled.select(envFor(snapshot, arena, scope), sel, sel.length, 2, out)
        return out.slice(0, n)
      })
    },
    evaluateInto: predicate.evaluateInto,
    matchBits: matchBitsOf(compiled),
    mask(snapshot, rows, scope) {
      const mask = new Uint8Array(snapshot.size)
      for (const r of fns.evaluate(snapshot, rows, scope)) mask[r] = 1
      return mask
    },
    matches(snapshot, rows, scope) {
      return Array.from(fns.evaluate(snapshot, rows, scope), (r) => snapshot.tickers[r]!)
    },
    truth(snapshot, scope) {
      return run(snapshot, (arena) => {
        const sel = allRows(snapshot.size)
        const p = compiled
        const env = envFor(snapshot, arena, scope)
        if (p.constant) return new Uint8Array(snapshot.size).fill(p.scalar(env) as number)
        return (p.vec(env, sel, sel.length) as Uint8Array).slice(0, snapshot.size)
      })
    },
    selectSql(table) {
      return selectTickersSql(f.ir, table)
    }
  }
  // filled in place: spreading `base` and `fns` into a new object took a third of a compile
  return Either.right(Object.assign(base, fns, { type: "boolean" as const }))
}

export { QueryError }
