/**
 * A cross-sectional pair split into its row-local conjuncts and its ranked ones.
 *
 * `price > 80 AND rsi_14 < 30 AND PCT_RANK(relative_volume) > 0.9` is TRUE on a row exactly where
 * both halves are (AND's TRUE rows are the intersection of its operands'), and only the ranked half
 * depends on other rows. So the pair keeps the rows where its row-local half holds — patched from tick
 * to tick like any row-local pair (`incremental.ts`: only the rows where one of its columns changed) —
 * and reads the ranked half at those rows alone, ranked among the scope (`rank.ts` answers a call
 * read at a few rows without ranking the whole scope). A pair whose local half matches nothing needs
 * no ranking at all: most ticker-scoped ranked subscriptions, most ticks.
 */
import type { Expr } from "../query/ast.js"
import { type CompiledQuery, render } from "../query/index.js"
import { columnIdsOf } from "./incremental.js"

/** The two halves of a cross-sectional pair's `q`. */
export interface RankedSplit {
  /** the row-local conjuncts, ANDed */
  readonly localQ: string
  /** the conjuncts that rank among the scope, ANDed */
  readonly rankedQ: string
  /** the columns each half reads (ids, see `incremental.ts`) */
  readonly localColumnIds: Int32Array
  readonly rankedColumnIds: Int32Array
}

/** the operands of a chain of ANDs, left to right */
const conjunctsOf = (e: Expr, out: Array<Expr> = []): Array<Expr> => {
  if (e._tag === "And") {
    conjunctsOf(e.left, out)
    conjunctsOf(e.right, out)
  } else out.push(e)
  return out
}

const joined = (parts: ReadonlyArray<CompiledQuery>): string => parts.map((c) => `(${c.text})`).join(" AND ")

const columnsOf = (parts: ReadonlyArray<CompiledQuery>): Int32Array =>
  columnIdsOf([...new Set(parts.flatMap((c) => c.columns))].sort())

/**
 * The split of a cross-sectional query that reads no other ticker's row and has at least one
 * row-local conjunct; undefined otherwise (it is evaluated whole). `compile` compiles a conjunct's
 * text as the pair's own `q` is compiled.
 */
export const rankedSplitOf = (
  compiled: CompiledQuery,
  compile: (q: string) => CompiledQuery | undefined
): RankedSplit | undefined => {
  if (!compiled.crossSectional || compiled.tickers.length > 0) return undefined
  const local: Array<CompiledQuery> = []
  const ranked: Array<CompiledQuery> = []
  for (const e of conjunctsOf(compiled.ast)) {
    const c = compile(render(e))
    if (c === undefined) return undefined
    ;(c.crossSectional ? ranked : local).push(c)
  }
  if (local.length === 0 || ranked.length === 0) return undefined
  return {
    localQ: joined(local),
    rankedQ: joined(ranked),
    localColumnIds: columnsOf(local),
    rankedColumnIds: columnsOf(ranked)
  }
}
