/**
 * An `@effect/sql` driver for the embedded PostgreSQL (`@electric-sql/pglite`).
 *
 * No PGlite driver is published for Effect 3, so this is a small one built on
 * `SqlClient.make` with the PostgreSQL statement compiler of `@effect/sql-pg`:
 * the same SQL runs on both backends.
 *
 * PGlite is a single connection that runs one statement at a time. Every
 * statement takes a one-permit semaphore; a transaction holds the permit for
 * its whole scope (BEGIN … COMMIT run on the same, exclusively held
 * connection), so statements of other fibers wait instead of interleaving.
 */

import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import { PGlite } from "@electric-sql/pglite"
import { Chunk, Context, Effect, Layer, Stream } from "effect"

export interface PgliteClient extends SqlClient.SqlClient {
  readonly pglite: PGlite
}

export const PgliteClient = Context.GenericTag<PgliteClient>("vigil/PgliteClient")

export interface PgliteClientConfig {
  /** directory for a file-backed database; undefined for in-memory */
  readonly dataDir?: string | undefined
}

const toSqlError = (cause: unknown, message = "Failed to execute statement") => new SqlError({ cause, message })

export const make = (config: PgliteClientConfig) =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => PGlite.create(config.dataDir ?? "memory://"),
        catch: (cause) => toSqlError(cause, `PGlite: failed to open ${config.dataDir ?? "in-memory database"}`)
      }),
      (db) => Effect.promise(() => db.close()).pipe(Effect.timeoutOption("5 seconds"))
    )
    const lock = yield* Effect.makeSemaphore(1)
    const compiler = makeCompiler()

    const runQuery = (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") =>
      Effect.tryPromise({
        try: async () => {
          if (params.length === 0 && rowMode === "object") {
            // simple protocol: allows several statements in one text (migrations)
            const results = await db.exec(sql)
            return (results.length === 1 ? results[0].rows : results.flatMap((r) => r.rows)) as ReadonlyArray<any>
          }
          const result = await db.query(sql, params as Array<unknown>, { rowMode })
          return result.rows as ReadonlyArray<any>
        },
        catch: (cause) => toSqlError(cause)
      })

    const makeConnection = (locked: boolean): Connection => {
      const guard = <A>(effect: Effect.Effect<A, SqlError>) => (locked ? effect : lock.withPermits(1)(effect))
      const execute = (
        sql: string,
        params: ReadonlyArray<unknown>,
        transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
      ) => guard(Effect.map(runQuery(sql, params, "object"), (rows) => (transformRows ? transformRows(rows) : rows)))
      return {
        execute,
        executeRaw: (sql, params) =>
          guard(Effect.tryPromise({ try: () => db.query(sql, params as Array<unknown>), catch: toSqlError })),
        executeStream: (sql, params, transformRows) =>
          Stream.fromIterableEffect(execute(sql, params, transformRows)).pipe(
            Stream.rechunk(128),
            Stream.mapChunks((c) => Chunk.fromIterable(c))
          ),
        executeValues: (sql, params) => guard(runQuery(sql, params, "array")) as any,
        executeUnprepared: execute
      }
    }

    const unlocked = makeConnection(false)
    const transactionConnection = makeConnection(true)
    const transactionAcquirer = Effect.acquireRelease(lock.take(1), () => lock.release(1)).pipe(
      Effect.as(transactionConnection)
    )

    const client = yield* SqlClient.make({
      acquirer: Effect.succeed(unlocked),
      transactionAcquirer,
      compiler,
      spanAttributes: [
        ["db.system.name", "postgresql"],
        ["db.namespace", "pglite"]
      ]
    })
    return Object.assign(client, { pglite: db }) as PgliteClient
  })

export const layer = (config: PgliteClientConfig): Layer.Layer<PgliteClient | SqlClient.SqlClient, SqlError> =>
  Layer.scopedContext(
    Effect.map(make(config), (client) =>
      Context.make(PgliteClient, client).pipe(Context.add(SqlClient.SqlClient, client))
    )
  ).pipe(Layer.provide(Reactivity.layer))
