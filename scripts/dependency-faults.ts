/**
 * Dependency faults (issue 7, item 2): the real service on a private PostgreSQL
 * and a private Redis (never the shared ones), PostgreSQL stopped for 30 s and
 * Redis stopped and frozen, under a steady API load
 * (test/reliability/support/dependencyFaults.ts describes the checks).
 *
 *   npm run proof:faults
 *   npm run proof:faults -- --pg-outage=60 --redis-outage=30 --redis-freeze=10
 *
 * Where no PostgreSQL binaries exist, a TCP proxy in front of DATABASE_URL is
 * cut instead (the output says so). Exits non-zero when a check fails.
 */
import { loadavg } from "node:os"
import { runDependencyFaults } from "../test/reliability/support/dependencyFaults.js"

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=")
    return [k!, v ?? "true"] as const
  })
)
const seconds = (name: string, fallback: number) => Number(args.get(name) ?? fallback) * 1000
const started = Date.now()
console.log(
  `node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`
)
const report = await runDependencyFaults({
  pgOutageMs: seconds("pg-outage", 30),
  redisOutageMs: seconds("redis-outage", 30),
  redisFreezeMs: seconds("redis-freeze", 10),
  fallbackDatabaseUrl: process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test",
  log: (line) => console.log(`[${((Date.now() - started) / 1000).toFixed(0)} s] ${line}`)
})
console.log(JSON.stringify({ postgres: report.postgres, pg: report.pg, redis: report.redis }, null, 2))
const failed = report.checks.filter((c) => !c.passed)
console.log(
  `${report.checks.length - failed.length}/${report.checks.length} checks passed; total ${((Date.now() - started) / 1000).toFixed(0)} s`
)
process.exit(failed.length === 0 ? 0 : 1)
