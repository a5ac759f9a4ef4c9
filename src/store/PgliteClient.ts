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
 *
 * Opening. A data directory without a cluster (a first start) is created in a
 * worker thread (`pgliteCreate.ts`: initdb, seconds of CPU on the second
 * core), then opened here; the client is available at once and its
 * statements wait for the database (`created` says the database is new, so
 * e.g. the market need not wait to read what it holds: nothing). An existing
 * cluster, or an in-memory database, is opened before the client is returned.
 */
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, extname, join } from "node:path"
import { fileURLToPath } from "node:url"

import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import { PGlite } from "@electric-sql/pglite"
import { Chunk, Clock, Context, Effect, Layer, Stream } from "effect"
import { runWorker } from "../workerThread.js"

export interface PgliteClient extends SqlClient.SqlClient {
  /** the database, once open */
  readonly pglite: Effect.Effect<PGlite, SqlError>
  /** whether this client created the database (an empty data directory) */
  readonly created: boolean
}

export const PgliteClient = Context.GenericTag<PgliteClient>("vigil/PgliteClient")

export interface PgliteClientConfig {
  /** directory for a file-backed database; undefined for in-memory */
  readonly dataDir?: string | undefined
}

const toSqlError = (cause: unknown, message = "Failed to execute statement") => new SqlError({ cause, message })

const createModule = new URL(`./pgliteCreate${extname(fileURLToPath(import.meta.url))}`, import.meta.url)

/** PGlite's PostgreSQL build */
const pgliteWasm = join(dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite")), "pglite.wasm")

/** Creates a database cluster in `dataDir` in a worker thread; answers the compiled PostgreSQL module. */
const createInWorker = (dataDir: string): Promise<WebAssembly.Module> =>
  Effect.runPromise(runWorker("PGlite create worker", createModule, { dataDir, wasm: pgliteWasm }))

export const make = (config: PgliteClientConfig) =>
  Effect.gen(function* () {
    const dataDir = config.dataDir
    const created = dataDir !== undefined && !existsSync(join(dataDir, "PG_VERSION"))
    const opening = created
      ? createInWorker(dataDir).then((pgliteWasmModule) => PGlite.create(dataDir, { pgliteWasmModule }))
      : PGlite.create(dataDir ?? "memory://")
    // a failure reaches every statement (the migrations, which stop the service), not the void
    opening.catch(() => undefined)
    yield* Effect.addFinalizer(() =>
      Effect.promise(() => opening.then((db) => db.close()).catch(() => undefined)).pipe(
        Effect.timeoutOption("5 seconds")
      )
    )
    const open = Effect.tryPromise({
      try: () => opening,
      catch: (cause) => toSqlError(cause, `PGlite: failed to open ${dataDir ?? "in-memory database"}`)
    })
    if (!created) yield* open
    else {
      const started = yield* Clock.currentTimeMillis
      yield* open.pipe(
        Effect.zipRight(Clock.currentTimeMillis),
        Effect.flatMap((now) =>
          Effect.logInfo("database created").pipe(Effect.annotateLogs({ seconds: (now - started) / 1000 }))
        ),
        Effect.ignore,
        Effect.forkScoped
      )
    }
    const lock = yield* Effect.makeSemaphore(1)
    const compiler = makeCompiler()

    const runQuery = (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") =>
      Effect.tryPromise({
        try: async () => {
          const db = await opening
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
          guard(
            Effect.tryPromise({
              try: () => opening.then((db) => db.query(sql, params as Array<unknown>)),
              catch: toSqlError
            })
          ),
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
    return Object.assign(client, { pglite: open, created }) as PgliteClient
  })

export const layer = (config: PgliteClientConfig): Layer.Layer<PgliteClient | SqlClient.SqlClient, SqlError> =>
  Layer.scopedContext(
    Effect.map(make(config), (client) =>
      Context.make(PgliteClient, client).pipe(Context.add(SqlClient.SqlClient, client))
    )
  ).pipe(Layer.provide(Reactivity.layer))
