/**
 * The storage backends every storage test runs against: the embedded PGlite
 * always, and real PostgreSQL whenever DATABASE_URL is set. A set but
 * unreachable DATABASE_URL fails the tests (the layer fails to build); it is
 * never skipped. Each PostgreSQL run gets a schema of its own, dropped after.
 */

import { randomBytes } from "node:crypto"
import { rmSync } from "node:fs"
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer, Option, Redacted } from "effect"
import pg from "pg"
import { type AuthChanges, localAuthChanges, postgresAuthChanges } from "../../src/accounts/authChanges.js"
import { pgliteLayer, postgresLayer } from "../../src/store/Database.js"
import { runMigrations } from "../../src/store/migrate.js"
import { newDataDir } from "./server.js"

export interface Backend {
  readonly name: "pglite" | "postgres"
  /** a fresh, migrated database */
  readonly layer: () => Layer.Layer<SqlClient.SqlClient, SqlError>
  /** a fresh database with no migrations run (for tests of a migration over existing rows) */
  readonly bare: () => Layer.Layer<SqlClient.SqlClient, SqlError>
  /** how key and account changes reach the instances of this backend (as AppLive chooses) */
  readonly authChanges: Layer.Layer<AuthChanges, never, SqlClient.SqlClient>
}

/** The database URL with `schema` as its search_path (what the service's DATABASE_URL takes). */
export const withSchema = (url: string, schema: string) => {
  const u = new URL(url)
  u.searchParams.set("options", `-c search_path=${schema}`)
  return u.toString()
}

/** A fresh schema of its own (dropped when the scope closes): the URL of the database with it as search_path. */
export const isolatedSchemaUrl = (url: string) =>
  Effect.gen(function* () {
    const schema = `t_${randomBytes(6).toString("hex")}`
    const admin = new pg.Client({ connectionString: url })
    yield* Effect.acquireRelease(
      Effect.promise(async () => {
        await admin.connect()
        await admin.query(`CREATE SCHEMA ${schema}`)
      }),
      () =>
        Effect.promise(async () => {
          await admin.query(`DROP SCHEMA ${schema} CASCADE`)
          await admin.end()
        })
    )
    return withSchema(url, schema)
  }).pipe(Effect.orDie)

const isolatedPostgres = (url: string): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.unwrapScoped(Effect.map(isolatedSchemaUrl(url), (schemaUrl) => postgresLayer(Redacted.make(schemaUrl))))

const migrated = (layer: Layer.Layer<SqlClient.SqlClient, SqlError>) =>
  Layer.effectDiscard(runMigrations.pipe(Effect.orDie)).pipe(Layer.provideMerge(layer))

/**
 * A migrated embedded database of its own: a copy of the run's template (pgliteTemplate.ts) in a
 * new directory, removed after; opening it skips creating a cluster (~3 s of CPU each time).
 */
const pgliteFromTemplate = (): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.unwrapScoped(
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => newDataDir()),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      ),
      (dir) => migrated(pgliteLayer(dir))
    )
  )

export const backends = (): ReadonlyArray<Backend> => {
  const list: Array<Backend> = [
    {
      name: "pglite",
      layer: pgliteFromTemplate,
      bare: () => pgliteLayer(undefined),
      authChanges: localAuthChanges
    }
  ]
  const url = process.env.DATABASE_URL
  if (url !== undefined && url !== "") {
    list.push({
      name: "postgres",
      layer: () => migrated(isolatedPostgres(url)),
      bare: () => isolatedPostgres(url),
      authChanges: postgresAuthChanges(Redacted.make(url), Option.none())
    })
  }
  return list
}
