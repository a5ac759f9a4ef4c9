/**
 * Worker threads running the service's own TypeScript modules. The service
 * runs under tsx (`npm start`), whose loader a worker thread does not
 * inherit: the worker starts from a one-line bootstrap that loads the module
 * through tsx's API, so it works the same under `npm start`, the benchmarks
 * and vitest.
 */
import { readFileSync, readlinkSync } from "node:fs"
import { createRequire } from "node:module"
import { setPriority } from "node:os"
import { dirname, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { type TransferListItem, Worker } from "node:worker_threads"

/** tsx's ESM API (`tsx/esm/api` as `import` resolves it), as an absolute URL: the worker may start anywhere */
const tsxApi = (() => {
  const manifest = createRequire(import.meta.url).resolve("tsx/package.json")
  const exported = JSON.parse(readFileSync(manifest, "utf8")).exports["./esm/api"].import.default as string
  return pathToFileURL(resolve(dirname(manifest), exported)).href
})()

/** Starts `module` (a file URL of a .ts or .js module) in a new worker thread with `workerData`. */
export const startWorker = (module: URL, workerData: unknown, transferList?: ReadonlyArray<TransferListItem>): Worker =>
  new Worker(
    `import(${JSON.stringify(tsxApi)}).then((api) => api.tsImport(${JSON.stringify(module.href)}, ${JSON.stringify(module.href)}))`,
    {
      eval: true,
      workerData,
      // the parent's flags include tsx's loader, which a worker cannot use; the bootstrap loads it
      execArgv: [],
      ...(transferList === undefined ? {} : { transferList: [...transferList] })
    }
  )

/**
 * Lowers the calling thread's scheduling priority (Linux nice `niceness`, per
 * thread): background work in a worker then takes the CPU a request thread
 * leaves idle, and a small share of a core the request thread wants. Best
 * effort: elsewhere, or when not allowed, nothing changes.
 */
export const lowerThreadPriority = (niceness: number): boolean => {
  try {
    const tid = Number(/task\/(\d+)$/.exec(readlinkSync("/proc/thread-self"))?.[1])
    if (!Number.isInteger(tid)) return false
    setPriority(tid, niceness)
    return true
  } catch {
    return false
  }
}
