/**
 * The tickers a predicate is pinned to: when `q` is `ticker = 'X' AND …` (or
 * `ticker IN ('X', 'Y') AND …`, at any depth of a top-level AND chain), no
 * other ticker can match it — what lets a replay walk those tickers only.
 */
import type { Expr } from "./ast.js"

/** The tickers outside of which `e` cannot be TRUE (undefined: not pinned). Symbols as written. */
export const pinnedTickers = (e: Expr): ReadonlyArray<string> | undefined => {
  switch (e._tag) {
    case "And": {
      const l = pinnedTickers(e.left)
      const r = pinnedTickers(e.right)
      if (l === undefined) return r
      if (r === undefined) return l
      return l.filter((t) => r.includes(t))
    }
    case "Compare": {
      if (e.op !== "=") return undefined
      const [col, lit] = e.left._tag === "Ident" ? [e.left, e.right] : [e.right, e.left]
      if (col._tag !== "Ident" || col.name !== "ticker" || lit._tag !== "String") return undefined
      return [lit.value]
    }
    case "In": {
      if (e.negated || e.arg._tag !== "Ident" || e.arg.name !== "ticker") return undefined
      const out: Array<string> = []
      for (const item of e.items) {
        if (item._tag !== "String") return undefined
        out.push(item.value)
      }
      return out
    }
    default:
      return undefined
  }
}
