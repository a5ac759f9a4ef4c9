/**
 * Issue 15, item 7: evaluation on 1 runner and on 3, in the same run. Each configuration gets a
 * schema of its own on PostgreSQL, `--runners` processes with `VIGIL_ROLE=runner` and one API
 * process (`VIGIL_ROLE=api`, Redis) — all on this machine — and `--webhooks` (100,000) active
 * realtime webhooks in `bench:webhooks`' mix, inserted by SQL. After a first refresh (actors
 * start, every webhook evaluated once), `--ticks` refreshes through the API process, each
 * answered once every slice committed its tick, timed once the first refresh's deliveries (most
 * webhooks fire on their first evaluation) have all been sent and two more ticks have warmed the
 * runners up. Printed per configuration:
 *
 * - tick wall time p50/p99: from the singleton issuing the tick (`ticks.created_at`) to the last
 *   slice's commit of it (`slice_ticks.committed_at`), and the refresh as the API answers it;
 * - CPU seconds per tick summed over the runners (their `process_cpu_*_seconds_total`);
 * - each runner's resident memory at the end and at its highest (VmHWM), and the
 *   webhooks its actors hold.
 *
 * Goals: 3 runners' summed CPU per tick ≤ 1.25× one runner's; tick p99 ≤ 1 s; a runner holding
 * 100,000 webhooks ≤ 1.5 GiB resident. Every runner also refreshes its own market to each tick
 * (the API process too): that part of a tick is paid once per process, not shared.
 *
 *   npm run bench:cluster
 *   npm run bench:cluster -- --webhooks=100000 --ticks=10 --runners=1,3
 */
import { loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import pg from "pg"
import { ADMIN_TOKEN, type RunningServer, startServer, waitReady } from "../test/support/server.js"
import { benchArgs } from "./support/args.js"
import { withPgSchema } from "./support/pgSchema.js"
import { cpuSeconds, rssMb } from "./support/process.js"
import { quantile, seededRandom } from "./support/stats.js"
import { insertWebhookMix } from "./support/webhookMix.js"

const args = benchArgs()
const N = Number(args.get("webhooks") ?? 100_000)
const TICKS = Number(args.get("ticks") ?? 10)
const CONFIGS = (args.get("runners") ?? "1,3").split(",").map(Number)
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"

const rand = seededRandom(11)
const ms = (x: number) => `${x.toFixed(0)} ms`
const mib = (mb: number) => `${mb.toFixed(0)} MiB`
const metrics = async (s: RunningServer) => (await fetch(`${s.url}/metrics`)).text()
const read = (text: string, name: string) =>
  Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, "m").exec(text)?.[1] ?? Number.NaN)
const cpuOf = (runners: ReadonlyArray<RunningServer>) => runners.reduce((sum, r) => sum + cpuSeconds(r.process.pid!), 0)

interface Result {
  readonly runners: number
  readonly tick: ReadonlyArray<number>
  readonly refresh: ReadonlyArray<number>
  readonly cpuPerTick: number
  /** the API process's CPU per timed tick (it follows the ticks too: its market refreshes to each) */
  readonly apiCpuPerTick: number
  /** the same, before any webhook existed (the baseline) */
  readonly bareCpu: number
  /** one market refresh to a tick, per runner (ms) */
  readonly marketMs: number
  readonly rss: ReadonlyArray<{ readonly now: number; readonly peak: number; readonly webhooks: number }>
  readonly firstMs: number
  /** until the first evaluation's deliveries were all sent */
  readonly drainMs: number
}

const runnerNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter((a) => a !== "")

const run = (runners: number): Promise<Result> =>
  withPgSchema(DATABASE_URL, async (url) => {
    const env = { DATABASE_URL: url, REDIS_URL, REFRESH_INTERVAL: "1h", SIGNAL_FLAG_HISTORY: "lazy" }
    const started: Array<RunningServer> = []
    try {
      for (let i = 0; i < runners; i++) {
        // BENCH_SERVER_NODE_ARGS: node flags for the runners (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`)
        const r = await startServer({ ...env, VIGIL_ROLE: "runner" }, 300_000, { nodeArgs: runnerNodeArgs })
        started.push(r)
        await waitReady(r, 300_000)
      }
      const runnerList = [...started]
      const api = await startServer({ ...env, VIGIL_ROLE: "api" }, 300_000)
      started.push(api)
      await waitReady(api, 300_000)
      // every slice placed before the webhooks come
      for (;;) {
        const held = await Promise.all(runnerList.map(async (r) => read(await metrics(r), "webhook_slices_held")))
        if (held.reduce((a, b) => a + b, 0) === 1024) break
        await new Promise((r) => setTimeout(r, 200))
      }
      const refresh = async () => {
        const t = performance.now()
        const res = await fetch(`${api.url}/admin/refresh`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` }
        })
        const body = (await res.json()) as { as_of?: string }
        return { status: res.status, wall: performance.now() - t, asOf: body.as_of }
      }
      /** the runners' market refreshes so far: seconds, count (summed over the runners) */
      const marketRefreshes = async () => {
        let seconds = 0
        let count = 0
        for (const r of runnerList) {
          const text = await metrics(r)
          seconds += read(text, "market_refresh_duration_seconds_sum")
          count += read(text, "market_refresh_duration_seconds_count")
        }
        return { seconds, count }
      }
      // the baseline, same processes before any webhook exists: what a tick costs the runners
      // without subscriptions (each refreshes its market to the tick, reads the store, commits)
      for (let k = 0; k < 2; k++) await refresh()
      const bare0 = cpuOf(runnerList)
      const m0 = await marketRefreshes()
      for (let k = 0; k < TICKS; k++) await refresh()
      const bareCpu = (cpuOf(runnerList) - bare0) / TICKS
      const m1 = await marketRefreshes()
      const marketMs = ((m1.seconds - m0.seconds) / Math.max(1, m1.count - m0.count)) * 1000
      await insertWebhookMix(url, N, rand)
      const t0 = performance.now()
      // the first: every webhook loaded and evaluated once (answered 503 when it takes over 30 s)
      while ((await refresh()).status !== 200) {}
      const firstMs = performance.now() - t0
      const db = new pg.Client({ connectionString: url })
      await db.connect()
      // the first evaluation fires most webhooks: their deliveries (in-app notifications) are sent
      // before the steady ticks are timed, or the ticks would measure the delivery flood
      const d0 = performance.now()
      for (;;) {
        const { rows } = await db.query("SELECT count(*)::int AS n FROM deliveries WHERE status = 'pending'")
        if (rows[0].n === 0) break
        await new Promise((r) => setTimeout(r, 500))
      }
      const drainMs = performance.now() - d0
      // two ticks of warm-up: the first after a start reads every webhook's key again (a sync
      // reads from where the previous one began, so a change committed late is still seen)
      for (let k = 0; k < 2; k++) await refresh()
      const api0 = cpuSeconds(api.process.pid!)
      const cpu0 = cpuOf(runnerList)
      const walls: Array<number> = []
      const ticks: Array<number> = []
      for (let k = 0; k < TICKS; k++) {
        const r = await refresh()
        if (r.status !== 200 || r.asOf === undefined) throw new Error(`refresh answered ${r.status}`)
        walls.push(r.wall)
        const rows = await db.query(
          `SELECT (SELECT max(s.committed_at) FROM slice_ticks s WHERE s.seq = t.seq) - t.created_at AS ms,
             (SELECT count(*) FROM slice_ticks s WHERE s.seq = t.seq)::int AS slices
           FROM ticks t WHERE t.as_of = $1`,
          [Date.parse(r.asOf)]
        )
        if (rows.rows[0]?.slices !== 1024) throw new Error(`tick ${r.asOf}: ${rows.rows[0]?.slices} slices`)
        ticks.push(Number(rows.rows[0].ms))
      }
      const cpu1 = cpuOf(runnerList)
      const apiCpuPerTick = (cpuSeconds(api.process.pid!) - api0) / TICKS
      await db.end()
      const rss = await Promise.all(
        runnerList.map(async (r) => ({
          ...rssMb(r.process.pid!),
          webhooks: read(await metrics(r), "webhook_actors_alive")
        }))
      )
      // the runners' slow ticks, with their phases (the service logs any over 1 s)
      for (const [i, r] of runnerList.entries()) {
        for (const line of r.logs().split("\n"))
          if (line.includes("slow webhook tick")) console.log(`  runner ${i + 1}: ${line}`)
      }
      return {
        runners,
        tick: ticks,
        refresh: walls,
        cpuPerTick: (cpu1 - cpu0) / TICKS,
        apiCpuPerTick,
        bareCpu,
        marketMs,
        rss,
        firstMs,
        drainMs
      }
    } finally {
      await Promise.all(started.map((s) => s.stop()))
    }
  })

const main = async () => {
  console.log(
    `bench:cluster: ${N.toLocaleString("en-US")} webhooks, ${TICKS} ticks, runners ${CONFIGS.join(" and ")}; node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`
  )
  const results: Array<Result> = []
  for (const n of CONFIGS) {
    const r = await run(n)
    results.push(r)
    console.log(
      `${n} runner${n === 1 ? "" : "s"}: first refresh ${ms(r.firstMs)}, its deliveries sent ${ms(r.drainMs)} later; tick (singleton → last slice commit) p50 ${ms(quantile(r.tick, 0.5))}, p99 ${ms(quantile(r.tick, 0.99))}; refresh as answered p50 ${ms(quantile(r.refresh, 0.5))}, p99 ${ms(quantile(r.refresh, 0.99))}; CPU per tick over the runners ${r.cpuPerTick.toFixed(3)} s`
    )
    console.log(`  ticks: ${r.tick.map((t) => t.toFixed(0)).join(", ")} ms`)
    console.log(`  the API process (not in the runners' sum): CPU per tick ${r.apiCpuPerTick.toFixed(3)} s`)
    console.log(
      `  without webhooks (baseline, same processes): CPU per tick ${r.bareCpu.toFixed(3)} s, of which a market refresh to the tick ${r.marketMs.toFixed(0)} ms per runner; the webhooks' part ${(r.cpuPerTick - r.bareCpu).toFixed(3)} s`
    )
    for (const [i, x] of r.rss.entries()) {
      console.log(
        `  runner ${i + 1}: ${x.webhooks.toLocaleString("en-US")} webhooks, rss ${mib(x.now)} (highest ${mib(x.peak)})`
      )
    }
  }
  const one = results.find((r) => r.runners === 1)
  const three = results.find((r) => r.runners === 3)
  if (one !== undefined && three !== undefined) {
    const ratio = three.cpuPerTick / one.cpuPerTick
    const p99 = Math.max(quantile(one.tick, 0.99), quantile(three.tick, 0.99))
    const peak = Math.max(...one.rss.map((x) => x.peak))
    const webhooksRatio = (three.cpuPerTick - three.bareCpu) / (one.cpuPerTick - one.bareCpu)
    console.log(
      `goals: 3 runners' CPU per tick ≤ 1.25× one's: ${ratio <= 1.25 ? "met" : "MISSED"} (× ${ratio.toFixed(2)}; the webhooks' part alone × ${webhooksRatio.toFixed(2)}, the baseline × ${(three.bareCpu / one.bareCpu).toFixed(2)})`
    )
    console.log(`       tick p99 ≤ 1 s: ${p99 <= 1000 ? "met" : "MISSED"} (${ms(p99)}, the worse of the two)`)
    console.log(
      `       a runner holding every webhook ≤ 1.5 GiB: ${peak <= 1.5 * 1024 ? "met" : "MISSED"} (highest ${mib(peak)})`
    )
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
