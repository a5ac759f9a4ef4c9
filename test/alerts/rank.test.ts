/**
 * Webhooks on cross-sectional conditions (PCT_RANK, RANK, ZSCORE) against the real store: they rank
 * among their universe, and a change on another ticker's row (which moves every rank) reaches a
 * ticker whose own row did not change — incremental evaluation never patches a ranked predicate.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Alerts } from "../../src/alerts/Alerts.js"
import { Universes } from "../../src/store/universes.js"
import { backends } from "../support/backends.js"
import { layerFor, queued, snapshot, webhook } from "./support.js"

const fired = (id: string) => Effect.map(queued(id), (ds) => ds.map((d) => d.matches.map((m) => m.ticker).sort()))

for (const backend of backends()) {
  describe(`ranked webhooks (${backend.name})`, () => {
    it.scoped(
      "fire on a rank among their universe, also when only another ticker's row changed",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'pro', 1, 1)`
          yield* (yield* Universes).create({
            accountId: "acc_a",
            id: "pair",
            name: "Pair",
            description: null,
            tickers: ["AAA", "BBB"]
          })
          yield* TestClock.setTime(Date.UTC(2026, 10, 23, 12))
          const alerts = yield* Alerts
          yield* webhook("wh_top", "rank(price) = 1")
          yield* webhook("wh_pair", "RANK(price) = 1", "realtime", "pair")
          yield* webhook("wh_aaa", "ticker = 'AAA' AND pct_rank(price) = 1")
          yield* webhook("wh_z", "zscore(price) > 1.5")

          // market: CCC highest; among the pair: AAA
          yield* alerts.evaluate(snapshot(1_000, { AAA: 5, BBB: 3, CCC: 10 }))
          expect(yield* fired("wh_top")).toEqual([["CCC"]])
          expect(yield* fired("wh_pair")).toEqual([["AAA"]])
          expect(yield* fired("wh_aaa")).toEqual([])
          // prices 5, 3, 10, 1: mean 4.75, deviation ≈ 3.27, CCC's z ≈ 1.61
          expect(yield* fired("wh_z")).toEqual([["CCC"]])

          // only CCC's row changes: AAA, whose row did not, becomes the highest of the market
          const r2 = yield* alerts.evaluate(snapshot(2_000, { AAA: 5, BBB: 3, CCC: 2 }))
          expect(r2).toMatchObject({ ok: true })
          expect(yield* fired("wh_top")).toEqual([["CCC"], ["AAA"]])
          expect(yield* fired("wh_aaa")).toEqual([["AAA"]])
          // the pair did not move: nothing
          expect(yield* fired("wh_pair")).toEqual([["AAA"]])
          // prices 5, 3, 2, 1: mean 2.75, deviation ≈ 1.48, AAA's z ≈ 1.52 (its own row unchanged)
          expect(yield* fired("wh_z")).toEqual([["CCC"], ["AAA"]])

          // BBB overtakes AAA: within the pair too
          yield* alerts.evaluate(snapshot(3_000, { AAA: 5, BBB: 6, CCC: 2 }))
          expect(yield* fired("wh_top")).toEqual([["CCC"], ["AAA"], ["BBB"]])
          expect(yield* fired("wh_pair")).toEqual([["AAA"], ["BBB"]])

          // nothing changed: nothing fires, and the ranked pairs were skipped
          const r4 = yield* alerts.evaluate(snapshot(4_000, { AAA: 5, BBB: 6, CCC: 2 }))
          expect(r4).toMatchObject({ ok: true, fires: 0 })
          expect(yield* fired("wh_top")).toHaveLength(3)
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      60_000
    )
  })
}
