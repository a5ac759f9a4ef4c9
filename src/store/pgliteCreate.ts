/**
 * Worker thread, started by the database thread (`pgliteWorker.ts`) for an
 * empty data directory: creates the cluster (PGlite's initdb, about 3 s of
 * CPU) beside `workerData.dataDir`, closes it, moves it into place, and hands
 * the compiled PostgreSQL WebAssembly module back (compiled code is shared
 * between threads, not copied), with which the database thread opens the
 * cluster. A thread of its own because initdb grows PGlite's WebAssembly
 * memory by ~450 MB, which a WebAssembly memory never gives back: it goes
 * with this thread.
 *
 * Created aside and renamed once complete, so that a creation cut short (the
 * service stopped during its first start, or killed) leaves no half-made
 * cluster where the next start would open it: that start creates it again.
 */
import { existsSync, readFileSync, renameSync, rmdirSync, rmSync } from "node:fs"
import { PGlite } from "@electric-sql/pglite"
import { answerParent } from "../workerThread.js"

/** the global `WebAssembly` (the compiler options here declare its types, not the value) */
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } })
  .WebAssembly

await answerParent(async ({ dataDir, wasm }: { readonly dataDir: string; readonly wasm: string }) => {
  const pgliteWasmModule = await wasmApi.compile(readFileSync(wasm))
  const aside = `${dataDir}.creating`
  rmSync(aside, { recursive: true, force: true })
  const db = await PGlite.create(aside, { pgliteWasmModule })
  await db.close()
  // the empty directory the service made; one with anything in it is refused (ENOTEMPTY), not overwritten
  if (existsSync(dataDir)) rmdirSync(dataDir)
  renameSync(aside, dataDir)
  return pgliteWasmModule
})
