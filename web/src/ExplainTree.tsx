/**
 * An explained expression drawn readably: each AND/OR/NOT a group holding its parts, each leaf the
 * comparison with its operands' values, every node marked as it came out (holds, fails, unknown).
 */
import type { Cell } from "./api"
import type { ExplainNode } from "./subscriptionsApi"

const verdict = (result: boolean | null) => (result === true ? "holds" : result === false ? "fails" : "unknown")
const mark = (result: boolean | null) => (result === true ? "✓" : result === false ? "✗" : "?")

const value = (v: Cell) =>
  v === null
    ? "null"
    : typeof v === "number"
      ? Number.isInteger(v)
        ? v.toLocaleString()
        : v.toLocaleString(undefined, { maximumFractionDigits: 4 })
      : String(v)

/** an operand that is its own value (`30`, `'MSFT'`): nothing to show beside the expression */
const isLiteral = (expr: string, v: Cell) =>
  expr === String(v) || (typeof v === "string" && expr === `'${v.replaceAll("'", "''")}'`)

const Node = ({ node }: { readonly node: ExplainNode }) => (
  <li className={`explain-node ${verdict(node.result)}`}>
    <span className="verdict" aria-hidden="true" title={verdict(node.result)}>
      {mark(node.result)}
    </span>
    <span className="sr-only">{verdict(node.result)}: </span>
    {node.args === undefined ? (
      <>
        <code>{node.expr}</code>
        {node.operands === undefined || node.operands.length === 0 ? null : (
          <span className="operands">
            {" "}
            —{" "}
            {node.operands
              .filter((o) => !isLiteral(o.expr, o.value))
              .map((o) => `${o.expr} = ${value(o.value)}`)
              .join(", ")}
          </span>
        )}
      </>
    ) : (
      <>
        <strong>{node.op}</strong>
        <ul>
          {node.args.map((child, i) => (
            // the children are positional: an expression's parts in order
            // biome-ignore lint/suspicious/noArrayIndexKey: positional parts
            <Node key={i} node={child} />
          ))}
        </ul>
      </>
    )}
  </li>
)

export const ExplainTreeView = ({ tree, label }: { readonly tree: ExplainNode; readonly label: string }) => (
  <ul className="explain" aria-label={label}>
    <Node node={tree} />
  </ul>
)
