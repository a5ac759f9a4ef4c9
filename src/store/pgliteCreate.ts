/**
 * Worker thread: creates an embedded database cluster (PGlite's initdb, about
 * 3 s of CPU) in `workerData.dataDir`, closes it, and hands the compiled
 * PostgreSQL WebAssembly module back (compiled code is shared between
 * threads, not copied): the service opens the created cluster itself with it,
 * without compiling it again on its busy thread. Meanwhile that thread loads
 * the market.
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
