/**
 * Random subscription conditions over the catalog, shared by the q language
 * and webhook benchmarks so both measure the same predicate mix: a single
 * comparison, a flag, two comparisons, a ratio with a flag, a range with a
 * negated flag (one fifth each).
 */
import { CATALOG } from "../../src/market/catalog.js"

export const NUMERIC_COLUMNS = CATALOG.filter((c) => c.type === "numeric").map((c) => c.name)
export const FLAG_COLUMNS = CATALOG.filter((c) => c.type === "boolean").map((c) => c.name)

const OPS = [">", ">=", "<", "<="]

/** A condition generator drawing from `rand` (uniform in [0, 1)). */
export const conditionMaker = (rand: () => number) => {
  const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(rand() * xs.length)]!
  const num = () => (rand() * 100).toFixed(2)
  const numeric = () => pick(NUMERIC_COLUMNS)
  const flag = () => pick(FLAG_COLUMNS)
  return (): string => {
    switch (Math.floor(rand() * 5)) {
      case 0:
        return `${numeric()} ${pick(OPS)} ${num()}`
      case 1:
        return `${flag()} = true`
      case 2:
        return `${numeric()} ${pick(OPS)} ${num()} AND ${numeric()} ${pick(OPS)} ${num()}`
      case 3:
        return `${numeric()} / NULLIF(${numeric()}, 0) > ${num()} OR ${flag()}`
      default:
        return `${numeric()} BETWEEN ${num()} AND ${(100 + rand() * 100).toFixed(2)} AND ${flag()} IS NOT TRUE`
    }
  }
}
