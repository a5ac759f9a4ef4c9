/**
 * An `@effect/sql` driver for the embedded PostgreSQL (`@electric-sql/pglite`).
 *
 * No PGlite driver is published for Effect 3, so this is a small one built on
 * `SqlClient.make` with the PostgreSQL statement compiler of `@effect/sql-pg`:
 * the same SQL runs on both backends.
 *
 * PGlite runs in a worker thread of its own (`pgliteWorker.ts`): PostgreSQL
 * compiled to WebAssembly runs synchronously on the thread that calls it, and
 * on the request thread it took about half of that thread's time under a write
 * load (parse, plan, run and the file system calls under them, for every
 * statement). Statements are posted to it and answered; the request thread
 * goes on meanwhile.
 *
 * PGlite is a single connection that runs one statement at a time, in the
 * order they were posted. Statements of a transaction carry its number: from
 * its first statement to its end (the connection released) the database
 * thread runs only that transaction's statements, so statements of other
 * fibers wait instead of running inside it.
 *
 * Opening. The database thread opens the database as it starts: a data
 * directory without a cluster (a first start) gets one created first, in a
 * short-lived thread (`pgliteCreate.ts`: initdb, seconds of CPU on the second
 * core, and ~450 MB of WebAssembly memory that leaves with that thread);
 * the client is available at once
 * and its statements wait for the database (`created` says the database is
 * new, so e.g. the market need not wait to read what it holds: nothing). An
 * existing cluster, or an in-memory database, is opened before the client is
 * returned. Should the thread die, every statement fails from then on and the
 * service stops (`Fatal`), to be restarted on the data it committed.
 */
import { existsSync } from "node:fs"
import { extname, join } from "node:path"
import { fileURLToPath } from "node:url"

import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import { Chunk, Clock, Context, Deferred, Effect, Layer, Option, Runtime, Stream } from "effect"
import { Fatal } from "../Fatal.js"
import { startWorker } from "../workerThread.js"
import type { PgliteFailure, PgliteReply, PgliteRequest, PgliteStatement, PgliteWorkerInput } from "./pgliteProtocol.js"

export interface PgliteClient extends SqlClient.SqlClient {
  /** succeeds once the database is open */
  readonly opened: Effect.Effect<void, SqlError>
  /** whether this client created the database (an empty data directory) */
  readonly created: boolean
}

export const PgliteClient = Context.GenericTag<PgliteClient>("vigil/PgliteClient")

/**
 * What this driver's connections add: `COPY … FROM '/dev/blob'` with `data` as the blob (the
 * statement names the table, columns and format). The bulk import writes its rows with it in
 * PostgreSQL's binary format: parsing 65,000 numbers from text took PostgreSQL compiled to
 * WebAssembly longer than storing them (docs/benchmarks.md, issue 17).
 */
export interface CopyFrom {
  readonly copyFrom: (sql: string, data: Uint8Array) => Effect.Effect<void, SqlError>
}

/** The `COPY` of the transaction's connection, when it runs on this driver (undefined on PostgreSQL). */
export const copyFromOf = (connection: Connection): CopyFrom["copyFrom"] | undefined =>
  "copyFrom" in connection && typeof connection.copyFrom === "function"
    ? (connection.copyFrom as CopyFrom["copyFrom"])
    : undefined

export interface PgliteClientConfig {
  /** directory for a file-backed database; undefined for in-memory */
  readonly dataDir?: string | undefined
}

const toSqlError = (cause: unknown, message = "Failed to execute statement") => new SqlError({ cause, message })

const workerModule = new URL(`./pgliteWorker${extname(fileURLToPath(import.meta.url))}`, import.meta.url)

/** An error of the database thread as an `Error` with PostgreSQL's report fields (`code`, `detail`, …) on it. */
const revive = (failure: PgliteFailure): Error =>
  Object.assign(new Error(failure.message), failure.name === undefined ? {} : { name: failure.name }, failure.report)

/** a statement as the client gives it: the thread numbers it */
type WithoutId<S> = S extends unknown ? Omit<S, "id"> : never
type Statement = WithoutId<PgliteStatement>

/** The database thread: statements posted and answered in order, its opening, its closing. */
const startDatabaseThread = (input: PgliteWorkerInput, onDeath: (error: Error) => void) => {
  const worker = startWorker(workerModule, input)
  const pending = new Map<number, { readonly resolve: (rows: any) => void; readonly reject: (e: Error) => void }>()
  let nextId = 1
  let gone: Error | undefined
  let closing = false
  let closed: (() => void) | undefined
  let openResult: ((error?: Error) => void) | undefined
  let isOpen = false
  const opened = new Promise<void>((resolve, reject) => {
    openResult = (error) => (error === undefined ? resolve() : reject(error))
  })
  // a failure reaches every statement (the migrations, which stop the service), not the void
  opened.catch(() => undefined)

  worker.on("message", (reply: PgliteReply) => {
    switch (reply.type) {
      case "open":
        isOpen = true
        return openResult?.()
      case "open-failed":
        return openResult?.(revive(reply.error))
      case "result":
      case "error": {
        const waiting = pending.get(reply.id)
        pending.delete(reply.id)
        if (reply.type === "result") waiting?.resolve(reply.rows)
        else waiting?.reject(revive(reply.error))
        return
      }
      case "closed":
        return closed?.()
    }
  })
  const die = (error: Error) => {
    if (gone !== undefined) return
    gone = error
    openResult?.(error)
    for (const waiting of pending.values()) waiting.reject(error)
    pending.clear()
    closed?.()
    if (!closing) onDeath(error)
  }
  worker.on("error", die)
  worker.on("exit", (code) => die(new Error(`the database thread exited (code ${code})`)))

  const send = (statement: Statement): Promise<any> => {
    if (gone !== undefined) return Promise.reject(gone)
    const id = nextId++
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject })
      try {
        // a COPY's data moves to the thread rather than being copied
        const transfer = statement.op === "copy" ? [statement.data.buffer as ArrayBuffer] : []
        worker.postMessage({ ...statement, id } as PgliteRequest, transfer)
      } catch (error) {
        // a parameter that cannot be copied to the thread
        pending.delete(id)
        reject(error)
      }
    })
  }

  /** transaction `tx` is over: the statements waiting may run */
  const end = (tx: number) => {
    if (gone === undefined) worker.postMessage({ op: "end", tx } satisfies PgliteRequest)
  }

  /** closes the database (PGlite flushes and lets go of the data directory); answers once done */
  const close = () =>
    new Promise<void>((resolve) => {
      closing = true
      if (gone !== undefined) return resolve()
      closed = resolve
      worker.postMessage({ op: "close" } satisfies PgliteRequest)
    })

  const terminate = () => {
    closing = true
    return worker.terminate().then(() => undefined)
  }

  return { opened, isOpen: () => isOpen, send, end, close, terminate }
}

export const make = (config: PgliteClientConfig) =>
  Effect.gen(function* () {
    const dataDir = config.dataDir
    const created = dataDir !== undefined && !existsSync(join(dataDir, "PG_VERSION"))
    const fatal = yield* Effect.serviceOption(Fatal)
    // the service's logger and annotations, for a death reported outside any fiber
    const runtime = yield* Effect.runtime<never>()
    const thread = startDatabaseThread({ dataDir, create: created }, (error) => {
      Runtime.runFork(runtime)(
        Effect.logError("the embedded database thread stopped", error).pipe(
          Effect.zipRight(
            Option.match(fatal, {
              onNone: () => Effect.void,
              onSome: (deferred) =>
                Deferred.fail(deferred, new Error(`the embedded database stopped: ${error.message}`))
            })
          )
        )
      )
    })
    // closed cleanly when it answers in time; the thread is stopped either way. A database still
    // opening is stopped at once: it has nothing to flush, and its creation (seconds, more on a busy
    // machine) is made aside and moved into place only when complete (`pgliteCreate.ts`)
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() =>
        thread.isOpen() ? Effect.promise(thread.close).pipe(Effect.timeoutOption("5 seconds")) : Effect.void
      ).pipe(Effect.zipRight(Effect.promise(thread.terminate)))
    )
    const open = Effect.tryPromise({
      try: () => thread.opened,
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
    const compiler = makeCompiler()

    const runQuery = (
      tx: number | undefined,
      sql: string,
      params: ReadonlyArray<unknown>,
      rowMode: "object" | "array"
    ) =>
      Effect.tryPromise({
        try: (): Promise<ReadonlyArray<any>> =>
          params.length === 0 && rowMode === "object"
            ? // simple protocol: allows several statements in one text (migrations)
              thread.send({ op: "exec", tx, sql })
            : thread.send({ op: "query", tx, sql, params, rowMode }),
        catch: (cause) => toSqlError(cause)
      })

    /** A connection: statements outside a transaction (`tx` undefined), or those of transaction `tx`. */
    const connection = (tx: number | undefined): Connection & CopyFrom => {
      const execute = (
        sql: string,
        params: ReadonlyArray<unknown>,
        transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
      ) => Effect.map(runQuery(tx, sql, params, "object"), (rows) => (transformRows ? transformRows(rows) : rows))
      return {
        execute,
        executeRaw: (sql, params) =>
          Effect.tryPromise({
            try: () => thread.send({ op: "raw", tx, sql, params }),
            catch: toSqlError
          }),
        executeStream: (sql, params, transformRows) =>
          Stream.fromIterableEffect(execute(sql, params, transformRows)).pipe(
            Stream.rechunk(128),
            Stream.mapChunks((c) => Chunk.fromIterable(c))
          ),
        executeValues: (sql, params) => runQuery(tx, sql, params, "array") as any,
        executeUnprepared: execute,
        copyFrom: (sql, data) =>
          Effect.tryPromise({
            try: () => thread.send({ op: "copy", tx, sql, data }),
            catch: (cause) => toSqlError(cause)
          }).pipe(Effect.asVoid)
      }
    }

    // statements outside transactions are posted at once, without waiting for those before: the
    // database thread runs them in order, and keeps others out of a transaction while it runs
    let transactions = 0
    const transactionAcquirer = Effect.acquireRelease(
      Effect.sync(() => ++transactions),
      (tx) => Effect.sync(() => thread.end(tx))
    ).pipe(Effect.map(connection))

    const client = yield* SqlClient.make({
      acquirer: Effect.succeed(connection(undefined)),
      transactionAcquirer,
      compiler,
      spanAttributes: [
        ["db.system.name", "postgresql"],
        ["db.namespace", "pglite"]
      ]
    })
    return Object.assign(client, { opened: open, created }) as PgliteClient
  })

export const layer = (config: PgliteClientConfig): Layer.Layer<PgliteClient | SqlClient.SqlClient, SqlError> =>
  Layer.scopedContext(
    Effect.map(make(config), (client) =>
      Context.make(PgliteClient, client).pipe(Context.add(SqlClient.SqlClient, client))
    )
  ).pipe(Layer.provide(Reactivity.layer))
