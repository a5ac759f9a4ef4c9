/** A synthetic market for the benchmarks: every catalog column over the given tickers. */
import { CATALOG } from "../../src/market/catalog.js"
import type { Column } from "../../src/market/snapshot.js"

/**
 * Every catalog column over `tickers`: text columns from `text` (the `ticker` column the symbols),
 * numeric ones from `draw`, flags TRUE 30% of the time, a nullable column NULL 5% of the time — the
 * draws from `rand` in catalog order, row by row (the same columns for the same seed).
 */
export const catalogColumns = (
  tickers: ReadonlyArray<string>,
  rand: () => number,
  text: (name: string, row: number) => string,
  draw: (name: string) => number
): Map<string, Column> => {
  const n = tickers.length
  const columns = new Map<string, Column>()
  for (const c of CATALOG) {
    if (c.type === "string") {
      columns.set(c.name, {
        kind: "string",
        values: tickers.map((t, i) => (c.name === "ticker" ? t : text(c.name, i)))
      })
      continue
    }
    const values = c.type === "numeric" ? new Float64Array(n) : new Uint8Array(n)
    const valid = new Uint8Array(n)
    for (let i = 0; i < n; i++) {
      if (c.nullable && rand() < 0.05) continue
      valid[i] = 1
      values[i] = c.type === "numeric" ? draw(c.name) : rand() < 0.3 ? 1 : 0
    }
    columns.set(
      c.name,
      c.type === "numeric"
        ? { kind: "numeric", values: values as Float64Array, valid }
        : { kind: "boolean", values: values as Uint8Array, valid }
    )
  }
  return columns
}
