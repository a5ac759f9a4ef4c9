/**
 * The one `SqlClient` of the service: embedded PostgreSQL (PGlite, persisted
 * under DATA_DIR) by default, or a real PostgreSQL when DATABASE_URL is set.
 * The same migrations and the same SQL serve both.
 */

import { mkdirSync } from "node:fs"
import { resolve } from "node:path"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Duration, Effect, Layer, Option, type Redacted } from "effect"
import pg from "pg"
import { AppConfig } from "../config/AppConfig.js"
import * as PgliteClient from "./PgliteClient.js"

export type Backend = "pglite" | "postgres"

/** int8 (20) as a JS number on PostgreSQL, as PGlite already does: ids and epoch seconds fit in 2^53. */
const pgTypes = {
  getTypeParser: (oid: number, format?: any) =>
    oid === 20 ? (v: string) => Number(v) : (pg.types.getTypeParser as any)(oid, format)
}

export const postgresLayer = (url: Redacted.Redacted<string>): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  PgClient.layer({
    url,
    maxConnections: 10,
    connectTimeout: Duration.seconds(5),
    idleTimeout: Duration.seconds(30),
    applicationName: "vigil",
    types: pgTypes as any
  })

export const pgliteLayer = (dataDir: string | undefined): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.unwrapEffect(
    Effect.sync(() => {
      if (dataDir !== undefined) mkdirSync(resolve(dataDir, "pgdata"), { recursive: true })
      return PgliteClient.layer({ dataDir: dataDir === undefined ? undefined : resolve(dataDir, "pgdata") })
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
