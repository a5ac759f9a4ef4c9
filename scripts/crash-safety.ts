/**
 * Crash safety (issue 7, item 1): the real service SIGKILLed at random moments
 * during evaluation and delivery, restarted each time, then drained and checked
 * (test/reliability/support/crashSafety.ts describes the checks).
 *
 *   npm run proof:crash                                   # PostgreSQL, 300 webhooks, 25 kills
 *   npm run proof:crash -- --kills=40 --webhooks=500
 *   npm run proof:crash -- --store=embedded               # the embedded store (PGlite)
 *
 * The cluster proof (issue 15, item 6) is the same run on a cluster: one API process and 3
 * runners on a fresh PostgreSQL database (dropped after) and Redis, ≥ 3,000 webhooks, refreshes
 * every 2 s, 10 SIGKILLs of runners (mid-evaluation, of the runner running the refresh-tick
 * singleton, at random) and 5 SIGTERMs, each restarted; failover figures printed and checked:
 *
 *   npm run proof:cluster                                 # = --cluster: 3,000 webhooks, 10 + 5 kills
 *   npm run proof:cluster -- --runners=3 --webhooks=3000 --kills=10 --sigterms=5
 *
 * PostgreSQL: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), in a schema of
 * its own (a database of its own for the cluster), dropped after (`--keep` keeps it); Redis:
 * REDIS_URL (default redis://127.0.0.1:6379). Exits non-zero on any violation.
 */
import { loadavg } from "node:os"
import { formatReport, runCrashSafety } from "../test/reliability/support/crashSafety.js"

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=")
    return [k!, v ?? "true"] as const
  })
)
const cluster = args.has("cluster") || args.has("runners")
const store = args.get("store") === "embedded" && !cluster ? "embedded" : "postgres"
const started = Date.now()
console.log(
  `node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`
)
const report = await runCrashSafety({
  store,
  databaseUrl: process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test",
  webhooks: Number(args.get("webhooks") ?? (cluster ? 3000 : 300)),
  kills: Number(args.get("kills") ?? (cluster ? 10 : 25)),
  ...(cluster
    ? {
        runners: Number(args.get("runners") ?? 3),
        sigterms: Number(args.get("sigterms") ?? 5),
        redisUrl: process.env.REDIS_URL || "redis://127.0.0.1:6379"
      }
    : {}),
  keep: args.has("keep"),
  log: (line) => console.log(`[${((Date.now() - started) / 1000).toFixed(0)} s] ${line}`)
})
console.log(formatReport(report))
console.log(`total ${((Date.now() - started) / 1000).toFixed(0)} s`)
process.exit(report.violations.length === 0 && report.checks.every((c) => c.passed) ? 0 : 1)
