/**
 * Worker thread: creates an embedded database cluster (PGlite's initdb, about
 * 3 s of CPU) in `workerData.dataDir`, closes it, and hands the compiled
 * PostgreSQL WebAssembly module back (compiled code is shared between
 * threads, not copied): the service opens the created cluster itself with it,
 * without compiling it again on its busy thread. Meanwhile that thread loads
 * the market.
 */
import { readFileSync } from "node:fs"
import { parentPort, workerData } from "node:worker_threads"
import { PGlite } from "@electric-sql/pglite"

/** the global `WebAssembly` (the compiler options here declare its types, not the value) */
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } })
  .WebAssembly

const port = parentPort
if (port !== null) {
  const { dataDir, wasm } = workerData as { readonly dataDir: string; readonly wasm: string }
  try {
    const pgliteWasmModule = await wasmApi.compile(readFileSync(wasm))
    const db = await PGlite.create(dataDir, { pgliteWasmModule })
    await db.close()
    port.postMessage({ ok: true, pgliteWasmModule })
  } catch (error) {
    port.postMessage({ ok: false, message: error instanceof Error ? (error.stack ?? error.message) : String(error) })
  }
}
