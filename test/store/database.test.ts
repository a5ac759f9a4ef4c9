import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { backends } from "../support/backends.js"

for (const backend of backends()) {
  describe(`database (${backend.name})`, () => {
    it.layer(backend.layer(), { timeout: 60_000 })((it) => {
      it.effect("runs the migrations once and records them", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{
            migration_id: number
            name: string
          }>`SELECT migration_id, name FROM vigil_migrations`
          expect(rows.map((r) => r.name)).toContain("accounts")
          const tables = yield* sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables
            WHERE table_name IN ('accounts', 'api_keys') AND table_schema = current_schema() ORDER BY table_name`
          expect(tables.map((t) => t.table_name)).toEqual(["accounts", "api_keys"])
        })
      )

      it.effect("compresses event bodies with lz4 where the server has it, else as PostgreSQL does by default", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const [has] = yield* sql<{ lz4: boolean }>`SELECT coalesce((SELECT 'lz4' = ANY(enumvals) FROM pg_settings
            WHERE name = 'default_toast_compression'), false) AS lz4`
          const columns = yield* sql<{ relname: string; attname: string; attstorage: string; attcompression: string }>`
            SELECT c.relname, a.attname, a.attstorage, a.attcompression::text AS attcompression
            FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
            WHERE c.relnamespace = current_schema()::regnamespace
              AND (c.relname, a.attname) IN (('deliveries', 'payload'), ('notifications', 'payload'), ('webhook_events', 'body'))
            ORDER BY c.relname`
          expect(columns.map((c) => [c.relname, c.attname, c.attstorage, c.attcompression])).toEqual(
            [
              ["deliveries", "payload"],
              ["notifications", "payload"],
              ["webhook_events", "body"]
            ].map(([t, a]) => [t, a, "x", has!.lz4 ? "l" : ""])
          )
          // a fired event's body as large as a fire of 100 rows: stored as set, read back byte for byte
          const body = JSON.stringify({
            data: {
              matches: Array.from({ length: 100 }, (_, i) => ({ ticker: `T${i}`, price: i * 1.5, name: "Some Corp" }))
            }
          })
          expect(body.length).toBeGreaterThan(4_000)
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_bodies', 'pro', 1, 1)`
          yield* sql`INSERT INTO notifications (id, account_id, webhook_id, delivery_id, title, body, payload, created_at)
            VALUES ('ntf_bodies', 'acc_bodies', 'wh_x', 'dlv_bodies', 't', 'b', ${body}, 1)`
          const [row] = yield* sql<{ payload: string; how: string | null }>`SELECT payload,
            pg_column_compression(payload) AS how FROM notifications WHERE id = 'ntf_bodies'`
          expect(row!.payload).toBe(body)
          expect(row!.how).toBe(has!.lz4 ? "lz4" : "pglz")
        })
      )

      it.effect("returns int8 as a JS number on both backends", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const [row] = yield* sql<{ n: number; f: number }>`SELECT 1780000000::int8 AS n, 2.5::float8 AS f`
          expect(row).toEqual({ n: 1780000000, f: 2.5 })
        })
      )

      it.effect("rolls back a failed transaction: nothing half-written", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const attempt = yield* Effect.either(
            sql.withTransaction(
              Effect.gen(function* () {
                yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_tx', 'pro', 1, 1)`
                return yield* Effect.fail("boom" as const)
              })
            )
          )
          expect(Either.isLeft(attempt)).toBe(true)
          const rows = yield* sql`SELECT id FROM accounts WHERE id = 'acc_tx'`
          expect(rows).toHaveLength(0)
        })
      )

      it.effect("runs concurrent statements and transactions without interleaving", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i),
            (i) =>
              sql.withTransaction(
                Effect.gen(function* () {
                  yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES (${`acc_c${i}`}, 'pro', 1, 1)`
                  yield* sql`UPDATE accounts SET updated_at = updated_at + 1 WHERE id = ${`acc_c${i}`}`
                })
              ),
            { concurrency: 8 }
          )
          const [row] = yield* sql<{ n: number; s: number }>`SELECT count(*)::int8 AS n, sum(updated_at)::int8 AS s
            FROM accounts WHERE id LIKE 'acc_c%'`
          expect(row).toEqual({ n: 20, s: 40 })
        })
      )
    })
  })
}
