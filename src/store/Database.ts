/**
 * The one `SqlClient` of the service: embedded PostgreSQL (PGlite, persisted
 * under DATA_DIR) by default, or a real PostgreSQL when DATABASE_URL is set.
 * The same migrations and the same SQL serve both.
 */

import { mkdirSync } from "node:fs"
import { resolve } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Context, Duration, Effect, Layer, Option, type Redacted } from "effect"
import pg from "pg"
import { AppConfig } from "../config/AppConfig.js"
import * as PgliteClient from "./PgliteClient.js"

/**
 * Whether this start creates the database (the embedded store on an empty
 * DATA_DIR): it holds no rows yet, so a reader of stored data (the market's
 * imported bars) need not wait for it. Absent (PostgreSQL, tests): unknown.
 */
export class NewDatabase extends Context.Tag("vigil/NewDatabase")<NewDatabase, boolean>() {}

/** int8 (20) as a JS number on PostgreSQL, as PGlite already does: ids and epoch seconds fit in 2^53. */
const pgTypes = {
  getTypeParser: (oid: number, format?: any) =>
    oid === 20 ? (v: string) => Number(v) : (pg.types.getTypeParser as any)(oid, format)
}

/**
 * A URL whose `search_path` (`?options=-csearch_path%3D<schema>`) names no
 * existing schema leaves `current_schema()` NULL: every table would be created
 * nowhere. Refuse to start with a message that says so.
 */
const requireSchema = (context: Context.Context<SqlClient.SqlClient>) =>
  Effect.gen(function* () {
    const sql = Context.get(context, SqlClient.SqlClient)
    const [row] = yield* sql<{ schema: string | null }>`SELECT current_schema() AS schema`
    if (row?.schema == null) {
      return yield* new SqlError({
        cause: undefined,
        message:
          "DATABASE_URL's search_path names no existing schema: create the schema first (CREATE SCHEMA <name>) or drop search_path from the URL"
      })
    }
  })

export const postgresLayer = (url: Redacted.Redacted<string>): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  PgClient.layer({
    url,
    maxConnections: 10,
    connectTimeout: Duration.seconds(5),
    idleTimeout: Duration.seconds(30),
    applicationName: "vigil",
    types: pgTypes as any
  }).pipe(Layer.tap(requireSchema))

export const pgliteLayer = (
  dataDir: string | undefined
): Layer.Layer<SqlClient.SqlClient | NewDatabase | PgliteClient.PgliteClient, SqlError> =>
  Layer.unwrapEffect(
    Effect.sync(() => {
      if (dataDir !== undefined) mkdirSync(resolve(dataDir, "pgdata"), { recursive: true })
      const client = PgliteClient.layer({ dataDir: dataDir === undefined ? undefined : resolve(dataDir, "pgdata") })
      return Layer.effect(
        NewDatabase,
        Effect.map(PgliteClient.PgliteClient, (c) => c.created)
      ).pipe(Layer.provideMerge(client))
    })
  )

/** Chooses the backend from the configuration. */
export const DatabaseLive: Layer.Layer<SqlClient.SqlClient, SqlError, AppConfig> = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Option.match(config.databaseUrl, {
      onNone: () => pgliteLayer(config.dataDir),
      onSome: postgresLayer
    })
  )
)
