/**
 * Worker threads running the service's own modules. `npm start` runs the
 * modules built into `build/` under plain node, and a worker starts a built
 * module as it is. Tests, benchmarks and scripts run the TypeScript under
 * tsx (or vitest), whose loader a worker thread does not inherit: such a
 * worker starts from a one-line bootstrap that loads the module through
 * tsx's API.
 */
import { readFileSync, readlinkSync } from "node:fs"
import { createRequire } from "node:module"
import { setPriority } from "node:os"
import { dirname, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { parentPort, type TransferListItem, Worker, workerData } from "node:worker_threads"
import { Effect } from "effect"
import { builtTwin } from "./workerTwins.js"

/**
 * tsx's ESM API (`tsx/esm/api` as `import` resolves it), as an absolute URL: the worker may start
 * anywhere. Looked up on the first TypeScript worker: a built service never needs it.
 */
let tsxApi: string | undefined
const tsxApiUrl = (): string => {
  if (tsxApi === undefined) {
    const manifest = createRequire(import.meta.url).resolve("tsx/package.json")
    const exported = JSON.parse(readFileSync(manifest, "utf8")).exports["./esm/api"].import.default as string
    tsxApi = pathToFileURL(resolve(dirname(manifest), exported)).href
  }
  return tsxApi
}

/**
 * Starts `module` (a file URL of a .ts or .js module) in a new worker thread with `workerData`: a
 * built module (`npm start` runs `build/`, scripts/build-server.mjs) as it is, a TypeScript one
 * from its built twin (`startWorkersFromBuild`) or through the bootstrap.
 */
export const startWorker = (
  given: URL,
  workerData: unknown,
  transferList?: ReadonlyArray<TransferListItem>
): Worker => {
  const module = builtTwin(given) ?? given
  const options = {
    workerData,
    // the parent's flags may include tsx's loader, which a worker cannot use; the bootstrap loads it
    execArgv: [],
    ...(transferList === undefined ? {} : { transferList: [...transferList] })
  }
  return module.pathname.endsWith(".ts")
    ? new Worker(
        `import(${JSON.stringify(tsxApiUrl())}).then((api) => api.tsImport(${JSON.stringify(module.href)}, ${JSON.stringify(module.href)}))`,
        { ...options, eval: true }
      )
    : new Worker(module, options)
}

/** A worker's one message: its result, or what failed. */
export type WorkerAnswer<O> =
  | { readonly ok: true; readonly value: O }
  | { readonly ok: false; readonly message: string }

/**
 * Runs `module` in a worker thread with `input` and answers the result it posts (`answerParent`);
 * fails when it reports a failure, throws or exits first (messages start with `name`). The worker
 * is terminated once it has answered, or when the caller is interrupted.
 */
export const runWorker = <O>(name: string, module: URL, input: unknown): Effect.Effect<O, Error> =>
  Effect.async<O, Error>((resume) => {
    let settled = false
    const settle = (result: Effect.Effect<O, Error>) => {
      if (settled) return
      settled = true
      resume(result)
      void worker.terminate()
    }
    const worker = startWorker(module, input)
    worker.once("message", (answer: WorkerAnswer<O>) =>
      settle(answer.ok ? Effect.succeed(answer.value) : Effect.fail(new Error(`${name}: ${answer.message}`)))
    )
    worker.once("error", (error) => settle(Effect.fail(error)))
    worker.once("exit", (code) => settle(Effect.fail(new Error(`${name} exited with code ${code}`))))
    return Effect.sync(() => {
      settled = true
      void worker.terminate()
    })
  })

/**
 * The worker's side of `runWorker`: computes its result from `workerData` and posts it to the
 * parent (or what failed), handing over the buffers `transfer` names (moved, not copied).
 */
export const answerParent = async <I, O>(
  compute: (input: I) => O | Promise<O>,
  transfer: (value: O) => ReadonlyArray<ArrayBuffer> = () => []
): Promise<void> => {
  const port = parentPort
  if (port === null) return
  const input = workerData as I
  let answer: WorkerAnswer<O>
  let moved: ReadonlyArray<ArrayBuffer> = []
  try {
    const value = await compute(input)
    answer = { ok: true, value }
    moved = transfer(value)
  } catch (error) {
    answer = { ok: false, message: error instanceof Error ? (error.stack ?? error.message) : String(error) }
  }
  port.postMessage(answer, [...moved])
}

/**
 * Lowers the calling thread's scheduling priority (Linux nice `niceness`, per
 * thread): background work in a worker then takes the CPU a request thread
 * leaves idle, and a small share of a core the request thread wants. Best
 * effort: elsewhere, or when not allowed, nothing changes.
 */
export const lowerThreadPriority = (niceness: number): boolean => setThreadNiceness(niceness)

/** Sets the calling thread's niceness (Linux, per thread); false when not possible or not allowed. */
export const setThreadNiceness = (niceness: number): boolean => {
  try {
    const tid = Number(/task\/(\d+)$/.exec(readlinkSync("/proc/thread-self"))?.[1])
    if (!Number.isInteger(tid)) return false
    setPriority(tid, niceness)
    return true
  } catch {
    return false
  }
}
