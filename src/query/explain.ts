/**
 * Why one row does or does not match a compiled predicate: the typed tree
 * (`CompiledQuery.ir`, the one the evaluator runs) evaluated at that row,
 * every AND/OR/NOT node and every comparison with its operands' values and
 * its result (`true`, `false`, or `null` for SQL's unknown). Values come from
 * `evalScalar` (the evaluator's scalar path, given the row), so the root's
 * result is the evaluator's answer for the row (a property test checks it
 * against `CompiledQuery.truth`).
 */
import type { Snapshot } from "../market/snapshot.js"
import { evalScalar, type Scalar } from "./evaluate/scalar.js"
import type { Node, Value } from "./ir.js"
import { renderName, renderNumber, renderString, renderTicker } from "./render.js"

/** One operand of a leaf: its text and its value at the row. */
export interface ExplainOperand {
  readonly expr: string
  readonly value: Value
}

/** A node of the explained tree. */
export interface ExplainNode {
  /** the node's text (custom signals expanded) */
  readonly expr: string
  /** `AND`, `OR`, `NOT`, or the leaf's operator (`>`, `BETWEEN`, `IN`, `LIKE`, `IS NULL`, …, `value` for a flag) */
  readonly op: string
  readonly result: boolean | null
  /** AND, OR, NOT: the children, in order */
  readonly args?: ReadonlyArray<ExplainNode>
  /** a leaf: its operands at the row */
  readonly operands?: ReadonlyArray<ExplainOperand>
}

/** a scalar of the evaluator's encoding as JSON: NULL as null, truth codes as booleans */
const decode = (n: Node, v: Scalar): Value => {
  if (n.type === "numeric") return v !== v ? null : (v as number)
  if (n.type === "boolean") return v === 2 ? true : v === 0 ? false : null
  return v as string | null
}

const truthOf = (v: Scalar): boolean | null => (v === 2 ? true : v === 0 ? false : null)

const CMP_PREC = 5

const prec = (n: Node): number => {
  switch (n.k) {
    case "or":
      return 1
    case "and":
      return 2
    case "not":
      return 3
    case "isnull":
    case "isbool":
      return 4
    case "cmp":
      return CMP_PREC
    case "between":
    case "in":
    case "like":
      return 6
    case "arith":
      return n.op === "+" || n.op === "-" ? 7 : 8
    case "neg":
      return 9
    default:
      return 10
  }
}

/** `n` as text in a context of precedence `min` (parenthesized when it binds less tightly) */
const inCtx = (n: Node, min: number): string => {
  const text = renderNode(n)
  return prec(n) < min ? `(${text})` : text
}

/** The text of a typed node (the canonical spelling of `render`, from the typed tree). */
export const renderNode = (n: Node): string => {
  switch (n.k) {
    case "lit":
      return n.value === null
        ? "NULL"
        : typeof n.value === "boolean"
          ? n.value
            ? "TRUE"
            : "FALSE"
          : typeof n.value === "number"
            ? n.value < 0 || Object.is(n.value, -0)
              ? `(${renderNumber(n.value)})`
              : renderNumber(n.value)
            : renderString(n.value)
    case "col":
      return renderName(n.name)
    case "xref":
      return `${renderTicker(n.ticker)}.${renderName(n.name)}`
    case "neg": {
      // `--x` would read as a comment
      const arg = inCtx(n.arg, 9)
      return arg.startsWith("-") ? `-(${arg})` : `-${arg}`
    }
    case "arith": {
      const p = prec(n)
      return `${inCtx(n.left, p)} ${n.op} ${inCtx(n.right, p + 1)}`
    }
    case "cmp":
      return `${inCtx(n.left, CMP_PREC + 1)} ${n.op} ${inCtx(n.right, CMP_PREC + 1)}`
    case "and":
      return n.args.map((a) => inCtx(a, 3)).join(" AND ")
    case "or":
      return n.args.map((a) => inCtx(a, 2)).join(" OR ")
    case "not":
      return `NOT ${inCtx(n.arg, 3)}`
    case "between":
      return `${inCtx(n.arg, 7)} ${n.negated ? "NOT " : ""}BETWEEN ${inCtx(n.low, 7)} AND ${inCtx(n.high, 7)}`
    case "in":
      return `${inCtx(n.arg, 7)} ${n.negated ? "NOT " : ""}IN (${n.items.map(renderNode).join(", ")})`
    case "like":
      return `${inCtx(n.arg, 7)} ${n.negated ? "NOT " : ""}${n.caseInsensitive ? "ILIKE" : "LIKE"} ${renderString(n.pattern)}`
    case "isnull":
      return `${inCtx(n.arg, 5)} IS ${n.negated ? "NOT " : ""}NULL`
    case "isbool":
      return `${inCtx(n.arg, 5)} IS ${n.negated ? "NOT " : ""}${n.value ? "TRUE" : "FALSE"}`
    case "call":
      return `${n.fn}(${n.args.map(renderNode).join(", ")})`
  }
}

const leafOp = (n: Node): string => {
  switch (n.k) {
    case "cmp":
      return n.op
    case "between":
      return n.negated ? "NOT BETWEEN" : "BETWEEN"
    case "in":
      return n.negated ? "NOT IN" : "IN"
    case "like":
      return `${n.negated ? "NOT " : ""}${n.caseInsensitive ? "ILIKE" : "LIKE"}`
    case "isnull":
      return n.negated ? "IS NOT NULL" : "IS NULL"
    case "isbool":
      return `IS ${n.negated ? "NOT " : ""}${n.value ? "TRUE" : "FALSE"}`
    case "call":
      return n.fn
    default:
      return "value"
  }
}

const leafOperands = (n: Node): ReadonlyArray<Node> => {
  switch (n.k) {
    case "cmp":
      return [n.left, n.right]
    case "between":
      return [n.arg, n.low, n.high]
    case "in":
      return [n.arg, ...n.items]
    case "like":
    case "isnull":
    case "isbool":
      return [n.arg]
    case "call":
      return n.args
    default:
      return []
  }
}

/**
 * The boolean node `n` explained at `row` of `snapshot`; cross-sectional calls (PCT_RANK, RANK,
 * ZSCORE) rank among `scope` (ascending rows, default every row), their values shown as operands.
 */
export const explainNode = (n: Node, snapshot: Snapshot, row: number, scope?: Int32Array): ExplainNode => {
  const expr = renderNode(n)
  if (n.k === "and" || n.k === "or" || n.k === "not") {
    const children = n.k === "not" ? [n.arg] : n.args
    return {
      expr,
      op: n.k.toUpperCase(),
      result: truthOf(evalScalar(n, snapshot, row, scope)),
      args: children.map((c) => explainNode(c, snapshot, row, scope))
    }
  }
  return {
    expr,
    op: leafOp(n),
    result: truthOf(evalScalar(n, snapshot, row, scope)),
    operands: leafOperands(n).map((o) => ({
      expr: renderNode(o),
      value: decode(o, evalScalar(o, snapshot, row, scope))
    }))
  }
}

/**
 * A sentence saying why the tree's result is what it is, from the first leaf that decides it
 * ("rsi_14 = 42.13 is not < 30"); the root's own text when no leaf stands out.
 */
export const because = (tree: ExplainNode): string => {
  const decisive = (t: ExplainNode): ExplainNode => {
    if (t.args === undefined) return t
    if (t.op === "NOT") return decisive(t.args[0]!)
    // AND false: a false child; OR true: a true child; otherwise the first child with the same result
    const pick = t.args.find((c) => c.result === t.result) ?? t.args[0]
    return pick === undefined ? t : decisive(pick)
  }
  const leaf = decisive(tree)
  const ops = leaf.operands ?? []
  const shown = (o: ExplainOperand) =>
    o.value === null
      ? "NULL"
      : typeof o.value === "string"
        ? renderString(o.value)
        : typeof o.value === "boolean"
          ? o.value
            ? "TRUE"
            : "FALSE"
          : renderNumber(o.value)
  if (ops.length === 2 && ["=", "<>", "<", "<=", ">", ">="].includes(leaf.op)) {
    const [a, b] = ops as [ExplainOperand, ExplainOperand]
    const left = a.expr === shown(a) ? a.expr : `${a.expr} = ${shown(a)}`
    const verb = leaf.result === true ? "is" : leaf.result === false ? "is not" : "is unknown (NULL):"
    return `${left} ${verb} ${leaf.op} ${shown(b)}`
  }
  const state = leaf.result === true ? "holds" : leaf.result === false ? "does not hold" : "is unknown (NULL)"
  const values = ops.filter((o) => o.expr !== shown(o)).map((o) => `${o.expr} = ${shown(o)}`)
  return `${leaf.expr} ${state}${values.length > 0 ? ` (${values.join(", ")})` : ""}`
}
