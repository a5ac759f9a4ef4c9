/**
 * Hostile-input proof (issue 7, item 3), the long run: starts the service as
 * `npm start` would (a child process, fresh DATA_DIR, REFRESH_INTERVAL 1h),
 * prepares accounts on every plan, and fuzzes every route of its OpenAPI
 * document (see test/reliability/support/endpointFuzz.ts) with property-based requests, then
 * checks the process is alive and /healthz answers. Prints cases/s, the
 * status histogram, latency percentiles and every failure with the seed and
 * counterexample path that replay it.
 *
 *   npm run proof:fuzz                                  100,000 cases, embedded store
 *   npm run proof:fuzz -- --cases 20000 --concurrency 8 --seed 42 --shrink
 *   npm run proof:fuzz -- --seed 42 --path 3:1:0        replay one counterexample
 *
 * With DATABASE_URL set the service runs on that PostgreSQL (in a schema of
 * its own, dropped afterwards); REDIS_URL is passed on when set.
 */
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import {
  loadRoutes,
  newStats,
  percentile,
  prepareTarget,
  replay,
  runFuzz,
  type Stats,
  serviceEnv,
  type Target
} from "../test/reliability/support/endpointFuzz.js"
import { startServer, waitReady } from "../test/support/server.js"

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "100000" },
    concurrency: { type: "string", default: "8" },
    seed: { type: "string" },
    path: { type: "string" },
    timeout: { type: "string", default: "30000" },
    shrink: { type: "boolean", default: false }
  }
})

const cases = Number(values.cases)
const concurrency = Number(values.concurrency)
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed)
const timeoutMs = Number(values.timeout)

const report = (stats: Stats, seconds: number) => {
  const sorted = [...stats.latencies].sort((a, b) => a - b)
  console.log(`\ncases: ${stats.cases} in ${seconds.toFixed(1)} s = ${(stats.cases / seconds).toFixed(0)} cases/s`)
  console.log(
    `latency ms: p50 ${percentile(sorted, 50).toFixed(1)}, p99 ${percentile(sorted, 99).toFixed(1)}, max ${(sorted.at(-1) ?? 0).toFixed(1)}`
  )
  const statuses = [...stats.statuses.entries()].sort(([a], [b]) => a.localeCompare(b))
  console.log(`statuses: ${statuses.map(([s, n]) => `${s}: ${n}`).join(", ")}`)
  console.log(`routes: ${stats.routes.size} (fewest cases: ${Math.min(...stats.routes.values())})`)
  const slowest = [...stats.routeMs.entries()].sort(([, a], [, b]) => b - a).slice(0, 8)
  console.log(
    `time by route: ${slowest.map(([r, ms]) => `${r} ${(ms / 1000).toFixed(0)} s / ${stats.routes.get(r)}`).join("; ")}`
  )
}

const main = async () => {
  const { env, cleanup } = await serviceEnv()
  const server = await startServer(env, 300_000)
  let exit = 0
  let target: Target | undefined
  try {
    await waitReady(server, 300_000)
    target = await prepareTarget(server)
    const { routes, missingFromOpenApi } = await loadRoutes(server.url)
    console.log(
      `${routes.length} routes from ${server.url}/v2/openapi.json${missingFromOpenApi.length > 0 ? `; spec routes missing from it: ${missingFromOpenApi.join(", ")}` : ""}`
    )
    if (values.path !== undefined) {
      const failure = await replay(routes, target, seed, values.path, timeoutMs)
      console.log(failure === undefined ? "the case passes now" : `still fails: ${failure}`)
      exit = failure === undefined ? 0 : 1
      return
    }
    console.log(`seed ${seed}, ${cases} cases, concurrency ${concurrency}, timeout ${timeoutMs} ms`)
    const stats = newStats()
    const started = performance.now()
    const progress = setInterval(() => {
      const s = (performance.now() - started) / 1000
      process.stdout.write(
        `  ${stats.cases} cases, ${(stats.cases / s).toFixed(0)}/s, ${stats.failures.length} failures\n`
      )
    }, 10_000)
    try {
      await runFuzz({
        routes,
        target,
        cases,
        seed,
        concurrency,
        timeoutMs,
        shrink: values.shrink,
        stats,
        onFailure: (r) => console.log(`FAILURE ${r}`)
      })
    } finally {
      clearInterval(progress)
    }
    report(stats, (performance.now() - started) / 1000)
    const alive = server.process.exitCode === null && server.process.signalCode === null
    const health = await fetch(`${server.url}/healthz`).then(
      (r) => r.status,
      () => 0
    )
    const unhandled = server
      .logs()
      .split("\n")
      .filter((l) => l.includes("unhandled failure"))
    console.log(
      `after the run: process ${alive ? "alive" : "DEAD"}, /healthz ${health}, unhandled failures logged: ${unhandled.length}`
    )
    for (const line of unhandled.slice(0, 5)) console.log(`  ${line.slice(0, 500)}`)
    console.log(`failures: ${stats.failures.length}`)
    for (const f of stats.failures) console.log(`  ${f}`)
    if (!alive || health !== 200 || stats.failures.length > 0 || unhandled.length > 0) exit = 1
  } catch (e) {
    console.error(e)
    exit = 1
  } finally {
    if (exit !== 0) {
      const file = join(tmpdir(), `fuzz-endpoints-${seed}.log`)
      writeFileSync(file, server.logs())
      console.log(`the service's log: ${file}`)
    }
    await target?.close()
    await server.stop()
    await cleanup()
  }
  process.exit(exit)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
