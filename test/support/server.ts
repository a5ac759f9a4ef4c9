/**
 * Starts the real service as a child process (as `npm start` does: its build) on a free
 * port with its own DATA_DIR, waits until it listens, and stops it with
 * SIGTERM. Integration tests talk to it over real HTTP.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { freePort } from "./freePort.js"
import { type MarketChoice, sampleTickersArgument } from "./sampleTickers.js"
import { ensureServiceBuilt, nodeScript } from "./serviceBuild.js"

/** A running service, in a child process (`startServer`) or in the test's own (inProcess.ts). */
export interface Reachable {
  readonly url: string
  /** everything it logged so far */
  readonly logs: () => string
}

export interface RunningServer extends Reachable {
  readonly url: string
  readonly process: ChildProcess
  readonly logs: () => string
  readonly stop: () => Promise<number | null>
  readonly dataDir: string
}

const ROOT = resolve(import.meta.dirname, "../..")

export const ADMIN_TOKEN = "test-admin-token"

/**
 * A new data directory for a service of the environment `env`: on the embedded store, its
 * database a copy of the run's migrated template (pgliteTemplate.ts) when there is one, so the
 * service opens it as on a restart instead of creating it (~7 s of CPU).
 */
export const newDataDir = (env: Record<string, string | undefined> = {}): string => {
  const dir = mkdtempSync(join(tmpdir(), "vigil-test-"))
  const template = process.env.VIGIL_TEST_PGDATA
  if (!env.DATABASE_URL && template !== undefined && existsSync(template)) {
    cpSync(template, join(dir, "pgdata"), { recursive: true })
  }
  return dir
}

export interface StartOptions {
  /** every chunk the service writes to stdout or stderr, as it comes */
  readonly onOutput?: (chunk: Buffer) => void
  /** keep at most this many characters of output for `logs()` (a long run writes more than a test wants kept) */
  readonly keepOutput?: number
  /** flags for node itself, before the script (V8 flags NODE_OPTIONS does not take) */
  readonly nodeArgs?: ReadonlyArray<string>
  /** what node runs after `nodeArgs` (default `SERVICE_ENTRY`, or the sample's entry for `market: "sample"`) */
  readonly entry?: ReadonlyArray<string>
  /**
   * The seed's tickers ("all", the default: `npm start` itself) or the fixed sample of
   * sampleTickers.ts, through sampleService.mjs (the same build and process wrapper)
   */
  readonly market?: MarketChoice
}

/** A test service's environment: a free port, its data directory, the test admin token, `env` over them. */
export const serviceVariables = (dataDir: string, env: Record<string, string>): Record<string, string> => ({
  PORT: "0",
  DATA_DIR: dataDir,
  ADMIN_TOKEN,
  HISTORY_DAYS: "260",
  // the stored flag history costs ~45 s of CPU at start; tests that need it build it on first use
  SIGNAL_FLAG_HISTORY: "lazy",
  // and the grid of the years before the window a minute or more: built when an as-of read asks
  DEEP_HISTORY: "lazy",
  ...env
})

/**
 * A service on PostgreSQL joins the cluster as a runner (VIGIL_ROLE all or runner): a free port
 * for its transport unless the test gives one (several run at once on this machine).
 */
export const runnerTransport = async (env: Record<string, string>): Promise<Record<string, string>> =>
  env.DATABASE_URL && env.VIGIL_ROLE !== "api" && env.RUNNER_PORT === undefined
    ? { RUNNER_PORT: String(await freePort()) }
    : {}

/**
 * What node runs for the service, as `npm start` does: its build (made before the run by the
 * globalSetup serviceBuild.ts), under the start script's flags.
 */
export const SERVICE_ENTRY: ReadonlyArray<string> = nodeScript("start")

/** A process over the sample market, for proofs about processes that do not count or page the whole market. */
export const SAMPLE_PROCESS: StartOptions = { market: "sample" }

/** The service over the sample market: the start script's node flags, sampleService.mjs and the sample's list. */
const sampleEntry = (): ReadonlyArray<string> => [
  ...SERVICE_ENTRY.filter((a) => a.startsWith("--")),
  join(ROOT, "test/support/sampleService.mjs"),
  sampleTickersArgument()
]

/** services started here and still running: killed when this process exits */
const children = new Set<ChildProcess>()

/**
 * Kills `child` if this process exits before it: a test file (or a script) that fails before
 * its `stop()` leaves no service running behind it, holding a port, a data directory and CPU.
 */
const reapOnExit = (child: ChildProcess) => {
  if (children.size === 0) process.once("exit", killChildren)
  children.add(child)
  child.once("exit", () => {
    children.delete(child)
    if (children.size === 0) process.removeListener("exit", killChildren)
  })
}

const killChildren = () => {
  for (const c of children) c.kill("SIGKILL")
}

export const startServer = async (
  env: Record<string, string> = {},
  timeoutMs = 60_000,
  options: StartOptions = {}
): Promise<RunningServer> => {
  const entry = options.entry ?? (options.market === "sample" ? sampleEntry() : SERVICE_ENTRY)
  if (options.entry === undefined) ensureServiceBuilt()
  const dataDir = env.DATA_DIR ?? newDataDir(env)
  const transport = await runnerTransport(env)
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      ...serviceVariables(dataDir, env),
      ...transport
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  reapOnExit(child)
  let output = ""
  const keep = options.keepOutput ?? Number.POSITIVE_INFINITY
  const onData = (d: Buffer) => {
    options.onOutput?.(d)
    if (output.length < keep) output += d
  }
  child.stdout!.on("data", onData)
  child.stderr!.on("data", onData)
  const url = await new Promise<string>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${output}`)), timeoutMs)
    const check = () => {
      const m = /Listening on (http:\/\/[^"\s]+)/.exec(output)
      if (m) {
        clearTimeout(timer)
        resolvePromise(m[1])
      }
    }
    child.stdout!.on("data", check)
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with ${code}:\n${output}`))
    })
  })
  const stop = () =>
    new Promise<number | null>((resolveStop) => {
      if (child.exitCode !== null) return resolveStop(child.exitCode)
      child.once("exit", (code) => {
        if (env.DATA_DIR === undefined) rmSync(dataDir, { recursive: true, force: true })
        resolveStop(code)
      })
      child.kill("SIGTERM")
    })
  return { url, process: child, logs: () => output, stop, dataDir }
}

export const waitReady = async (server: Reachable, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const res = await fetch(`${server.url}/readyz`).catch(() => undefined)
    if (res?.status === 200) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`server not ready in time:\n${server.logs()}`)
}

/** An account on `plan` made through the admin API, with its first key. */
export const createAccount = async (server: Reachable, plan: string) => {
  const created = await admin(server, "POST", "/admin/accounts", { plan })
  if (created.status !== 201) throw new Error(`create account: ${created.status} ${JSON.stringify(created.body)}`)
  return created.body as { account_id: string; key_id: string; api_key: string }
}

export const admin = async (server: Reachable, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: res.status, body: (await res.json()) as any, headers: res.headers }
}

export const api = async (server: Reachable, key: string | undefined, path: string, init: RequestInit = {}) => {
  const res = await fetch(`${server.url}${path}`, {
    ...init,
    headers: {
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...(init.headers as Record<string, string> | undefined)
    }
  })
  const text = await res.text()
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    body = text
  }
  return { status: res.status, body, headers: res.headers }
}

/** Asserts the spec's error envelope: status, code, a message, and the request id. */
export const expectError = (res: { status: number; body: any }, status: number, code: string) => {
  if (res.status !== status || res.body?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`)
  }
  if (typeof res.body.error.message !== "string" || res.body.error.message.length === 0) {
    throw new Error(`error without a message: ${JSON.stringify(res.body)}`)
  }
  if (!/^req_/.test(res.body.error.request_id))
    throw new Error(`error without a request id: ${JSON.stringify(res.body)}`)
}
