/**
 * Issue 6's evaluation numbers in the real service, not only in the
 * evaluator: `npm start`'s process with its real market (simulated feed,
 * history, flag history) on PostgreSQL, with 100,000 active realtime webhooks
 * inserted by SQL in the bench's mix (60% ticker-scoped, 30% top_100/top_10,
 * 10% whole-market with distinct predicates). Each `POST /admin/refresh`
 * answers once the new snapshot has been evaluated and its fires queued, so
 * its duration is a tick as the service runs it (refresh + evaluation).
 *
 * Printed: the service's resident memory (VmRSS of the child, sampled every
 * 50 ms) at ready without webhooks, after it picked up the webhooks, and at
 * its highest; the first evaluation; then p50/p99 of the refreshes, with the
 * same refreshes timed first on the same service before any webhook existed
 * (the baseline: what a refresh costs without subscriptions).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:webhooks-service -- --webhooks=100000 --ticks=8
 */
import { readdirSync, readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { ADMIN_TOKEN, startServer, waitReady } from "../test/support/server.js"
import { benchArgs } from "./support/args.js"
import { withPgSchema } from "./support/pgSchema.js"
import { quantile, seededRandom } from "./support/stats.js"
import { insertWebhookMix } from "./support/webhookMix.js"

const args = benchArgs()
const N = Number(args.get("webhooks") ?? 100_000)
const TICKS = Number(args.get("ticks") ?? 8)
/** seconds between the steady refreshes (the service refreshes once a minute; 0: back to back) */
const PAUSE = Number(args.get("pause") ?? 0)
/** seconds to leave the service idle after the refreshes, then read its memory again (0: none) */
const IDLE = Number(args.get("idle") ?? 0)
const SNAPSHOT_DIR = process.env.BENCH_HEAP_SNAPSHOT
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

const rand = seededRandom(11)
const ms = (x: number) => `${x.toFixed(0)} ms`
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`

const rssKb = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return m ? Number(m[1]) : Number.NaN
}

/** BENCH_HEAP_SNAPSHOT: asks the service for a heap snapshot and waits until it is written */
const heapSnapshot = async (pid: number) => {
  if (!SNAPSHOT_DIR) return
  const count = () => readdirSync(SNAPSHOT_DIR).filter((f) => f.endsWith(".heapsnapshot")).length
  const before = count()
  process.kill(pid, "SIGUSR2")
  while (count() === before) await new Promise((r) => setTimeout(r, 500))
  // the file appears when writing starts; the service answers again once it is complete
  await new Promise((r) => setTimeout(r, 1_000))
  console.log(`  heap snapshot written to ${SNAPSHOT_DIR}`)
}

/** fetch, once more after a reset connection (a kept-alive socket the service closed while a heap snapshot blocked it) */
const fetchRetry = (url: string, init?: RequestInit): Promise<Response> =>
  fetch(url, init).catch(() => fetch(url, init))

const fullGcs: Array<string> = []

const main = async () => {
  console.log(
    `node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`
  )
  await withPgSchema(DATABASE_URL, (url) => run(url))
}

const run = async (url: string) => {
  const server = await startServer(
    {
      DATABASE_URL: url,
      REFRESH_INTERVAL: "1h",
      SIGNAL_FLAG_HISTORY: "lazy",
      // BENCH_HEAP_SNAPSHOT=dir: the service writes a heap snapshot there at ready and after the last refresh
      ...(SNAPSHOT_DIR ? { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${SNAPSHOT_DIR}` } : {})
    },
    120_000,
    // BENCH_SERVER_NODE_ARGS: node/V8 flags for the service (to try GC settings)
    {
      keepOutput: 100_000,
      nodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter((a) => a !== ""),
      // with --trace-gc among them: the full GCs, printed at the end
      onOutput: (chunk) => {
        for (const line of chunk.toString().split("\n")) if (line.includes("Mark-Compact")) fullGcs.push(line.trim())
      }
    }
  )
  const pid = server.process.pid!
  let peak = 0
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssKb(pid))
  }, 50)
  try {
    await waitReady(server, 180_000)
    const metrics = async () => (await fetchRetry(`${server.url}/metrics`)).text()
    /** the evaluator's own time so far (the sum of webhook_evaluation_duration_seconds), in ms */
    const evaluationMs = (text: string) => {
      const m = /^webhook_evaluation_duration_seconds_sum(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(text)
      return m ? Number(m[1]) * 1000 : Number.NaN
    }
    /** the service's memory as its /metrics tells it: V8 heap in use and committed, external (typed arrays) */
    const memoryText = async (text?: string) => {
      text ??= await metrics()
      const read = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, "m").exec(text)?.[1] ?? Number.NaN)
      const m = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`
      const rss = read("process_resident_memory_bytes")
      const committed = read("nodejs_heap_size_total_bytes")
      const external = read("nodejs_external_memory_bytes")
      // the spaces holding 20 MB or more committed beyond what they use: where the heap's slack is
      const slack = [...text.matchAll(/^nodejs_heap_space_size_total_bytes\{space="([a-z_]+)"\} ([0-9.e+]+)$/gm)]
        .map(([, space, total]) => ({
          space,
          spare: Number(total) - read(`nodejs_heap_space_size_used_bytes\\{space="${space}"\\}`)
        }))
        .filter((s) => s.spare >= 20 * 2 ** 20)
        .map((s) => `${s.space} ${m(s.spare)}`)
      return `rss ${m(rss)}: V8 heap ${m(read("nodejs_heap_size_used_bytes"))} used of ${m(committed)}${slack.length > 0 ? ` (spare: ${slack.join(", ")})` : ""}, external ${m(external)}, other ${m(rss - committed - external)}`
    }
    /** one refresh, answered after its evaluation: wall time, and the evaluator's part of it */
    const refresh = async (tolerate503 = false) => {
      const e0 = evaluationMs(await metrics())
      const t = performance.now()
      const res = await fetchRetry(`${server.url}/admin/refresh`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` }
      })
      await res.arrayBuffer()
      if (res.status !== 200 && !(tolerate503 && res.status === 503)) throw new Error(`refresh answered ${res.status}`)
      const wall = performance.now() - t
      // the metrics after it: the evaluation's part, and the memory the caller prints (one request)
      const after = await metrics()
      return { wall, evaluation: evaluationMs(after) - e0, status: res.status, metrics: after }
    }
    // baseline: refreshes with no webhook
    await refresh()
    const bare: Array<number> = []
    for (let k = 0; k < TICKS; k++) bare.push((await refresh()).wall)
    const rssReady = rssKb(pid)
    console.log(`  ${await memoryText()}`)
    await heapSnapshot(pid)
    console.log(
      `ready, no webhooks: rss ${mb(rssReady)}; refresh p50 ${ms(quantile(bare, 0.5))}, p99 ${ms(quantile(bare, 0.99))}`
    )

    // the webhooks, inserted by SQL (as the evaluator bench does)
    await insertWebhookMix(url, N, rand)
    console.log(`${N.toLocaleString("en-US")} webhooks inserted`)

    // the first refresh picks them up (actors start) and evaluates every one: each fires its matches
    // (the admin API answers 503 after 60 s; the evaluation goes on and the next refresh waits for it)
    const t0 = performance.now()
    const first = await refresh(true)
    if (first.status === 503) await refresh()
    console.log(
      `first refresh with webhooks (load, start actors, first evaluation): ${ms(performance.now() - t0)}; ${await memoryText()}`
    )
    const ticks: Array<number> = []
    const evaluations: Array<number> = []
    for (let k = 0; k < TICKS; k++) {
      if (PAUSE > 0) await new Promise((r) => setTimeout(r, PAUSE * 1000))
      const r = await refresh()
      ticks.push(r.wall)
      evaluations.push(r.evaluation)
      console.log(`  refresh ${k + 1}: ${ms(r.wall)} (evaluation ${ms(r.evaluation)}); ${await memoryText(r.metrics)}`)
    }
    if (IDLE > 0) {
      for (let waited = 0; waited < IDLE; waited += 15) {
        await new Promise((r) => setTimeout(r, Math.min(15, IDLE - waited) * 1000))
        console.log(`  idle ${Math.min(IDLE, waited + 15)} s: ${await memoryText()}`)
      }
    }
    await heapSnapshot(pid)
    const p50 = quantile(ticks, 0.5)
    const p99 = quantile(ticks, 0.99)
    console.log(
      `steady refreshes (${TICKS}): p50 ${ms(p50)}, p99 ${ms(p99)} (evaluation p50 ${ms(quantile(evaluations, 0.5))}, p99 ${ms(quantile(evaluations, 0.99))}); without webhooks p50 ${ms(quantile(bare, 0.5))} (× ${(p50 / quantile(bare, 0.5)).toFixed(1)})`
    )
    for (const line of fullGcs) console.log(`  ${line}`)
    console.log(`resident memory: ready ${mb(rssReady)}, highest ${mb(peak)}, now ${mb(rssKb(pid))}`)
    console.log(`goals: refresh with evaluation ≤ 1 s: ${p99 <= 1000 ? "met" : "MISSED"} (p99 ${ms(p99)})`)
    console.log(
      `       resident memory ≤ 1.5 GB: ${peak <= 1.5 * 1024 * 1024 ? "met" : "MISSED"} (highest ${mb(peak)})`
    )
  } finally {
    clearInterval(sampler)
    await server.stop()
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
