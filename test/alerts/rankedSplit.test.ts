/**
 * Cross-sectional pairs split into their row-local and ranked conjuncts (`rankedSplit.ts`): over
 * ticks that move a few rows of a few columns (NULLs included), a split pair's matches — its local
 * rows patched or skipped, its ranked conjuncts read at those rows — are exactly those of evaluating
 * its whole `q` over the snapshot, ranked among its scope; and the split is made only where it holds.
 */
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { CADENCES } from "../../src/alerts/cadence.js"
import { ColumnChanges } from "../../src/alerts/incremental.js"
import { type PairCounts, Pairs } from "../../src/alerts/pairs.js"
import type { Snapshot } from "../../src/market/snapshot.js"
import { compileQuery } from "../../src/query/index.js"
import { context } from "../query/support.js"
import { market, move, seeded } from "./movingMarket.js"

const TICKERS = Array.from({ length: 80 }, (_, i) => `T${String(i).padStart(2, "0")}`)

const rand = seeded(7)

/** [q, split or not] */
const QUERIES: ReadonlyArray<readonly [string, boolean]> = [
  ["price > 50 AND pct_rank(rsi_14) > 0.5", true],
  ["rsi_14 < 60 AND RANK(price, sector) <= 3", true],
  ["ticker = 'T03' AND price > 20 AND pct_rank(price) > 0.3", true],
  ["ticker IN ('T01', 'T07', 'T09') AND zscore(price) > 0", true],
  ["(golden_cross OR rsi_14 IS NULL) AND zscore(market_cap, sector) > -0.5 AND price > 10", true],
  ["earnings_this_week IS NOT TRUE AND rank(rsi_14) <= 20 AND pct_rank(price, sector) >= 0.5", true],
  ["NOT (pct_rank(price) < 0.2) AND price > 5", true],
  ["market_cap IS NULL OR pct_rank(price) > 0.5", false],
  ["pct_rank(price) > 0.8", false],
  ["price > 50 AND pct_rank(rsi_14) > 0.5 AND price > T05.price", false],
  ["price > 50 AND rsi_14 < 40", false]
]

const UNIVERSE = ["T01", "T03", "T05", "T07", "T09", "T20", "T33", "T40", "T41", "T60", "T61", "T79"]

describe("a cross-sectional pair split into its local and ranked conjuncts", () => {
  it("matches the whole query's evaluation on every tick, its local rows patched or skipped", () => {
    const ctx = context({ tickers: TICKERS })
    const pairs = new Pairs((s) => (TICKERS.includes(s.toUpperCase()) ? s.toUpperCase() : undefined))
    const joined = QUERIES.flatMap(([q, split]) =>
      [null, "u"].map((universeId) => {
        const pair = pairs.join(pairs.compile(q)!, { accountId: "acc", universeId, q, cadence: "realtime" })
        expect(pair.split !== undefined, q).toBe(split)
        return { q, pair, whole: Either.getOrThrow(compileQuery(q, ctx)) }
      })
    )
    const due = pairs.due(1 << CADENCES.indexOf("realtime"))
    expect(due).toHaveLength(joined.length)
    const rowIds = { ids: Int32Array.from(TICKERS, (_, i) => i), monotonic: true }
    let prev: Snapshot | undefined
    let next = market(TICKERS, rand)
    const scope = Int32Array.from(UNIVERSE, (t) => next.index.get(t)!)
    const total: PairCounts = { skipped: 0, patched: 0, full: 0 }
    for (let tick = 0; tick < 60; tick++) {
      // every tenth tick without the changes (another ticker list): evaluated in full
      const changes = prev === undefined || tick % 10 === 5 ? undefined : ColumnChanges.between(prev, next)
      const counts = pairs.evaluate(
        next,
        due,
        new Map([
          ["", undefined],
          ["acc/u", scope]
        ]),
        rowIds,
        changes
      )
      total.skipped += counts.skipped
      total.patched += counts.patched
      total.full += counts.full
      for (const { q, pair, whole } of joined) {
        const own = pair.scopeKey === "" ? undefined : scope
        expect([...pair.result!], `${q} (${pair.scopeKey || "market"}), tick ${tick}`).toEqual([
          ...whole.evaluate(next, own, own)
        ])
      }
      prev = next
      next = move(next, rand)
    }
    expect(total.skipped).toBeGreaterThan(0)
    expect(total.patched).toBeGreaterThan(0)
  })
})
