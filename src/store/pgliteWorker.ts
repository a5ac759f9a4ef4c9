/**
 * Worker thread: the embedded PostgreSQL (PGlite) of `PgliteClient.ts`.
 *
 * PGlite runs PostgreSQL compiled to WebAssembly synchronously on the thread
 * that calls it: on the request thread, every statement (parse, plan, run,
 * the file system calls under them) held up every request, and took about
 * half of the thread's time under a write load. Here it has a thread of its
 * own: the request thread posts statements and goes on; PostgreSQL runs on
 * another core, as a PostgreSQL server would.
 *
 * Protocol (`pgliteProtocol.ts`): the parent posts statements, each with an
 * id, without waiting for the ones before (many requests' statements are in
 * flight at once); they run one at a time in the order posted (PGlite is one
 * connection), and each is answered with its id. A statement of a transaction
 * carries the transaction's number: from its first statement until its `end`,
 * only that transaction's statements run (the others wait, in order), so no
 * statement of another request runs inside it. The database is opened (a
 * cluster created first, in a thread of its own, for an empty data
 * directory: `pgliteCreate.ts`) as the worker starts;
 * statements posted meanwhile wait for it. `close` closes it after the
 * statement running, and is answered once done.
 */
import { createRequire } from "node:module"
import { dirname, extname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { parentPort, workerData } from "node:worker_threads"
import { PGlite } from "@electric-sql/pglite"
import {
  PGLITE_SHARED_BUFFERS,
  type PgliteFailure,
  type PgliteReply,
  type PgliteRequest,
  type PgliteStatement,
  type PgliteWorkerInput
} from "./pgliteProtocol.js"

/** The fields of PostgreSQL's error report PGlite puts on its errors, kept across the thread boundary. */
const REPORT_FIELDS = ["code", "severity", "detail", "hint", "position", "schema", "table", "column", "constraint"]

const failure = (error: unknown): PgliteFailure => {
  if (!(error instanceof Error)) return { message: String(error) }
  const report: Record<string, string> = {}
  for (const field of REPORT_FIELDS) {
    const value = (error as unknown as Record<string, unknown>)[field]
    if (typeof value === "string") report[field] = value
  }
  return { message: error.message, name: error.name, report }
}

const run = async (db: PGlite, statement: PgliteStatement): Promise<unknown> => {
  switch (statement.op) {
    case "exec": {
      // simple protocol: several statements in one text (migrations)
      const results = await db.exec(statement.sql)
      return results.length === 1 ? results[0]!.rows : results.flatMap((r) => r.rows)
    }
    case "query":
      return (await db.query(statement.sql, [...statement.params], { rowMode: statement.rowMode })).rows
    case "raw":
      return await db.query(statement.sql, [...statement.params])
    case "copy":
      await db.query(statement.sql, [], { blob: new Blob([statement.data]) })
      return []
  }
}

/** PGlite's PostgreSQL build */
const pgliteWasm = join(dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite")), "pglite.wasm")

const createModule = new URL(`./pgliteCreate${extname(fileURLToPath(import.meta.url))}`, import.meta.url)

const startParams = [...PGlite.defaultStartParams, "-c", `shared_buffers=${PGLITE_SHARED_BUFFERS}`]

/**
 * Opens the database; an empty data directory gets its cluster from a short-lived thread first
 * (`pgliteCreate.ts`). Effect, which starting that thread takes, is loaded only then: loading it
 * costs ~0.9 s of CPU, more than opening an existing database (docs/benchmarks.md).
 */
const open = async ({ dataDir, create }: PgliteWorkerInput): Promise<PGlite> => {
  if (dataDir === undefined) return PGlite.create("memory://", { startParams })
  if (!create) return PGlite.create(dataDir, { startParams })
  const [{ Effect }, { runWorker }] = await Promise.all([import("effect"), import("../workerThread.js")])
  const pgliteWasmModule = await Effect.runPromise(
    runWorker<WebAssembly.Module>("PGlite create worker", createModule, { dataDir, wasm: pgliteWasm })
  )
  return PGlite.create(dataDir, { pgliteWasmModule, startParams })
}

const serve = (port: NonNullable<typeof parentPort>, input: PgliteWorkerInput) => {
  const reply = (message: PgliteReply) => port.postMessage(message)
  const opening = open(input)
  opening.then(
    () => reply({ type: "open" }),
    (error) => reply({ type: "open-failed", error: failure(error) })
  )

  const queue: Array<PgliteStatement | { readonly op: "end"; readonly tx: number }> = []
  /** the transaction running: only its statements (and its end) may run */
  let owner: number | undefined
  let closeRequested = false
  let pumping = false

  const next = () => {
    if (owner === undefined) return queue.shift()
    const at = queue.findIndex((r) => r.tx === owner)
    return at < 0 ? undefined : queue.splice(at, 1)[0]
  }

  const close = async (db: PGlite | undefined) => {
    for (const r of queue.splice(0)) {
      if (r.op !== "end") reply({ type: "error", id: r.id, error: { message: "the embedded database is closing" } })
    }
    await db?.close().catch(() => undefined)
    reply({ type: "closed" })
  }

  const pump = async () => {
    if (pumping) return
    pumping = true
    let db: PGlite
    try {
      db = await opening
    } catch (error) {
      for (const r of queue.splice(0)) if (r.op !== "end") reply({ type: "error", id: r.id, error: failure(error) })
      pumping = false
      if (closeRequested) await close(undefined)
      return
    }
    for (let r = next(); r !== undefined && !closeRequested; r = next()) {
      if (r.op === "end") {
        if (owner === r.tx) owner = undefined
        continue
      }
      if (r.tx !== undefined) owner = r.tx
      try {
        reply({ type: "result", id: r.id, rows: await run(db, r) })
      } catch (error) {
        reply({ type: "error", id: r.id, error: failure(error) })
      }
    }
    pumping = false
    if (closeRequested) await close(db)
  }

  port.on("message", (request: PgliteRequest) => {
    if (request.op === "close") closeRequested = true
    else queue.push(request)
    void pump()
  })
}

if (parentPort !== null) serve(parentPort, workerData as PgliteWorkerInput)
