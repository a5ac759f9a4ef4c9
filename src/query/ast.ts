/**
 * The untyped syntax tree of `q`, produced by the parser and by custom-signal
 * inlining. Every node records `pos`, the UTF-16 offset of its first character
 * in the text it was parsed from (nodes inside an inlined custom signal carry
 * offsets into that signal's `expr`; the enclosing `Signal` node carries the
 * offset of the reference).
 *
 * Names are normalised: identifiers lower case, function names upper case,
 * `!=` is stored as `<>`.
 */
export type CompareOp = "=" | "<>" | "<" | "<=" | ">" | ">="
export type ArithOp = "+" | "-" | "*" | "/" | "%"

export type Expr =
  | NumberLit
  | StringLit
  | BoolLit
  | NullLit
  | Ident
  | Qualified
  | Neg
  | Not
  | And
  | Or
  | Compare
  | Arith
  | Between
  | In
  | Like
  | IsNull
  | IsBool
  | Call
  | Signal

export interface NumberLit {
  readonly _tag: "Number"
  readonly value: number
  readonly pos: number
}
export interface StringLit {
  readonly _tag: "String"
  readonly value: string
  readonly pos: number
}
export interface BoolLit {
  readonly _tag: "Bool"
  readonly value: boolean
  readonly pos: number
}
export interface NullLit {
  readonly _tag: "Null"
  readonly pos: number
}
/** A column or custom-signal name (lower case). */
export interface Ident {
  readonly _tag: "Ident"
  readonly name: string
  readonly pos: number
}
/** `<ticker>.<column>`: `ticker` as written (bare words upper-cased), `name` lower case. */
export interface Qualified {
  readonly _tag: "Qualified"
  readonly ticker: string
  readonly name: string
  readonly pos: number
}
export interface Neg {
  readonly _tag: "Neg"
  readonly arg: Expr
  readonly pos: number
}
export interface Not {
  readonly _tag: "Not"
  readonly arg: Expr
  readonly pos: number
}
export interface And {
  readonly _tag: "And"
  readonly left: Expr
  readonly right: Expr
  readonly pos: number
}
export interface Or {
  readonly _tag: "Or"
  readonly left: Expr
  readonly right: Expr
  readonly pos: number
}
export interface Compare {
  readonly _tag: "Compare"
  readonly op: CompareOp
  readonly left: Expr
  readonly right: Expr
  /** offset of the operator */
  readonly pos: number
}
export interface Arith {
  readonly _tag: "Arith"
  readonly op: ArithOp
  readonly left: Expr
  readonly right: Expr
  /** offset of the operator */
  readonly pos: number
}
export interface Between {
  readonly _tag: "Between"
  readonly negated: boolean
  readonly arg: Expr
  readonly low: Expr
  readonly high: Expr
  /** offset of BETWEEN (or of NOT) */
  readonly pos: number
}
export interface In {
  readonly _tag: "In"
  readonly negated: boolean
  readonly arg: Expr
  readonly items: ReadonlyArray<Expr>
  readonly pos: number
}
export interface Like {
  readonly _tag: "Like"
  readonly negated: boolean
  readonly caseInsensitive: boolean
  readonly arg: Expr
  readonly pattern: Expr
  readonly pos: number
}
export interface IsNull {
  readonly _tag: "IsNull"
  readonly negated: boolean
  readonly arg: Expr
  readonly pos: number
}
export interface IsBool {
  readonly _tag: "IsBool"
  readonly negated: boolean
  readonly value: boolean
  readonly arg: Expr
  readonly pos: number
}
export interface Call {
  readonly _tag: "Call"
  /** upper case */
  readonly name: string
  readonly args: ReadonlyArray<Expr>
  readonly pos: number
}
/** An inlined custom signal: `body` was parsed from the signal's own `expr`. */
export interface Signal {
  readonly _tag: "Signal"
  readonly name: string
  readonly body: Expr
  readonly pos: number
}

/** Direct children, in source order. */
export const children = (e: Expr): ReadonlyArray<Expr> => {
  switch (e._tag) {
    case "Number":
    case "String":
    case "Bool":
    case "Null":
    case "Ident":
    case "Qualified":
      return []
    case "Neg":
    case "Not":
    case "IsNull":
    case "IsBool":
      return [e.arg]
    case "And":
    case "Or":
    case "Compare":
    case "Arith":
      return [e.left, e.right]
    case "Between":
      return [e.arg, e.low, e.high]
    case "In":
      return [e.arg, ...e.items]
    case "Like":
      return [e.arg, e.pattern]
    case "Call":
      return e.args
    case "Signal":
      return [e.body]
  }
}

/**
 * Nesting depth as the later passes see it: a leaf is 1, and a chain of the
 * same AND / OR counts as one level (it is flattened). Iterative, so safe on
 * any input; the parser refuses trees deeper than the passes accept.
 */
export const nesting = (root: Expr): number => {
  let max = 0
  const stack: Array<[Expr, number]> = [[root, 1]]
  while (stack.length > 0) {
    const [e, d] = stack.pop()!
    if (d > max) max = d
    for (const c of children(e)) {
      const chained = (e._tag === "And" || e._tag === "Or") && c._tag === e._tag
      stack.push([c, chained ? d : d + 1])
    }
  }
  return max
}

/** Depth of the tree (a leaf has depth 1); iterative, so safe on any input. */
export const depth = (root: Expr): number => {
  let max = 0
  const stack: Array<[Expr, number]> = [[root, 1]]
  while (stack.length > 0) {
    const [e, d] = stack.pop()!
    if (d > max) max = d
    for (const c of children(e)) stack.push([c, d + 1])
  }
  return max
}
