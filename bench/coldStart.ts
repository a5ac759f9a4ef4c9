/**
 * Cold start of the service to `/readyz` 200 with the default history, as
 * `npm start` runs it (its `prestart` build once first, timed apart; then
 * the start script's node command), on the embedded store (a fresh DATA_DIR) and on PostgreSQL (a fresh database), and
 * resident memory once ready. The baseline in the same run is the time to the
 * first `/healthz` answer (process start, no market).
 *
 * Phases, from the service's log (times since the process was spawned): when
 * the migrations were applied (the database is ready), when the market began
 * generating its history, began committing the indicators, and was ready.
 *
 *   npm run bench:start            (PostgreSQL too when DATABASE_URL is set)
 *
 * BENCH_RUNS (default 1) repeats each store's start and prints min and median.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import pg from "pg"
import { buildService, nodeScript } from "../test/support/serviceBuild.js"
import { cpuSeconds, rssMb } from "./support/process.js"

const ROOT = resolve(import.meta.dirname, "..")

const RUNS = Number(process.env.BENCH_RUNS ?? 1)

/** what node runs for `npm start` (package.json), after its build, made once here first */
const START_ARGS = nodeScript("start")
console.log(`prestart build: ${buildService().toFixed(2)} s`)

/** Seconds from `spawnedAt` (epoch ms) to the first log line with `message` (and `phase`, when given). */
const phaseAt = (log: string, spawnedAt: number, message: string, phase?: string): number | undefined => {
  for (const line of log.split("\n")) {
    if (!line.includes(`"message":"${message}"`)) continue
    if (phase !== undefined && !line.includes(`"phase":"${phase}","percent":0}`)) continue
    const at = /"timestamp":"([^"]+)"/.exec(line)?.[1]
    if (at !== undefined) return (Date.parse(at) - spawnedAt) / 1000
  }
  return undefined
}

interface Start {
  readonly ready: number
  readonly healthy: number
  readonly rssMb: number
  /** CPU seconds (user + system, every thread) the process used until ready */
  readonly cpu: number
  readonly phases: Record<string, number | undefined>
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]

const run = async (label: string, env: Record<string, string>) => {
  const starts: Array<Start> = []
  for (let k = 0; k < RUNS; k++) starts.push(await start(label, env))
  const figure = (pick: (s: Start) => number | undefined) => {
    const xs = starts.map(pick).filter((x): x is number => x !== undefined)
    return xs.length === 0
      ? "?"
      : RUNS === 1
        ? xs[0].toFixed(1)
        : `${Math.min(...xs).toFixed(1)}/${median(xs).toFixed(1)}`
  }
  const phase = (name: string) => figure((s) => s.phases[name])
  console.log(
    `${label}: ready in ${figure((s) => s.ready)} s (first /healthz at ${figure((s) => s.healthy)} s; ratio ${figure((s) => s.ready / s.healthy)}x); rss when ready ${figure((s) => s.rssMb)} MB; CPU until ready ${figure((s) => s.cpu)} s` +
      (RUNS > 1 ? ` (min/median of ${RUNS})` : "") +
      `\n  phases (s since spawn): migrations applied ${phase("migrations")}, market history from ${phase("history")}, ` +
      `indicators from ${phase("indicators")}, market ready ${phase("market")}; ` +
      `market load ${figure((s) => (s.phases.market ?? Number.NaN) - (s.phases.history ?? Number.NaN))} s`
  )
}

const start = async (label: string, env: Record<string, string>): Promise<Start> => {
  const dataDir = mkdtempSync(join(tmpdir(), "vigil-bench-"))
  const spawnedAt = Date.now()
  const started = performance.now()
  const child = spawn(process.execPath, START_ARGS, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", PORT: "0", DATA_DIR: dataDir, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  child.stdout.on("data", (d) => (out += d))
  child.stderr.on("data", (d) => (out += d))
  let url: string | undefined
  let healthy: number | undefined
  let ready: number | undefined
  while (ready === undefined && performance.now() - started < 300_000) {
    await new Promise((r) => setTimeout(r, 100))
    url ??= /Listening on (http:\/\/[^"\s]+)/.exec(out)?.[1]
    if (url === undefined) continue
    if (healthy === undefined && (await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200) {
      healthy = performance.now() - started
    }
    if ((await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200) ready = performance.now() - started
  }
  const cpu = cpuSeconds(child.pid!)
  const rss = rssMb(child.pid!).now
  child.kill("SIGTERM")
  await new Promise((r) => child.once("exit", r))
  rmSync(dataDir, { recursive: true, force: true })
  if (ready === undefined) throw new Error(`${label}: not ready in time\n${out}`)
  return {
    ready: ready / 1000,
    healthy: (healthy ?? ready) / 1000,
    rssMb: rss,
    cpu,
    phases: {
      migrations: phaseAt(out, spawnedAt, "migrations applied"),
      history: phaseAt(out, spawnedAt, "market loading", "history"),
      indicators: phaseAt(out, spawnedAt, "market loading", "indicators"),
      market: phaseAt(out, spawnedAt, "market ready")
    }
  }
}

await run("embedded (PGlite)", {})
const url = process.env.DATABASE_URL
if (url) {
  const name = `vigil_bench_${Date.now()}`
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  try {
    const u = new URL(url)
    u.pathname = `/${name}`
    await run("PostgreSQL", { DATABASE_URL: u.toString() })
  } finally {
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`)
    await admin.end()
  }
}
