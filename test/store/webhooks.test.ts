/**
 * Webhook creates (issue 13, item 7): grouped into shared transactions, the plan cap stays exact
 * when many race at it (also through two store instances, as two service instances would), and a
 * create reads no more of the account's webhooks as they accumulate.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { type CreateOutcome, Webhooks } from "../../src/store/webhooks.js"
import { backends } from "../support/backends.js"
import { inAppConfig } from "../support/webhooks.js"

const config = (name: string) => inAppConfig(name, "price > 5", ["rsi_14", "pe_ratio"])

const account = (id: string, plan = "hobby") =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES (${id}, ${plan}, 1, 1)`
  )

const activeCount = (accountId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{
        n: number | string
      }>`SELECT count(*) AS n FROM webhooks WHERE account_id = ${accountId} AND status = 'active'`,
      (rows) => Number(rows[0]!.n)
    )
  )

const tally = (outcomes: ReadonlyArray<CreateOutcome>) => ({
  created: outcomes.filter((o) => o._tag === "Created").length,
  refused: outcomes.filter((o) => o._tag === "LimitReached").length
})

/** `n` webhooks of `accountId` (`status`), inserted by SQL as a bench would, with their states */
const bulk = (accountId: string, prefix: string, n: number, status: "active" | "disabled") =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      yield* sql`INSERT INTO webhooks (id, account_id, name, q, cadence, channel, fields, status, origin_type,
          created_at, updated_at, armed_at)
        SELECT ${prefix} || g, ${accountId}, 'bulk', 'price > 1', 'realtime', 'in_app', '{}', ${status}, 'query', 1, 1, 1
        FROM generate_series(1, ${n}) AS g`
      yield* sql`INSERT INTO webhook_states (webhook_id, armed_at)
        SELECT ${prefix} || g, 1 FROM generate_series(1, ${n}) AS g`
    })
  )

for (const backend of backends()) {
  describe(`webhook creates (${backend.name})`, () => {
    it.effect(
      "64 concurrent creates at a cap of 10 admit exactly 10, in one account or several, uncapped ones all",
      () =>
        Effect.gen(function* () {
          const store = yield* Webhooks
          yield* account("acc_race")
          yield* account("acc_free", "enterprise")
          yield* account("acc_pro", "pro")
          yield* store.create("acc_pro", "wh_pro_0", config("first"), 3)
          const outcomes = yield* Effect.all(
            Array.from({ length: 64 }, (_, i) =>
              i % 4 === 0
                ? store.create("acc_free", `wh_free_${i}`, config(`free ${i}`), null)
                : i % 4 === 1
                  ? store.create("acc_pro", `wh_pro_${i}`, config(`pro ${i}`), 3)
                  : store.create("acc_race", `wh_race_${i}`, config(`race ${i}`), 10)
            ),
            { concurrency: "unbounded" }
          )
          const of = (k: number) => outcomes.filter((_, i) => i % 4 === k || (k === 2 && i % 4 === 3))
          expect(tally(of(2))).toEqual({ created: 10, refused: 22 })
          expect(tally(of(1))).toEqual({ created: 2, refused: 14 })
          expect(tally(of(0))).toEqual({ created: 16, refused: 0 })
          expect([
            yield* activeCount("acc_race"),
            yield* activeCount("acc_pro"),
            yield* activeCount("acc_free")
          ]).toEqual([10, 3, 16])
          // a refusal says how many are active
          expect(of(2).find((o) => o._tag === "LimitReached")).toEqual({ _tag: "LimitReached", active: 10 })
          // every created record is whole, as `get` reads it, and creation order follows the queue
          for (const o of outcomes) {
            if (o._tag !== "Created") continue
            expect(yield* store.get(o.record.accountId, o.record.id)).toEqual(o.record)
            expect(o.record).toMatchObject({ status: "active", fields: ["rsi_14", "pe_ratio"], lastMatchSet: [] })
          }
          const race = (yield* store.list("acc_race", 100)).map((w) => w.id)
          const admitted = outcomes.flatMap((o) =>
            o._tag === "Created" && o.record.accountId === "acc_race" ? [o.record.id] : []
          )
          expect(race).toEqual([...admitted].reverse())
          // disabling one frees one place, and only one
          yield* store.disable("acc_race", race[0]!, "user", null)
          const again = yield* Effect.all(
            Array.from({ length: 20 }, (_, i) => store.create("acc_race", `wh_again_${i}`, config("again"), 10)),
            { concurrency: "unbounded" }
          )
          expect(tally(again)).toEqual({ created: 1, refused: 19 })
        }).pipe(Effect.provide(Layer.fresh(Webhooks.Default).pipe(Layer.provideMerge(backend.layer())))),
      60_000
    )

    it.effect(
      "two store instances (two service instances) racing at the cap still admit exactly the cap",
      () =>
        Effect.gen(function* () {
          const sqlLayer = Layer.succeedContext(yield* Effect.context<SqlClient.SqlClient>())
          // each with its own committer, alive for the test's scope
          const instance = Effect.map(Layer.build(Layer.fresh(Webhooks.Default).pipe(Layer.provide(sqlLayer))), (c) =>
            Context.get(c, Webhooks)
          )
          const one = yield* instance
          const two = yield* instance
          yield* account("acc_two")
          const outcomes = yield* Effect.all(
            Array.from({ length: 64 }, (_, i) =>
              (i % 2 === 0 ? one : two).create("acc_two", `wh_two_${i}`, config(`two ${i}`), 10)
            ),
            { concurrency: "unbounded" }
          )
          expect(tally(outcomes)).toEqual({ created: 10, refused: 54 })
          expect(yield* activeCount("acc_two")).toBe(10)
        }).pipe(Effect.scoped, Effect.provide(backend.layer())),
      60_000
    )

    it.effect(
      "a create that fails alone (its account is gone) does not fail the creates grouped with it",
      () =>
        Effect.gen(function* () {
          const store = yield* Webhooks
          yield* account("acc_ok")
          const outcomes = yield* Effect.all(
            Array.from({ length: 16 }, (_, i) =>
              Effect.either(
                store.create(i === 5 ? "acc_missing" : "acc_ok", `wh_mixed_${i}`, config(`mixed ${i}`), null)
              )
            ),
            { concurrency: "unbounded" }
          )
          expect(outcomes.filter((o) => o._tag === "Left")).toHaveLength(1)
          expect(outcomes[5]!._tag).toBe("Left")
          expect(yield* activeCount("acc_ok")).toBe(15)
        }).pipe(Effect.provide(Layer.fresh(Webhooks.Default).pipe(Layer.provideMerge(backend.layer())))),
      60_000
    )

    // one backend process on PGlite: its statistics count exactly the rows this test's statements read
    if (backend.name === "pglite") {
      it.effect(
        "a create reads no more of the account's webhooks with 10,000 of them than with none",
        () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const store = yield* Webhooks
            /** rows of `webhooks` read so far (sequential scans and index fetches), statistics flushed first */
            const rowsRead = Effect.gen(function* () {
              yield* sql`SELECT pg_stat_force_next_flush()`
              yield* sql`SELECT 1`
              yield* sql`SELECT pg_stat_clear_snapshot()`
              const rows = yield* sql<{
                n: number | string
              }>`SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)
                AS n FROM pg_stat_user_tables WHERE relname = 'webhooks'`
              return Number(rows[0]!.n)
            })
            const cost = (accountId: string, id: string, cap: number | null) =>
              Effect.gen(function* () {
                const before = yield* rowsRead
                const outcome = yield* store.create(accountId, id, config(id), cap)
                expect(outcome._tag).toBe("Created")
                return (yield* rowsRead) - before
              })
            yield* account("acc_big", "enterprise")
            yield* account("acc_capped", "pro")
            const emptyUncapped = yield* cost("acc_big", "wh_big_0", null)
            const emptyCapped = yield* cost("acc_capped", "wh_capped_0", 100)
            // uncapped: 10,000 active; capped at 100: 90 active and 10,000 disabled (a downgrade's leftovers)
            yield* bulk("acc_big", "wh_big_bulk_", 10_000, "active")
            yield* bulk("acc_capped", "wh_capped_on_", 90, "active")
            yield* bulk("acc_capped", "wh_capped_off_", 10_000, "disabled")
            const fullUncapped = yield* cost("acc_big", "wh_big_1", null)
            const fullCapped = yield* cost("acc_capped", "wh_capped_1", 100)
            // an uncapped account counts nothing; a capped one reads its active webhooks (≤ its cap) only
            expect(fullUncapped).toBeLessThanOrEqual(emptyUncapped + 5)
            expect(fullCapped).toBeLessThanOrEqual(emptyCapped + 100)
            expect(yield* activeCount("acc_capped")).toBe(92)
          }).pipe(Effect.provide(Layer.fresh(Webhooks.Default).pipe(Layer.provideMerge(backend.layer())))),
        120_000
      )
    }
  })

  describe(`webhook patches (${backend.name})`, () => {
    it.layer(Layer.fresh(Webhooks.Default).pipe(Layer.provideMerge(backend.layer())), { timeout: 60_000 })((it) => {
      it.effect("concurrent patches of different fields both hold: none writes back what it read", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const store = yield* Webhooks
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_w', 'pro', 1, 1)`
          const created = yield* store.create("acc_w", "wh_p", inAppConfig("n0", "price > 10", ["f0"]), null)
          expect(created._tag).toBe("Created")
          for (let i = 1; i <= 30; i++) {
            yield* Effect.all(
              [
                store.update("acc_w", "wh_p", { name: `n${i}` }),
                store.update("acc_w", "wh_p", { fields: [`f${i}`] }),
                store.update("acc_w", "wh_p", { cadence: i % 2 === 0 ? "realtime" : "hourly" })
              ],
              { concurrency: "unbounded" }
            )
            const after = yield* store.get("acc_w", "wh_p")
            expect([after?.name, after?.fields, after?.cadence]).toEqual([
              `n${i}`,
              [`f${i}`],
              i % 2 === 0 ? "realtime" : "hourly"
            ])
          }
          expect(yield* store.update("acc_w", "wh_missing", { name: "x" })).toBeUndefined()
        })
      )
    })
  })
}
