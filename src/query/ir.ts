/**
 * The typed tree both backends compile from: names resolved, custom signals
 * inlined, every node typed (boolean / numeric / string), NULL literals given
 * the type their context requires, AND / OR chains flattened.
 */
import type { ArithOp, CompareOp } from "./ast.js"
import { type FnName, isRankFn } from "./functions.js"

export type Type = "boolean" | "numeric" | "string"

export type Value = number | string | boolean | null

interface Base {
  readonly type: Type
  /** may evaluate to NULL */
  readonly nullable: boolean
  /** row-independent: no column reference (cross-ticker references are constant per snapshot) */
  readonly constant: boolean
}

export type Node =
  | Lit
  | Col
  | XRef
  | NegNode
  | ArithNode
  | CmpNode
  | AndNode
  | OrNode
  | NotNode
  | BetweenNode
  | InNode
  | LikeNode
  | IsNullNode
  | IsBoolNode
  | CallNode

export interface Lit extends Base {
  readonly k: "lit"
  readonly value: Value
}
export interface Col extends Base {
  readonly k: "col"
  readonly name: string
}
/** `<ticker>.<column>`: the column's value in that ticker's row of the same snapshot (NULL if absent). */
export interface XRef extends Base {
  readonly k: "xref"
  /** canonical symbol */
  readonly ticker: string
  readonly name: string
}
export interface NegNode extends Base {
  readonly k: "neg"
  readonly arg: Node
}
export interface ArithNode extends Base {
  readonly k: "arith"
  readonly op: ArithOp
  readonly left: Node
  readonly right: Node
}
export interface CmpNode extends Base {
  readonly k: "cmp"
  readonly op: CompareOp
  readonly left: Node
  readonly right: Node
}
export interface AndNode extends Base {
  readonly k: "and"
  readonly args: ReadonlyArray<Node>
}
export interface OrNode extends Base {
  readonly k: "or"
  readonly args: ReadonlyArray<Node>
}
export interface NotNode extends Base {
  readonly k: "not"
  readonly arg: Node
}
export interface BetweenNode extends Base {
  readonly k: "between"
  readonly negated: boolean
  readonly arg: Node
  readonly low: Node
  readonly high: Node
}
export interface InNode extends Base {
  readonly k: "in"
  readonly negated: boolean
  readonly arg: Node
  readonly items: ReadonlyArray<Node>
}
export interface LikeNode extends Base {
  readonly k: "like"
  readonly negated: boolean
  readonly caseInsensitive: boolean
  readonly arg: Node
  /** the pattern literal (validated) */
  readonly pattern: string
}
export interface IsNullNode extends Base {
  readonly k: "isnull"
  readonly negated: boolean
  readonly arg: Node
}
export interface IsBoolNode extends Base {
  readonly k: "isbool"
  readonly negated: boolean
  readonly value: boolean
  readonly arg: Node
}
export interface CallNode extends Base {
  readonly k: "call"
  readonly fn: FnName
  readonly args: ReadonlyArray<Node>
}

/** Direct children. */
export const irChildren = (n: Node): ReadonlyArray<Node> => {
  switch (n.k) {
    case "lit":
    case "col":
    case "xref":
      return []
    case "neg":
    case "not":
    case "isnull":
    case "isbool":
    case "like":
      return [n.arg]
    case "arith":
    case "cmp":
      return [n.left, n.right]
    case "and":
    case "or":
    case "call":
      return n.args
    case "between":
      return [n.arg, n.low, n.high]
    case "in":
      return [n.arg, ...n.items]
  }
}

/** Column names referenced (sorted, unique). */
export const columnsReferenced = (root: Node): ReadonlyArray<string> => {
  const out = new Set<string>()
  const stack = [root]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.k === "col" || n.k === "xref") out.add(n.name)
    stack.push(...irChildren(n))
  }
  return [...out].sort()
}

/** Cross-ticker references (canonical symbols, sorted, unique). */
export const tickersOf = (root: Node): ReadonlyArray<string> => {
  const out = new Set<string>()
  const stack = [root]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.k === "xref") out.add(n.ticker)
    stack.push(...irChildren(n))
  }
  return [...out].sort()
}

/** A cross-sectional call (PCT_RANK, RANK, ZSCORE): its value depends on every row in scope. */
export const isRankCall = (n: Node): n is CallNode => n.k === "call" && isRankFn(n.fn)

/** Some node is a cross-sectional call: a row's value depends on the other rows in the evaluation's scope. */
export const isCrossSectional = (root: Node): boolean => {
  const stack = [root]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (isRankCall(n)) return true
    stack.push(...irChildren(n))
  }
  return false
}

/** No column or cross-ticker reference (nor a cross-sectional call): a compile-time constant. */
export const isPure = (root: Node): boolean => {
  const stack = [root]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.k === "col" || n.k === "xref" || isRankCall(n)) return false
    stack.push(...irChildren(n))
  }
  return true
}
