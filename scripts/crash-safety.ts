/**
 * Crash safety (issue 7, item 1): the real service SIGKILLed at random moments
 * during evaluation and delivery, restarted each time, then drained and checked
 * (test/reliability/support/crashSafety.ts describes the checks).
 *
 *   npm run proof:crash                                   # PostgreSQL, 300 webhooks, 25 kills
 *   npm run proof:crash -- --kills=40 --webhooks=500
 *   npm run proof:crash -- --store=embedded               # the embedded store (PGlite)
 *
 * PostgreSQL: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), in a schema of
 * its own, dropped after (`--keep` keeps it). Exits non-zero on any violation.
 */
import { loadavg } from "node:os"
import { formatReport, runCrashSafety } from "../test/reliability/support/crashSafety.js"

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=")
    return [k!, v ?? "true"] as const
  })
)
const store = args.get("store") === "embedded" ? "embedded" : "postgres"
const started = Date.now()
console.log(
  `node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`
)
const report = await runCrashSafety({
  store,
  databaseUrl: process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test",
  webhooks: Number(args.get("webhooks") ?? 300),
  kills: Number(args.get("kills") ?? 25),
  keep: args.has("keep"),
  log: (line) => console.log(`[${((Date.now() - started) / 1000).toFixed(0)} s] ${line}`)
})
console.log(formatReport(report))
console.log(`total ${((Date.now() - started) / 1000).toFixed(0)} s`)
process.exit(report.violations.length === 0 && report.checks.every((c) => c.passed) ? 0 : 1)
