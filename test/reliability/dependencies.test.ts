/**
 * Dependency faults, CI-sized: the real service on a private PostgreSQL
 * cluster (or, without PostgreSQL binaries, a proxy in front of DATABASE_URL
 * that is cut) and a private redis-server; PostgreSQL stopped for 8 s, Redis
 * stopped for 4 s and frozen for 8 s, under a steady API load
 * (support/dependencyFaults.ts lists the checks). The shared PostgreSQL and
 * Redis are never touched. The full proof (30 s outages): `npm run proof:faults`.
 */
import { describe, expect, it } from "vitest"
import { runDependencyFaults } from "./support/dependencyFaults.js"

describe("dependency faults", () => {
  it("PostgreSQL down: quick 503s, deliveries pause and resume; Redis down: the fallback policy end to end", async () => {
    const lines: Array<string> = []
    const report = await runDependencyFaults({
      pgOutageMs: 8_000,
      redisOutageMs: 4_000,
      redisFreezeMs: 8_000,
      market: "sample",
      ...(process.env.DATABASE_URL ? { fallbackDatabaseUrl: process.env.DATABASE_URL } : {}),
      log: (line) => lines.push(line)
    })
    for (const c of report.checks) expect(c.passed, `${c.name}: ${c.detail}\n${lines.join("\n")}`).toBe(true)
    expect(report.checks.length).toBe(15)
  }, 600_000)
})
