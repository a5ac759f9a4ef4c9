/**
 * Canonical text of a syntax tree: keywords and function names upper case,
 * names lower case (quoted when they clash with a keyword), tickers in their
 * canonical form, numbers in shortest round-trip form, strings with `''`,
 * `<>` for inequality, and only the parentheses the grammar needs (plus one
 * pair around every inlined custom signal). Parsing the text gives back the
 * same tree, so the text is a stable key: equal predicates have equal keys.
 * This is the frozen `q` stored in a webhook at subscribe time.
 */
import type { Expr } from "./ast.js"
import { FORBIDDEN, KEYWORDS, UNSUPPORTED } from "./lexer.js"

const OR = 1
const AND = 2
const NOT = 3
const IS = 4
const CMP = 5
const PRED = 6
const ADD = 7
const MUL = 8
const NEG = 9
const PRIMARY = 10

const precedence = (e: Expr): number => {
  switch (e._tag) {
    case "Or":
      return OR
    case "And":
      return AND
    case "Not":
      return NOT
    case "IsNull":
    case "IsBool":
      return IS
    case "Compare":
      return CMP
    case "Between":
    case "In":
    case "Like":
      return PRED
    case "Arith":
      return e.op === "+" || e.op === "-" ? ADD : MUL
    case "Neg":
      return NEG
    default:
      return PRIMARY
  }
}

const BARE = /^[a-z_][a-z0-9_]*$/
const BARE_TICKER = /^[A-Za-z_][A-Za-z0-9_]*$/

const reserved = (w: string) => {
  const u = w.toUpperCase()
  return KEYWORDS.has(u) || FORBIDDEN.has(u) || UNSUPPORTED.has(u)
}

const quote = (s: string) => `"${s.replaceAll('"', '""')}"`

export const renderName = (name: string): string => (BARE.test(name) && !reserved(name) ? name : quote(name))

export const renderTicker = (t: string): string => (BARE_TICKER.test(t) && t === t.toUpperCase() ? t : quote(t))

export const renderNumber = (v: number): string => String(v)

export const renderString = (s: string): string => `'${s.replaceAll("'", "''")}'`

export interface RenderOptions {
  /** maps a written ticker to its canonical symbol */
  readonly ticker?: (written: string) => string
  /**
   * parenthesize every inlined custom signal (default true); false renders a signal's body like any
   * subexpression, which is how the key is made (the frozen text then has the same key)
   */
  readonly signalParentheses?: boolean
}

/** Renders `e` as canonical text. */
export const render = (root: Expr, options: RenderOptions = {}): string =>
  go({ ticker: options.ticker, signalParentheses: options.signalParentheses ?? true }, root, OR)

// module-level functions, not closures per call: see NAMED_CLOSURES in evaluate/plan.ts
interface Ctx {
  readonly ticker: ((written: string) => string) | undefined
  readonly signalParentheses: boolean
}

const go = (c: Ctx, e: Expr, min: number): string => {
  if (e._tag === "Signal" && !c.signalParentheses) return go(c, e.body, min)
  const s = bare(c, e)
  return precedence(e) < min ? `(${s})` : s
}

const bare = (c: Ctx, e: Expr): string => {
  switch (e._tag) {
    case "Number":
      return renderNumber(e.value)
    case "String":
      return renderString(e.value)
    case "Bool":
      return e.value ? "TRUE" : "FALSE"
    case "Null":
      return "NULL"
    case "Ident":
      return renderName(e.name)
    case "Qualified":
      return `${renderTicker(c.ticker === undefined ? e.ticker : c.ticker(e.ticker))}.${renderName(e.name)}`
    case "Neg": {
      const arg = go(c, e.arg, NEG)
      return arg.startsWith("-") ? `-(${arg})` : `-${arg}`
    }
    case "Not":
      return `NOT ${go(c, e.arg, NOT)}`
    case "And":
      return `${go(c, e.left, AND)} AND ${go(c, e.right, AND + 1)}`
    case "Or":
      return `${go(c, e.left, OR)} OR ${go(c, e.right, OR + 1)}`
    case "Compare":
      return `${go(c, e.left, PRED)} ${e.op} ${go(c, e.right, PRED)}`
    case "Arith": {
      const p = precedence(e)
      return `${go(c, e.left, p)} ${e.op} ${go(c, e.right, p + 1)}`
    }
    case "Between":
      return `${go(c, e.arg, ADD)} ${e.negated ? "NOT " : ""}BETWEEN ${go(c, e.low, ADD)} AND ${go(c, e.high, ADD)}`
    case "In":
      return `${go(c, e.arg, ADD)} ${e.negated ? "NOT " : ""}IN (${e.items.map((i) => go(c, i, OR)).join(", ")})`
    case "Like":
      return `${go(c, e.arg, ADD)} ${e.negated ? "NOT " : ""}${e.caseInsensitive ? "ILIKE" : "LIKE"} ${go(c, e.pattern, ADD)}`
    case "IsNull":
      return `${go(c, e.arg, CMP)} IS ${e.negated ? "NOT " : ""}NULL`
    case "IsBool":
      return `${go(c, e.arg, CMP)} IS ${e.negated ? "NOT " : ""}${e.value ? "TRUE" : "FALSE"}`
    case "Call":
      return `${e.name}(${e.args.map((a) => go(c, a, OR)).join(", ")})`
    case "Signal":
      return `(${go(c, e.body, OR)})`
  }
}
