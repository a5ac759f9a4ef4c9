/**
 * Random markets for the incremental evaluator's tests: a snapshot of `tickers` with the catalog's
 * usual columns (NULLs, ties and a NULL sector among them), and the next refresh of one, which re-draws
 * a few rows of a few columns and shares the others (as a refresh does).
 */
import type { Column, Snapshot } from "../../src/market/snapshot.js"
import { snapshotOf } from "../query/support.js"

/** A seeded generator of numbers in [0, 1). */
export const seeded = (seed: number) => () => {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}

export const market = (tickers: ReadonlyArray<string>, rand: () => number): Snapshot =>
  snapshotOf(
    tickers.map((t) => ({
      ticker: t,
      name: `${t} Inc`,
      sector: rand() < 0.1 ? null : rand() < 0.5 ? "Tech" : "Energy",
      price: Math.round(rand() * 100),
      volume_today: Math.round(rand() * 10),
      relative_volume: rand() * 3,
      day_change_pct: rand() - 0.5,
      market_cap: rand() < 0.2 ? null : Math.round(rand() * 1e6),
      pe_ratio: rand() < 0.3 ? null : rand() * 40,
      rsi_14: rand() < 0.1 ? null : Math.round(rand() * 100),
      eps: 1,
      golden_cross: rand() < 0.5,
      above_sma_50: rand() < 0.5,
      earnings_this_week: rand() < 0.2 ? null : rand() < 0.5
    })),
    undefined
  )

/** the next refresh: a few rows of a few columns re-drawn (NULLs included), the other columns shared */
export const move = (s: Snapshot, rand: () => number): Snapshot => {
  const columns = new Map<string, Column>(s.columns)
  for (const name of ["price", "rsi_14", "golden_cross", "market_cap", "earnings_this_week"]) {
    if (rand() < 0.4) continue
    const col = s.columns.get(name)!
    if (col.kind === "string") continue
    const values = col.values.slice()
    const valid = col.valid.slice()
    for (let k = 0; k < 3; k++) {
      const r = Math.floor(rand() * s.size)
      valid[r] = rand() < 0.15 ? 0 : 1
      values[r] = valid[r] === 0 ? 0 : col.kind === "numeric" ? Math.round(rand() * 100) : rand() < 0.5 ? 1 : 0
    }
    columns.set(name, { kind: col.kind, values, valid } as Column)
  }
  return { ...s, columns }
}
