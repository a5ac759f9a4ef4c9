/**
 * The embedded database's client (src/store/PgliteClient.ts): PGlite on a thread of its own, its
 * statements posted without waiting for each other, a transaction's statements alone while it runs.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber } from "effect"
import { pgliteLayer } from "../../src/store/Database.js"
import { PGLITE_SHARED_BUFFERS } from "../../src/store/pgliteProtocol.js"
import { runWorker } from "../../src/workerThread.js"

const TABLE = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`CREATE TABLE IF NOT EXISTS items (id integer PRIMARY KEY, note text NOT NULL)`
)

/**
 * Forks a transaction that inserts row `id` and then runs `rest` (inside it); answers the fiber
 * once the row is inserted (uncommitted).
 */
const insertingTransaction = <A, E>(id: number, rest: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* TABLE
    const inserted = yield* Deferred.make<void>()
    const fiber = yield* sql
      .withTransaction(
        Effect.zipRight(
          sql`INSERT INTO items (id, note) VALUES (${id}, 'uncommitted')`.pipe(
            Effect.zipRight(Deferred.succeed(inserted, undefined))
          ),
          rest
        )
      )
      .pipe(Effect.either, Effect.fork)
    yield* Deferred.await(inserted)
    return fiber
  })

describe("the embedded database client", () => {
  it.layer(pgliteLayer(undefined), { timeout: 60_000 })((it) => {
    // PGlite's default (128MB) was a tenth of the service's memory at ready (docs/benchmarks.md)
    it.effect("opens PostgreSQL with a buffer cache of PGLITE_SHARED_BUFFERS", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ shared_buffers: string }>`SHOW shared_buffers`
        expect(rows).toEqual([{ shared_buffers: PGLITE_SHARED_BUFFERS }])
      })
    )

    it.effect("keeps the statements of other fibers out of a running transaction", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const transaction = yield* insertingTransaction(
          1,
          // a real wait (no clock involved): the reader below is posted meanwhile, and must not run inside this transaction
          Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300))).pipe(
            Effect.zipRight(Effect.fail("rolled back" as const))
          )
        )
        const seen = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM items`
        // had it run inside the transaction it would have seen the uncommitted row
        expect(seen).toEqual([{ n: 0 }])
        expect(Either.isLeft(yield* Fiber.join(transaction))).toBe(true)
      })
    )

    it.effect("lets the others go on when a transaction is interrupted", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const stuck = yield* insertingTransaction(2, Effect.never)
        const reader = yield* Effect.fork(sql<{ n: number }>`SELECT count(*)::int AS n FROM items WHERE id = 2`)
        yield* Fiber.interrupt(stuck)
        // rolled back, then the reader ran
        expect(yield* Fiber.join(reader)).toEqual([{ n: 0 }])
      })
    )

    it.effect("runs many statements in flight at once, in order, each answered", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* TABLE
        yield* Effect.forEach(
          Array.from({ length: 200 }, (_, i) => 100 + i),
          (id) => sql`INSERT INTO items (id, note) VALUES (${id}, ${`note ${id}`})`,
          { concurrency: "unbounded", discard: true }
        )
        const rows = yield* Effect.forEach(
          Array.from({ length: 200 }, (_, i) => 100 + i),
          (id) => sql<{ note: string }>`SELECT note FROM items WHERE id = ${id}`,
          { concurrency: "unbounded" }
        )
        expect(rows.map((r) => r[0]?.note)).toEqual(Array.from({ length: 200 }, (_, i) => `note ${100 + i}`))
      })
    )

    it.effect("fails a statement with PostgreSQL's report (code, constraint) and goes on", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* TABLE
        yield* sql`INSERT INTO items (id, note) VALUES (3, 'first')`
        const duplicate = yield* Effect.flip(sql`INSERT INTO items (id, note) VALUES (3, 'again')`)
        expect(duplicate._tag).toBe("SqlError")
        expect(duplicate.cause).toMatchObject({ code: "23505", constraint: "items_pkey" })
        expect(String((duplicate.cause as Error).message)).toMatch(/duplicate key/)
        expect(yield* sql`SELECT note FROM items WHERE id = 3`).toEqual([{ note: "first" }])
      })
    )

    it.effect("returns PGlite's values across the thread: numbers, text, arrays, JSON, bytes, null", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql`SELECT 1.5::float8 AS f, 'ü'::text AS t, ARRAY[1, 2]::int[] AS a,
          '{"k": [true]}'::jsonb AS j, '\\x0102'::bytea AS b, NULL::text AS n`
        expect(row).toEqual({ f: 1.5, t: "ü", a: [1, 2], j: { k: [true] }, b: new Uint8Array([1, 2]), n: null })
        const values = yield* sql`SELECT 1 AS x, 'y' AS y`.values
        expect(values).toEqual([[1, "y"]])
      })
    )
  })
})

describe("the embedded database's data directory", () => {
  const createModule = new URL("../../src/store/pgliteCreate.ts", import.meta.url)
  const pgliteWasm = join(dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite")), "pglite.wasm")

  it.live(
    "holds a whole cluster or none: a creation cut short (the process killed) is made again on the next start",
    () =>
      Effect.gen(function* () {
        const dir = mkdtempSync(join(tmpdir(), "vigil-pglite-"))
        const pgdata = join(dir, "pgdata")
        mkdirSync(pgdata)
        // PGlite's initdb works in memory, then writes the cluster's files to disk: it is stopped
        // as its version file lands (the mark of a cluster), as a killed process would stop it
        const landed = Effect.promise(async () => {
          while (!existsSync(join(pgdata, "PG_VERSION")) && !existsSync(join(`${pgdata}.creating`, "PG_VERSION")))
            await new Promise((resolve) => setTimeout(resolve, 1))
        })
        const creation = runWorker("create", createModule, { dataDir: pgdata, wasm: pgliteWasm })
        const first = yield* Effect.raceFirst(
          Effect.as(creation, "created" as const),
          Effect.as(landed, "cut" as const)
        )
        expect(first).toBe("cut")
        expect(existsSync(join(pgdata, "PG_VERSION"))).toBe(false)
        // the next start creates it (again) and uses it
        const rows = yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* TABLE
          yield* sql`INSERT INTO items (id, note) VALUES (1, 'kept')`
          return yield* sql<{ note: string }>`SELECT note FROM items`
        }).pipe(Effect.provide(pgliteLayer(dir)))
        expect(rows).toEqual([{ note: "kept" }])
        expect(existsSync(`${pgdata}.creating`)).toBe(false)
        // and it is there on the start after
        const again = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ note: string }>`SELECT note FROM items`
        ).pipe(Effect.provide(pgliteLayer(dir)))
        expect(again).toEqual([{ note: "kept" }])
        rmSync(dir, { recursive: true, force: true })
      }),
    120_000
  )
})
