/** Compiling a `q` over an in-memory market, for tests and benchmarks of the history readers. */
import { Either } from "effect"
import { CATALOG } from "../../src/market/catalog.js"
import type { MarketData } from "../../src/market/engine/MarketData.js"
import { type CompiledQuery, columnsOf, compileQuery } from "../../src/query/index.js"

/** A compiler of `q` texts over `md`'s columns and tickers (cross-ticker references by symbol); throws on errors. */
export const compileOn =
  (md: Pick<MarketData, "index">) =>
  (q: string): CompiledQuery => {
    const c = compileQuery(q, {
      columns: columnsOf(CATALOG),
      tickers: (s) => (md.index.has(s.toUpperCase()) ? s.toUpperCase() : undefined),
      mode: "query"
    })
    if (Either.isLeft(c)) throw new Error(c.left.message)
    return c.right
  }
