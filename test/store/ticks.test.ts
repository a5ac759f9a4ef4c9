/**
 * Refresh ticks in the store (issue 15, item 3): issued once per `as_of` whoever runs the
 * singleton, answered per slice, the imports logged, the cadences due remembered, old rows pruned.
 */

import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { dueAt } from "../../src/alerts/tickDriver.js"
import type { ParsedBar } from "../../src/market/sources/csvBars.js"
import { EvaluatorState } from "../../src/store/evaluatorState.js"
import { ImportedBars } from "../../src/store/importedBars.js"
import { TICK_RETENTION_MS, Ticks } from "../../src/store/ticks.js"
import type { Cadence } from "../../src/store/webhooks.js"
import { backends } from "../support/backends.js"

const bar = (ticker: string, date: string): ParsedBar => ({
  ticker,
  date,
  open: 1,
  high: 2,
  low: 0.5,
  close: 1.5,
  volume: 10
})

const DAY = 86_400_000

describe("the cadences due on a tick", () => {
  it("realtime always; hourly at the first tick past the top of an hour; a cadence never due waits", () => {
    const last = new Map<Cadence, number>()
    // as the driver does: a cadence due on an issued tick was last due then
    const tick = (at: number) => {
      const due = dueAt(last, at)
      for (const c of due) last.set(c, at)
      return due
    }
    // Monday 2026-11-23, 09:10 New York
    const t0 = Date.UTC(2026, 10, 23, 14, 10)
    expect(tick(t0)).toEqual(["realtime"])
    expect(tick(t0 + 10 * 60_000)).toEqual(["realtime"])
    expect(tick(Date.UTC(2026, 10, 23, 14, 30, 1))).toEqual(["realtime", "exchange_open"])
    expect(tick(Date.UTC(2026, 10, 23, 14, 59))).toEqual(["realtime"])
    expect(tick(Date.UTC(2026, 10, 23, 15, 0, 2))).toEqual(["realtime", "hourly"])
    expect(tick(Date.UTC(2026, 10, 23, 15, 1))).toEqual(["realtime"])
  })
})

for (const backend of backends()) {
  describe(`refresh ticks (${backend.name})`, () => {
    it.layer(
      // fresh: the services of the other backend's run are not reused
      Layer.fresh(Layer.mergeAll(Ticks.Default, ImportedBars.Default, EvaluatorState.Default)).pipe(
        Layer.provideMerge(backend.layer())
      ),
      { timeout: 60_000 }
    )((it) => {
      it.effect("one tick per as_of, answered per slice, imports logged, old rows pruned", () =>
        Effect.gen(function* () {
          const ticks = yield* Ticks
          const sql = yield* SqlClient.SqlClient
          const t0 = Date.UTC(2026, 10, 23, 14)
          expect(yield* ticks.latest).toBeUndefined()
          const first = yield* ticks.issue({ asOf: t0, due: ["realtime", "hourly"], imports: 0, request: 0 }, t0)
          expect(first).toEqual({ seq: 1, asOf: t0, due: ["realtime", "hourly"], imports: 0, request: 0 })
          // a singleton that moved issues the same or an older as_of: nothing
          expect(yield* ticks.issue({ asOf: t0, due: ["realtime"], imports: 0, request: 0 }, t0)).toBeUndefined()
          expect(yield* ticks.issue({ asOf: t0 - 1, due: ["realtime"], imports: 0, request: 0 }, t0)).toBeUndefined()

          // a refresh asked for is answered by the first tick issued with its request
          const request = yield* ticks.requestRefresh(t0 + 500)
          expect(yield* ticks.refreshRequested).toBe(request)
          expect(yield* ticks.answering(request)).toBeUndefined()
          const second = yield* ticks.issue({ asOf: t0 + 1_000, due: ["realtime"], imports: 0, request }, t0)
          expect((yield* ticks.answering(request))?.seq).toBe(2)
          expect((yield* ticks.at(t0 + 1_000))?.seq).toBe(2)
          expect(yield* ticks.lastDue).toEqual(
            new Map<Cadence, number>([
              ["realtime", t0 + 1_000],
              ["hourly", t0]
            ])
          )

          // slices answer with their commit; an older tick never overwrites a newer one
          const store = yield* EvaluatorState
          yield* store.commitTick(t0, [], [], [], undefined, {
            seq: 2,
            asOf: t0 + 1_000,
            slices: [0, 1, 2],
            record: true
          })
          yield* store.commitTick(t0, [], [], [], undefined, { seq: 1, asOf: t0, slices: [2, 3], record: true })
          expect(yield* ticks.slicesBehind(second!.seq, 5)).toEqual([3, 4])
          expect(yield* ticks.slicesBehind(1, 5)).toEqual([4])
          expect((yield* ticks.sliceTicks).get(2)).toEqual({ seq: 2, asOf: t0 + 1_000 })
          // a slice that commits tick 5 after tick 2 missed two
          expect(yield* ticks.missed).toBe(0)
          yield* store.commitTick(t0, [], [], [], undefined, { seq: 5, asOf: t0 + 4_000, slices: [0], record: true })
          expect(yield* ticks.missed).toBe(2)

          // the fence: a state is not written for a tick its slice already committed (another runner)
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_t', 'pro', 1, 1)`
          yield* sql`INSERT INTO webhooks (id, account_id, name, q, universe_id, cadence, channel, fields, status,
              origin_type, origin_condition, created_at, updated_at, armed_at)
            VALUES ('wh_fence', 'acc_t', 'x', 'price > 1', NULL, 'realtime', 'in_app', ARRAY['rsi_14'], 'active',
              'query', 'price > 1', 1, 1, 1)`
          yield* sql`INSERT INTO webhook_states (webhook_id, armed_at) VALUES ('wh_fence', 1)`
          const [{ slice }] = yield* sql<{ slice: number }>`SELECT slice FROM webhooks WHERE id = 'wh_fence'`
          const change = (stateSeq: number) => ({
            id: "wh_fence",
            armedAt: 1,
            stateSeq,
            write: { _tag: "Full" as const, matchSet: "AAA" },
            fired: false,
            eventSeq: 0,
            memory: ""
          })
          yield* store.commitTick(t0, [], [], [], undefined, { seq: 7, asOf: t0, slices: [slice!], record: true })
          const fenced = yield* store.commitTick(t0, [], [change(0)], [], undefined, {
            seq: 7,
            asOf: t0,
            slices: [slice!],
            record: false
          })
          expect([...fenced.written]).toEqual([])
          const unfenced = yield* store.commitTick(t0, [], [change(0)], [], undefined, {
            seq: 8,
            asOf: t0,
            slices: [slice!],
            record: true
          })
          expect([...unfenced.written]).toEqual(["wh_fence"])
          // nor for a webhook disabled, or armed again, since the change was made (each checked by its id)
          const tick = (seq: number) => ({ seq, asOf: t0, slices: [slice!], record: true })
          yield* sql`UPDATE webhooks SET status = 'disabled' WHERE id = 'wh_fence'`
          expect([...(yield* store.commitTick(t0, [], [change(1)], [], undefined, tick(9))).written]).toEqual([])
          yield* sql`UPDATE webhooks SET status = 'active', armed_at = 2 WHERE id = 'wh_fence'`
          expect([...(yield* store.commitTick(t0, [], [change(1)], [], undefined, tick(10))).written]).toEqual([])
          yield* sql`UPDATE webhooks SET armed_at = 1 WHERE id = 'wh_fence'`
          expect([...(yield* store.commitTick(t0, [], [change(1)], [], undefined, tick(11))).written]).toEqual([
            "wh_fence"
          ])

          // imports are logged with their tickers
          const bars = yield* ImportedBars
          const before = yield* ticks.importsVersion
          yield* bars.replace(new Map([["AAPL", [bar("AAPL", "2024-01-02")]]]))
          yield* bars.replace(new Map([["MSFT", [bar("MSFT", "2024-01-02")]]]))
          const after = yield* ticks.importsVersion
          expect(after).toBe(before + 2)
          expect([...(yield* ticks.importedSince(before, after)).bars].sort()).toEqual(["AAPL", "MSFT"])
          expect([...(yield* ticks.importedSince(before + 1, after)).bars]).toEqual(["MSFT"])
          expect((yield* bars.load(["MSFT"])).get("MSFT")?.map((b) => b.date)).toEqual(["2024-01-02"])
          // retention: old ticks go, the latest stays even when old
          const pruned = yield* ticks.prune(t0 + TICK_RETENTION_MS + 500)
          expect(pruned.ticks).toBe(1)
          expect((yield* ticks.latest)?.seq).toBe(2)
          yield* ticks.prune(t0 + TICK_RETENTION_MS + 10 * DAY)
          expect((yield* ticks.latest)?.seq).toBe(2)
          const next = yield* ticks.issue({ asOf: t0 + 10 * DAY, due: ["realtime"], imports: after, request }, t0)
          expect(next?.seq).toBe(3)
          const rows = yield* sql<{ seq: number | string }>`SELECT seq FROM ticks ORDER BY seq`
          expect(rows.map((r) => Number(r.seq))).toEqual([2, 3])
        })
      )
    })
  })
}
