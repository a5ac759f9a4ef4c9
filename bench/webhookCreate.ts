/**
 * Issue 13, item 7: `POST /v2/webhooks` from outside. The service as `npm start` runs it (a child
 * process, fresh data), one enterprise account (no webhook cap; its per-minute limit raised by the
 * admin API above the load), and `--clients` closed-loop clients (64) creating `in_app`
 * subscriptions until `--webhooks` (100,000) exist, each with its own `Idempotency-Key` (as a
 * careful client sends; `--keys=false` leaves it out). Conditions come from the webhook benchmarks' mix
 * (bench/support/conditions.ts), so the evaluator groups them as it would real ones.
 *
 * Printed per `--step` (10,000) creates: creates/s and p50/p99 latency; then the last step against
 * the first (the baseline of the same run: a create must not slow down as webhooks accumulate), and
 * before the creates a baseline of the same clients reading one webhook (`GET /v2/webhooks/{id}`):
 * what the HTTP path, authentication and rate limit cost without writing.
 *
 *   npm run bench:webhook-create
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:webhook-create
 *
 * Embedded (PGlite, the default) always; PostgreSQL too when DATABASE_URL is set, in a schema of
 * its own dropped after. BENCH_STORES=embedded or =postgres runs one.
 *
 * First, per store, the same creates on the store alone (`Webhooks.create` from `--clients` fibers in
 * this process, no HTTP; `--store-webhooks`, 20,000; 0 skips it): what the database side of a create
 * costs, against which the service's figures show what the HTTP path adds.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Redacted } from "effect"
import { Pool } from "undici"
import { pgliteLayer, postgresLayer } from "../src/store/Database.js"
import { runMigrations } from "../src/store/migrate.js"
import { Webhooks } from "../src/store/webhooks.js"
import { admin, startServer, waitReady } from "../test/support/server.js"
import { inAppConfig } from "../test/support/webhooks.js"
import { benchArgs } from "./support/args.js"
import { conditionMaker } from "./support/conditions.js"
import { withPgSchema } from "./support/pgSchema.js"
import { cpuSeconds, quiesce } from "./support/process.js"

const args = benchArgs()
const N = Number(args.get("webhooks") ?? 100_000)
const CLIENTS = Number(args.get("clients") ?? 64)
const STEP = Number(args.get("step") ?? 10_000)
const BASELINE_SECONDS = Number(args.get("baseline-seconds") ?? 5)
const STORES = (process.env.BENCH_STORES ?? "embedded,postgres").split(",")
/** `--keys=false`: creates without an Idempotency-Key */
const KEYS = args.get("keys") !== "false"
const STORE_N = Number(args.get("store-webhooks") ?? 20_000)

const quantile = (sorted: Float64Array, q: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
const fmt = (n: number) => Math.round(n).toLocaleString("en-US")

interface Step {
  readonly rate: number
  readonly p50: number
  readonly p99: number
  /** the service's CPU time per create, ms (steadier than the rate on a shared machine) */
  readonly cpuMs: number
}

const stepLine = (label: string, s: Step) =>
  `${label}: ${fmt(s.rate)} creates/s, p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, server CPU ${s.cpuMs.toFixed(2)} ms/create`

/** The store alone: `STORE_N` creates from `CLIENTS` fibers, the rate of each half. */
const storeAlone = (label: string, db: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* Webhooks
    yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_bench', 'enterprise', 1, 1)`
    let seed = 17
    const condition = conditionMaker(() => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff
      return seed / 0x7fffffff
    })
    const half = Math.floor(STORE_N / 2)
    const marks: Array<number> = [performance.now()]
    let next = 0
    let done = 0
    yield* Effect.all(
      Array.from({ length: CLIENTS }, () =>
        Effect.gen(function* () {
          for (let i = next++; i < STORE_N; i = next++) {
            const q = condition()
            yield* store.create("acc_bench", `wh_store_${i}`, inAppConfig(`store ${i}`, q), null)
            if (++done === half || done === STORE_N) marks.push(performance.now())
          }
        })
      ),
      { concurrency: "unbounded" }
    )
    const rate = (n: number, ms: number) => fmt(n / (ms / 1000))
    const first = half / ((marks[1]! - marks[0]!) / 1000)
    const last = (STORE_N - half) / ((marks[2]! - marks[1]!) / 1000)
    console.log(
      `${label}, the store alone (${CLIENTS} fibers, no HTTP): first ${fmt(half)} ${rate(half, marks[1]! - marks[0]!)} creates/s, last ${fmt(STORE_N - half)} ${rate(STORE_N - half, marks[2]! - marks[1]!)} creates/s (× ${(last / first).toFixed(2)})`
    )
  }).pipe(
    Effect.provide(
      Webhooks.Default.pipe(
        Layer.provideMerge(Layer.effectDiscard(Effect.orDie(runMigrations)).pipe(Layer.provideMerge(db)))
      )
    ),
    Effect.scoped,
    Effect.orDie,
    Effect.runPromise
  )

const runStore = async (label: string, env: Record<string, string>) => {
  if (N === 0) return
  const t0 = performance.now()
  const server = await startServer({ REFRESH_INTERVAL: "1h", ...env }, 300_000, {
    keepOutput: 200_000,
    // BENCH_SERVER_NODE_ARGS: node flags for the service (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`)
    nodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter((a) => a !== "")
  })
  try {
    await waitReady(server, 300_000)
    const ready = (performance.now() - t0) / 1000
    const pid = server.process.pid!
    const idle = await quiesce(pid)
    console.log(`${label}: ready in ${ready.toFixed(1)} s, idle ${idle.toFixed(0)} s later`)
    const created = await admin(server, "POST", "/admin/accounts", { plan: "enterprise" })
    if (created.status !== 201) throw new Error(`create account: ${created.status} ${JSON.stringify(created.body)}`)
    const { account_id, api_key } = created.body as { account_id: string; api_key: string }
    const patched = await admin(server, "PATCH", `/admin/accounts/${account_id}`, {
      plan: "enterprise",
      rate_limit_per_minute: 100_000_000
    })
    if (patched.status !== 200) throw new Error(`patch account: ${patched.status}`)

    const pool = new Pool(server.url, { connections: CLIENTS, pipelining: 1 })
    const headers = { authorization: `Bearer ${api_key}`, "content-type": "application/json" }
    let seed = 13
    const rand = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff
      return seed / 0x7fffffff
    }
    const condition = conditionMaker(rand)
    const run = `${Date.now().toString(36)}`
    let resent = 0
    /** one create; a connection reset is answered by sending it again with the same Idempotency-Key */
    const create = async (i: number): Promise<{ id: string }> => {
      const body = JSON.stringify({ q: condition(), channel: "in_app", name: `bench ${i}` })
      for (let attempt = 1; ; attempt++) {
        try {
          const res = await pool.request({
            method: "POST",
            path: "/v2/webhooks",
            headers: KEYS ? { ...headers, "idempotency-key": `bench-${run}-${i}` } : headers,
            body
          })
          const text = await res.body.text()
          if (res.statusCode === 409 && attempt < 200) {
            // the reset request is still running: its answer is replayed once it is done
            await new Promise((r) => setTimeout(r, 50))
            continue
          }
          if (res.statusCode !== 201 && res.statusCode !== 200)
            throw new Error(`create ${i}: ${res.statusCode} ${text}`)
          return JSON.parse(text) as { id: string }
        } catch (error) {
          const code = (error as { code?: string }).code
          // without a key a create sent again may be made twice: the bench counts it once, and says so
          if (attempt >= 3 || (code !== "ECONNRESET" && code !== "UND_ERR_SOCKET")) throw error
          resent++
        }
      }
    }

    // the baseline: the same clients reading one webhook (HTTP, authentication, rate limit, one row)
    const probe = await create(-1)
    const readCpu = cpuSeconds(pid)
    const readLatencies: Array<number> = []
    const readUntil = performance.now() + BASELINE_SECONDS * 1000
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < readUntil) {
          const r0 = performance.now()
          const res = await pool.request({ method: "GET", path: `/v2/webhooks/${probe.id}`, headers })
          await res.body.dump()
          if (res.statusCode !== 200) throw new Error(`read: ${res.statusCode}`)
          readLatencies.push(performance.now() - r0)
        }
      })
    )
    const reads = Float64Array.from(readLatencies).sort()
    console.log(
      `  baseline, ${CLIENTS} clients reading one webhook for ${BASELINE_SECONDS} s: ${fmt(reads.length / BASELINE_SECONDS)} reads/s, p50 ${quantile(reads, 0.5).toFixed(1)} ms, p99 ${quantile(reads, 0.99).toFixed(1)} ms, server CPU ${(((cpuSeconds(pid) - readCpu) * 1000) / reads.length).toFixed(2)} ms/read`
    )

    // the creates: `CLIENTS` closed loops drawing the next index; a step ends when its last create is answered
    const steps: Array<Step> = []
    const latencies = new Float64Array(N)
    let next = 0
    let done = 0
    let stepStart = performance.now()
    let stepCpu = cpuSeconds(pid)
    let stepLatencies: Array<number> = []
    const started = performance.now()
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let i = next++; i < N; i = next++) {
          const c0 = performance.now()
          await create(i)
          const dt = performance.now() - c0
          latencies[i] = dt
          stepLatencies.push(dt)
          done++
          if (done % STEP === 0 || done === N) {
            const now = performance.now()
            const sorted = Float64Array.from(stepLatencies).sort()
            const cpu = cpuSeconds(pid)
            const s = {
              cpuMs: ((cpu - stepCpu) * 1000) / sorted.length,
              rate: sorted.length / ((now - stepStart) / 1000),
              p50: quantile(sorted, 0.5),
              p99: quantile(sorted, 0.99)
            }
            steps.push(s)
            console.log(`  ${stepLine(`${fmt(done - sorted.length + 1)}–${fmt(done)}`, s)}`)
            stepStart = now
            stepCpu = cpu
            stepLatencies = []
          }
        }
      })
    )
    const total = (performance.now() - started) / 1000
    await pool.close()
    const all = latencies.sort()
    const first = steps[0]!
    const last = steps[steps.length - 1]!
    console.log(
      `  all ${fmt(N)}: ${fmt(N / total)} creates/s over ${total.toFixed(1)} s, p50 ${quantile(all, 0.5).toFixed(1)} ms, p99 ${quantile(all, 0.99).toFixed(1)} ms`
    )
    if (resent > 0) {
      console.log(
        `  ${resent} creates sent again after a connection reset (${KEYS ? "same Idempotency-Key" : "without a key: perhaps made twice"})`
      )
    }
    console.log(
      `  last step / first step: rate ${(last.rate / first.rate).toFixed(2)}×, p50 ${(last.p50 / first.p50).toFixed(2)}×, server CPU per create ${(last.cpuMs / first.cpuMs).toFixed(2)}× (flat: about 1)`
    )
    const listed = await fetch(`${server.url}/v2/webhooks?limit=1`, { headers })
    if (listed.status !== 200) throw new Error(`list: ${listed.status}`)
    return { rate: N / total, first, last }
  } finally {
    await server.stop()
  }
}

console.log(
  `bench:webhook-create: ${fmt(N)} creates, ${CLIENTS} clients, steps of ${fmt(STEP)}, ${KEYS ? "each with an Idempotency-Key" : "no Idempotency-Key"}; node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`
)
if (STORES.includes("embedded")) {
  if (STORE_N > 0) {
    const dir = mkdtempSync(join(tmpdir(), "vigil-bench-store-"))
    try {
      await storeAlone("embedded (PGlite, fresh data dir)", pgliteLayer(dir))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  await runStore("embedded (PGlite, fresh data dir)", {})
}
const databaseUrl = process.env.DATABASE_URL
if (databaseUrl !== undefined && databaseUrl !== "" && STORES.includes("postgres")) {
  if (STORE_N > 0) {
    await withPgSchema(databaseUrl, (url) =>
      storeAlone("PostgreSQL (a schema of its own)", postgresLayer(Redacted.make(url)))
    )
  }
  await withPgSchema(databaseUrl, (url) => runStore("PostgreSQL (a schema of its own)", { DATABASE_URL: url }))
}
