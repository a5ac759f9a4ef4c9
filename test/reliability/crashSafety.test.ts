/**
 * Crash safety, CI-sized: the real service SIGKILLed 3 times at random moments
 * (during a refresh's evaluation, with deliveries in flight, at random) and
 * restarted, then drained and checked (support/crashSafety.ts). On PostgreSQL
 * when DATABASE_URL is set (a schema of its own), else on the embedded store.
 * The full proof with 25 kills and 300 webhooks: `npm run proof:crash`.
 */
import { describe, expect, it } from "vitest"
import { formatReport, runCrashSafety } from "./support/crashSafety.js"

const url = process.env.DATABASE_URL

describe("crash safety", () => {
  it("SIGKILLs lose no fire, fire no transition twice, leave nothing pending, keep match sets exact", async () => {
    const report = await runCrashSafety({
      store: url === undefined || url === "" ? "embedded" : "postgres",
      ...(url === undefined || url === "" ? {} : { databaseUrl: url }),
      webhooks: 60,
      kills: 3,
      market: "sample"
    })
    const text = formatReport(report)
    expect(report.violations, text).toEqual([])
    for (const c of report.checks) expect(c.passed, `${c.name}: ${c.detail}\n${text}`).toBe(true)
    expect(report.fires, text).toBeGreaterThan(0)
    expect(report.kills).toBe(3)
  }, 900_000)
})
