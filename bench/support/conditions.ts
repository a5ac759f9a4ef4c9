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

/**
 * A whole-market alert drawing from `rand`: a tail condition (2–10% of the market) and a broad one
 * from `condition` (a `conditionMaker`).
 */
export const wholeMarketMaker = (rand: () => number, condition: () => string) => {
  const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(rand() * xs.length)]!
  return (): string => {
    const tail =
      rand() < 0.5
        ? `${pick(NUMERIC_COLUMNS)} > ${(80 + rand() * 8).toFixed(2)}`
        : `${pick(NUMERIC_COLUMNS)} < ${(-8 + rand() * 8).toFixed(2)}`
    return `${tail} AND (${condition()})`
  }
}
