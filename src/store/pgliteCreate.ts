/**
 * Worker thread, started by the database thread (`pgliteWorker.ts`) for an
 * empty data directory: creates the cluster (PGlite's initdb, about 3 s of
 * CPU) in `workerData.dataDir`, closes it, and hands the compiled PostgreSQL
 * WebAssembly module back (compiled code is shared between threads, not
 * copied), with which the database thread opens the cluster. A thread of its
 * own because initdb grows PGlite's WebAssembly memory by ~450 MB, which a
 * WebAssembly memory never gives back: it goes with this thread.
 */
import { readFileSync } from "node:fs"
import { PGlite } from "@electric-sql/pglite"
import { answerParent } from "../workerThread.js"

/** the global `WebAssembly` (the compiler options here declare its types, not the value) */
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } })
  .WebAssembly

await answerParent(async ({ dataDir, wasm }: { readonly dataDir: string; readonly wasm: string }) => {
  const pgliteWasmModule = await wasmApi.compile(readFileSync(wasm))
  const db = await PGlite.create(dataDir, { pgliteWasmModule })
  await db.close()
  return pgliteWasmModule
})
