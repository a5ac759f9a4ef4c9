/**
 * The REST API over real HTTP (issue 5), against the service started as
 * `npm start` starts it (a child process, fresh DATA_DIR, fresh database),
 * with the load generator in this process (undici Pool, 16 connections):
 *
 * a. live scan (`POST /v2/scan`, 50 rows), authenticated and rate-limited, by
 *    an enterprise account whose per-minute limit the admin API sets above the
 *    load; only 200s count. Baseline: a bare `node:http` server (a child
 *    process) answering the same bytes, in the same run.
 * b. `GET /v2/tickers/{ticker}` against a bare `node:http` server answering
 *    the same JSON bytes, side by side.
 * a'. live scan with a distinct `q` on every request (three thresholds drawn per request, 50
 *    rows a page, so no answer cache can help), against the bare server answering a page of the
 *    same size (issue 14).
 * c. as-of scan, dates drawn uniformly over the history window, one request
 *    at a time: cold (a date outside the as-of cache) and warm (a date in it).
 *
 * d. the first minute after ready (issue 13): a fresh service is loaded with
 *    `GET /v2/tickers/{ticker}` from the moment `/readyz` first answers 200
 *    (polled every 20 ms) for 60 s, while it builds its background state (the
 *    flag history), then again once it is idle; prints both figures and the
 *    ratio first minute / settled (the goal: ≥ 0.8).
 *
 * a–c are measured once the service is idle after /readyz (it builds the flag
 * history in the background first). Besides throughput and latency, each
 * phase prints the server's CPU time per request (/proc), steadier on a
 * shared machine.
 *
 *   npm run bench:api              (PostgreSQL too when DATABASE_URL is set)
 *
 * BENCH_SECONDS (default 10) sets each measured load phase of a–c; BENCH_STORES
 * (`embedded,postgres`) which stores run, BENCH_PHASES (`first,scan,distinct,ticker,asof`)
 * which measurements (`first` starts a service of its own); BENCH_FIRST_SECONDS
 * (default 60) the window after ready and BENCH_SETTLED_SECONDS (default 20)
 * the settled measurement of d; BENCH_IDLE_SECONDS (default 300) the longest wait for the
 * service to go idle after ready; BENCH_SERVER_NODE_ARGS adds node flags to the
 * service (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it), BENCH_SERVER_LOG a file the
 * service's output is copied to when it stops (with `--trace-gc`, say).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { copyFileSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import pg from "pg"
import { Pool } from "undici"
import {
  cpuSeconds,
  machineCpu,
  minorFaults,
  quiesce,
  rssMb,
  stealPercent,
  threadCpuMsPer,
  threadCpuSeconds
} from "./support/process.js"

const ROOT = resolve(import.meta.dirname, "..")
const ADMIN_TOKEN = "bench-admin-token"
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARMUP_SECONDS = 3
const CONNECTIONS = 16
const STORES = (process.env.BENCH_STORES ?? "embedded,postgres").split(",")
const PHASES = (process.env.BENCH_PHASES ?? "first,scan,distinct,ticker,asof").split(",")
const FIRST_SECONDS = Number(process.env.BENCH_FIRST_SECONDS ?? 60)
const SETTLED_SECONDS = Number(process.env.BENCH_SETTLED_SECONDS ?? 20)
/** the longest wait for the service to go idle (a profiled service never quite does) */
const IDLE_WAIT_MS = Number(process.env.BENCH_IDLE_SECONDS ?? 300) * 1000

const freePort = () =>
  new Promise<number>((ok, fail) => {
    const s = createServer()
    s.once("error", fail)
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => ok(port))
    })
  })

interface Child {
  readonly url: string
  readonly child: ChildProcess
  readonly stop: () => Promise<void>
  readonly log: () => string
}

const stopChild = (child: ChildProcess) =>
  new Promise<void>((ok) => {
    if (child.exitCode !== null || child.signalCode !== null) return ok()
    child.once("exit", () => ok())
    child.kill("SIGTERM")
  })

let built = false
/** `npm start`'s build (its `prestart`): the service runs as built JavaScript, not under tsx's loader */
const buildOnce = () => {
  if (built) return
  execFileSync(process.execPath, ["scripts/build-server.mjs"], { cwd: ROOT, stdio: "inherit" })
  built = true
}

/**
 * The service, as `npm start` runs it (the build in `build/`, plain node); its log goes to a file, as a deployment's would.
 * Answers once `/readyz` is 200, or (`until: "listening"`) once `/healthz` is.
 */
const startVigil = async (env: Record<string, string>, until: "ready" | "listening" = "ready"): Promise<Child> => {
  const dataDir = mkdtempSync(join(tmpdir(), "vigil-bench-api-"))
  const logPath = join(dataDir, "vigil.log")
  const port = await freePort()
  const fd = openSync(logPath, "w")
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter((a) => a !== "")
  buildOnce()
  const child = spawn(process.execPath, [...nodeArgs, "--enable-source-maps", "build/main.js"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: String(port),
      DATA_DIR: join(dataDir, "db"),
      ADMIN_TOKEN,
      REFRESH_INTERVAL: "1h",
      ...env
    },
    stdio: ["ignore", fd, fd]
  })
  const url = `http://127.0.0.1:${port}`
  const log = () => readFileSync(logPath, "utf8")
  const deadline = performance.now() + 300_000
  try {
    while ((await fetch(`${url}/${until === "ready" ? "readyz" : "healthz"}`).catch(() => undefined))?.status !== 200) {
      if (child.exitCode !== null) throw new Error(`vigil exited:\n${log()}`)
      if (performance.now() > deadline) throw new Error(`vigil not ready in time:\n${log()}`)
      await new Promise((r) => setTimeout(r, 200))
    }
  } catch (error) {
    await stopChild(child)
    rmSync(dataDir, { recursive: true, force: true })
    throw error
  }
  return {
    url,
    child,
    log,
    stop: async () => {
      await stopChild(child)
      if (process.env.BENCH_SERVER_LOG) copyFileSync(logPath, process.env.BENCH_SERVER_LOG)
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

/** A bare node:http server in its own process, answering every request with `body`. */
const startBare = async (body: Uint8Array, contentType: string): Promise<Child> => {
  const dir = mkdtempSync(join(tmpdir(), "vigil-bench-bare-"))
  const bodyPath = join(dir, "body")
  writeFileSync(bodyPath, body)
  const port = await freePort()
  const script = `
    const http = require("node:http")
    const body = require("node:fs").readFileSync(${JSON.stringify(bodyPath)})
    const server = http.createServer((req, res) => {
      req.resume()
      req.on("end", () => res.writeHead(200, { "content-type": ${JSON.stringify(contentType)}, "content-length": body.length }).end(body))
    })
    server.keepAliveTimeout = 5000
    server.listen(${port}, "127.0.0.1", () => console.log("listening"))
    process.on("SIGTERM", () => process.exit(0))`
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] })
  await new Promise<void>((ok) => child.stdout!.once("data", () => ok()))
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    log: () => "",
    stop: async () => {
      await stopChild(child)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

interface Req {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly headers: Record<string, string>
  /** the same body every time, or one drawn per request */
  readonly body?: string | (() => string)
}

const bodyOf = (req: Req) => (typeof req.body === "function" ? req.body() : req.body)

const percentile = (sorted: ArrayLike<number>, p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]

interface LoadResult {
  readonly rps: number
  /** the server process's CPU time per counted request, ms */
  readonly cpuMs: number
  readonly ok: number
  readonly other: number
  readonly p50: number
  readonly p99: number
  /** the server's CPU ms per request by thread, the load generator's, the server's page faults per request */
  readonly breakdown: string
  /** the share of the machine's CPU the hypervisor stole during the phase, percent */
  readonly steal: number
}

/**
 * `CONNECTIONS` closed-loop clients over one undici Pool; counts only 200s
 * (and, when given, the 200s of each second in `perSecond`).
 */
const load = async (server: Child, req: Req, seconds: number, perSecond?: Array<number>): Promise<LoadResult> => {
  const origin = server.url
  const cpuBefore = cpuSeconds(server.child.pid!)
  const threadsBefore = threadCpuSeconds(server.child.pid!)
  const loadCpuBefore = process.cpuUsage()
  const faultsBefore = minorFaults(server.child.pid!)
  const machineBefore = machineCpu()
  const pool = new Pool(origin, { connections: CONNECTIONS, pipelining: 1 })
  const latencies = new Float64Array(4_000_000)
  let ok = 0
  let other = 0
  const started = performance.now()
  const deadline = started + seconds * 1000
  const client = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now()
      const res = await pool.request({
        method: req.method,
        path: req.path,
        headers: req.headers,
        ...(req.body === undefined ? {} : { body: bodyOf(req) })
      })
      await res.body.dump({ limit: 1 << 24 })
      const dt = performance.now() - t0
      if (res.statusCode === 200) {
        if (perSecond !== undefined) {
          const second = Math.floor((t0 + dt - started) / 1000)
          perSecond[second] = (perSecond[second] ?? 0) + 1
        }
        if (ok < latencies.length) latencies[ok] = dt
        ok++
      } else other++
    }
  }
  await Promise.all(Array.from({ length: CONNECTIONS }, client))
  const elapsed = (performance.now() - started) / 1000
  const cpuMs = ((cpuSeconds(server.child.pid!) - cpuBefore) * 1000) / Math.max(1, ok)
  const loadCpu = process.cpuUsage(loadCpuBefore)
  const breakdown =
    threadCpuMsPer(threadsBefore, threadCpuSeconds(server.child.pid!), ok) +
    ` (the load generator: ${((loadCpu.user + loadCpu.system) / 1000 / Math.max(1, ok)).toFixed(3)}); ` +
    `${((minorFaults(server.child.pid!) - faultsBefore) / Math.max(1, ok)).toFixed(1)} minor page faults a request`
  const steal = stealPercent(machineBefore, machineCpu())
  await pool.close()
  const sorted = latencies.slice(0, Math.min(ok, latencies.length)).sort()
  return {
    rps: ok / elapsed,
    cpuMs,
    ok,
    other,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    breakdown,
    steal
  }
}

const measure = async (server: Child, req: Req) => {
  await load(server, req, WARMUP_SECONDS)
  return load(server, req, SECONDS)
}

const fmt = (r: LoadResult) =>
  `${Math.round(r.rps).toLocaleString("en-US")} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ` +
  `server CPU ${r.cpuMs.toFixed(3)} ms/request` +
  (r.other > 0 ? ` (${r.other} non-200 not counted)` : "") +
  `; ${r.steal.toFixed(1)}% of the machine's CPU stolen meanwhile`

const call = async (url: string, method: string, path: string, headers: Record<string, string>, body?: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const bytes = new Uint8Array(await res.arrayBuffer())
  return { status: res.status, bytes, json: () => JSON.parse(new TextDecoder().decode(bytes)), headers: res.headers }
}

/** Side by side: the endpoint on Vigil, then the same bytes from a bare node:http server. */
const sideBySide = async (label: string, vigil: Child, req: Req) => {
  const body = bodyOf(req)
  const sample = await call(vigil.url, req.method, req.path, req.headers, body && JSON.parse(body))
  if (sample.status !== 200) throw new Error(`${label}: ${sample.status} ${new TextDecoder().decode(sample.bytes)}`)
  const bare = await startBare(sample.bytes, sample.headers.get("content-type") ?? "application/json")
  try {
    const onVigil = await measure(vigil, req)
    const onBare = await measure(bare, req)
    console.log(`  ${label} (${sample.bytes.length} B): vigil ${fmt(onVigil)}`)
    console.log(`  ${" ".repeat(label.length)}    vigil's CPU ms per request by thread: ${onVigil.breakdown}`)
    console.log(`  ${" ".repeat(label.length)}    bare node:http ${fmt(onBare)}`)
    console.log(
      `  ${" ".repeat(label.length)}    ratio vigil/bare: throughput ${((100 * onVigil.rps) / onBare.rps).toFixed(1)}%, ` +
        `CPU per request ${(onVigil.cpuMs / onBare.cpuMs).toFixed(1)}x`
    )
    return { onVigil, onBare }
  } finally {
    await bare.stop()
  }
}

const DAY_MS = 86_400_000
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** As-of scans one at a time: a cold date (outside the 8-date cache), then 5 warm reads of cached dates. */
const asOf = async (vigil: Child, headers: Record<string, string>, today: string) => {
  const first = Date.parse(`${today}T00:00:00Z`) - 364 * DAY_MS // HISTORY_DAYS=260 trading days
  const span = 364
  const rounds = Number(process.env.BENCH_ASOF_ROUNDS ?? 40)
  const recent: Array<string> = []
  const cold: Array<number> = []
  const warm: Array<number> = []
  const cpu = { cold: 0, warm: 0 }
  const pid = vigil.child.pid!
  const scan = async (asof: string, kind: "cold" | "warm") => {
    const cpu0 = cpuSeconds(pid)
    const t0 = performance.now()
    const res = await call(vigil.url, "POST", "/v2/scan", headers, { q: "price > 5", asof, limit: 50 })
    const dt = performance.now() - t0
    cpu[kind] += cpuSeconds(pid) - cpu0
    if (res.status !== 200) throw new Error(`as-of ${asof}: ${res.status} ${new TextDecoder().decode(res.bytes)}`)
    if (res.json().query.asof !== asof) throw new Error(`as-of ${asof}: not an as-of answer`)
    return dt
  }
  for (let i = 0; i < rounds; i++) {
    let date: string
    do date = isoDay(first + Math.floor(Math.random() * span) * DAY_MS)
    while (recent.includes(date))
    cold.push(await scan(date, "cold"))
    recent.push(date)
    // the last 4 cold dates: always among the 8 the as-of cache holds (LRU), whatever the warm reads touched
    if (recent.length > 4) recent.shift()
    for (let k = 0; k < 5; k++) warm.push(await scan(recent[Math.floor(Math.random() * recent.length)], "warm"))
  }
  const c = Float64Array.from(cold).sort()
  const w = Float64Array.from(warm).sort()
  console.log(
    `  as-of scan POST /v2/scan {q, asof, limit 50}, dates uniform over ${isoDay(first)}..${today}, one at a time:\n` +
      `    cold p50 ${percentile(c, 50).toFixed(0)} ms, p99 ${percentile(c, 99).toFixed(0)} ms, server CPU ${((1000 * cpu.cold) / c.length).toFixed(0)} ms/request (${c.length})\n` +
      `    warm p50 ${percentile(w, 50).toFixed(2)} ms, p99 ${percentile(w, 99).toFixed(2)} ms, server CPU ${((1000 * cpu.warm) / w.length).toFixed(2)} ms/request (${w.length})`
  )
}

const LIMIT = 100_000_000

/** An enterprise account whose per-minute limit is above any load here; its key's headers. */
const benchAccount = async (vigil: Child) => {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
  const created = await call(vigil.url, "POST", "/admin/accounts", admin, { plan: "enterprise" })
  if (created.status !== 201) throw new Error(`create account: ${created.status}`)
  const { account_id, api_key } = created.json()
  const patched = await call(vigil.url, "PATCH", `/admin/accounts/${account_id}`, admin, {
    plan: "enterprise",
    rate_limit_per_minute: LIMIT
  })
  if (patched.status !== 200) throw new Error(`patch account: ${patched.status}`)
  return { authorization: `Bearer ${api_key}` }
}

/**
 * d. The first minute after ready: a fresh service; the account is made as
 * soon as the admin API answers (the migrations ran), then `/readyz` is
 * polled every 20 ms and the load starts at its first 200.
 */
const firstMinute = async (label: string, env: Record<string, string>) => {
  const startedAt = performance.now()
  const vigil = await startVigil(env, "listening")
  try {
    let auth: Record<string, string> | undefined
    while (auth === undefined) {
      auth = await benchAccount(vigil).catch(() => undefined)
      if (auth === undefined) await new Promise((r) => setTimeout(r, 100))
    }
    while ((await fetch(`${vigil.url}/readyz`).catch(() => undefined))?.status !== 200) {
      if (vigil.child.exitCode !== null) throw new Error(`vigil exited:\n${vigil.log()}`)
      await new Promise((r) => setTimeout(r, 20))
    }
    const ready = (performance.now() - startedAt) / 1000
    const req: Req = { method: "GET", path: "/v2/tickers/AAPL", headers: auth }
    const perSecond: Array<number> = []
    const first = await load(vigil, req, FIRST_SECONDS, perSecond)
    const memoryFirst = rssMb(vigil.child.pid!)
    const idle = await quiesce(vigil.child.pid!, IDLE_WAIT_MS)
    const built = /"signal flag history ready".*?"seconds":([\d.]+)/.exec(vigil.log())?.[1]
    await load(vigil, req, WARMUP_SECONDS)
    const settled = await load(vigil, req, SETTLED_SECONDS)
    const memorySettled = rssMb(vigil.child.pid!)
    const tens: Array<string> = []
    for (let t = 0; t < FIRST_SECONDS; t += 10) {
      let n = 0
      for (let k = t; k < Math.min(t + 10, FIRST_SECONDS); k++) n += perSecond[k] ?? 0
      tens.push(Math.round(n / Math.min(10, FIRST_SECONDS - t)).toLocaleString("en-US"))
    }
    console.log(
      `${label}: first minute after ready (ready in ${ready.toFixed(1)} s; flag history built ${built ?? "?"} s after ready)\n` +
        `  GET /v2/tickers/AAPL, first ${FIRST_SECONDS} s after /readyz 200: ${fmt(first)}\n` +
        `    req/s per 10 s: ${tens.join(", ")}\n` +
        `  settled (idle ${idle.toFixed(0)} s later, ${WARMUP_SECONDS} s warm-up + ${SETTLED_SECONDS} s): ${fmt(settled)}\n` +
        `  ratio first minute / settled: throughput ${(first.rps / settled.rps).toFixed(2)}, p99 ${(first.p99 / settled.p99).toFixed(1)}x\n` +
        `  server rss: ${memoryFirst.now.toFixed(0)} MB after the first minute, ${memorySettled.now.toFixed(0)} MB settled, peak ${memorySettled.peak.toFixed(0)} MB`
    )
  } finally {
    await vigil.stop()
  }
}

const runStore = async (label: string, env: Record<string, string>) => {
  if (PHASES.includes("first")) await firstMinute(label, env)
  if (!PHASES.some((p) => p !== "first")) return
  const startedAt = performance.now()
  const vigil = await startVigil(env)
  const ready = (performance.now() - startedAt) / 1000
  const idle = await quiesce(vigil.child.pid!, IDLE_WAIT_MS)
  console.log(`${label}: ready in ${ready.toFixed(1)} s, idle ${idle.toFixed(0)} s later`)
  try {
    const auth = await benchAccount(vigil)
    const limit = LIMIT

    const scanBody = JSON.stringify({ q: "price > 5 AND market_cap > 1000000000", limit: 50 })
    const scanReq: Req = {
      method: "POST",
      path: "/v2/scan",
      headers: { ...auth, "content-type": "application/json" },
      body: scanBody
    }
    const probe = await call(vigil.url, "POST", "/v2/scan", auth, JSON.parse(scanBody))
    const page = probe.json()
    if (page.count !== 50) throw new Error(`the scan gives ${page.count} rows, not 50`)
    if (probe.headers.get("x-ratelimit-limit") !== String(limit)) throw new Error("rate limit not applied")
    if (PHASES.includes("scan")) await sideBySide("live scan POST /v2/scan", vigil, scanReq)
    if (PHASES.includes("distinct")) {
      // a q nobody sent before on every request: no answer cache can help
      const distinct = () =>
        JSON.stringify({
          q: `price > ${(1 + Math.random() * 20).toFixed(2)} AND market_cap > ${Math.round(1e8 + Math.random() * 9e8)} AND rsi_14 < ${(50 + Math.random() * 40).toFixed(1)}`,
          limit: 50
        })
      await sideBySide("live scan, distinct q", vigil, { ...scanReq, body: distinct })
    }
    if (PHASES.includes("ticker")) {
      await sideBySide("GET /v2/tickers/AAPL", vigil, { method: "GET", path: "/v2/tickers/AAPL", headers: auth })
    }
    if (PHASES.includes("asof")) await asOf(vigil, auth, String(page.as_of).slice(0, 10))
  } finally {
    await vigil.stop()
  }
}

console.log(
  `bench:api: ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per load phase; load generator in this process`
)
if (STORES.includes("embedded")) await runStore("embedded (PGlite, fresh data dir)", {})
const url = process.env.DATABASE_URL
if (url && STORES.includes("postgres")) {
  const name = `vigil_bench_api_${Date.now()}`
  const adminDb = new pg.Client({ connectionString: url })
  await adminDb.connect()
  await adminDb.query(`CREATE DATABASE ${name}`)
  try {
    const u = new URL(url)
    u.pathname = `/${name}`
    await runStore("PostgreSQL (fresh database)", { DATABASE_URL: u.toString() })
  } finally {
    await adminDb.query(`DROP DATABASE ${name} WITH (FORCE)`)
    await adminDb.end()
  }
}
