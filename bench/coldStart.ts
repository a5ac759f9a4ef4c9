/**
 * Cold start of the service to `/readyz` 200 with the default history, on the
 * embedded store (a fresh DATA_DIR) and on PostgreSQL (a fresh database), and
 * resident memory once ready. The baseline in the same run is the time to the
 * first `/healthz` answer (process start, no market).
 *
 *   npm run bench:start            (PostgreSQL too when DATABASE_URL is set)
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import pg from "pg"

const ROOT = resolve(import.meta.dirname, "..")

const run = async (label: string, env: Record<string, string>) => {
  const dataDir = mkdtempSync(join(tmpdir(), "vigil-bench-"))
  const started = performance.now()
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
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
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8")
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  child.kill("SIGTERM")
  await new Promise((r) => child.once("exit", r))
  rmSync(dataDir, { recursive: true, force: true })
  if (ready === undefined) throw new Error(`${label}: not ready in time\n${out}`)
  console.log(
    `${label}: ready in ${(ready / 1000).toFixed(1)} s (first /healthz at ${((healthy ?? 0) / 1000).toFixed(1)} s; ratio ${(ready / (healthy ?? ready)).toFixed(1)}x); rss when ready ${(rssKb / 1024).toFixed(0)} MB`
  )
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
