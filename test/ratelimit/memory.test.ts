/**
 * The in-process window's bounded memory, and the plan table the limiter is
 * given (src/accounts/plans.ts through src/ratelimit/policy.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { limitFor, rateLimitKey, SANDBOX_RATE_PER_MINUTE } from "../../src/ratelimit/policy.js"
import { makeMemoryWindow } from "../../src/ratelimit/window.js"

describe("in-process window", () => {
  it("evicts idle keys as checks go by", () => {
    const w = makeMemoryWindow()
    for (let i = 0; i < 1_000; i++) w.take(`k${i}`, 10, 60_000, i)
    expect(w.size()).toBe(1_000)
    // still within a minute of their admissions: kept
    for (let i = 0; i < 1_100; i++) w.take("busy", 1_000_000, 60_000, 59_000)
    expect(w.size()).toBe(1_001)
    // once idle for a full window they go: the sweep visits two keys per check
    for (let i = 0; i < 1_100; i++) w.take("busy", 1_000_000, 60_000, 61_000)
    expect(w.size()).toBe(1)
  })

  it("holds at most 61 buckets per key however high the limit", () => {
    const w = makeMemoryWindow()
    let last = { allowed: false, count: 0, resetMs: 0, retryMs: 0 }
    // 10 per second for 5 minutes at a limit of 60,000
    for (let t = 0; t < 300_000; t += 100) {
      last = w.take("scale", 60_000, 60_000, t)
      expect(w.buckets("scale")).toBeLessThanOrEqual(61)
    }
    expect(last.allowed).toBe(true)
    // exactly what the last 60 s hold
    expect(last.count).toBe(600)
  })

  it("a clock stepping back never loosens the limit", () => {
    const w = makeMemoryWindow()
    for (let i = 0; i < 3; i++) expect(w.take("k", 3, 60_000, 100_000).allowed).toBe(true)
    // the clock steps back 30 s: the admissions still count, for as long as they would have
    expect(w.take("k", 3, 60_000, 70_000).allowed).toBe(false)
    expect(w.take("k", 3, 60_000, 159_999).allowed).toBe(false)
    expect(w.take("k", 3, 60_000, 160_000).allowed).toBe(true)
  })
})

describe("rate-limit policy", () => {
  it("general and history limits per plan", () => {
    const table = (["free", "hobby", "pro", "scale", "enterprise"] as const).map((plan) => [
      plan,
      limitFor("general", plan, null),
      limitFor("history", plan, null)
    ])
    expect(table).toEqual([
      ["free", 60, 30],
      ["hobby", 600, 60],
      ["pro", 6_000, 2_000],
      ["scale", 60_000, 10_000],
      ["enterprise", 60_000, 10_000]
    ])
    // an enterprise account's own figure replaces the general limit only
    expect(limitFor("general", "enterprise", 250_000)).toBe(250_000)
    expect(limitFor("history", "enterprise", 250_000)).toBe(10_000)
    expect(limitFor("general", "none", null)).toBe(0)
  })

  it("keys: general and history never share a count; the sandbox is per client IP", () => {
    expect(rateLimitKey.apiKey("general", "abc")).toBe("key:abc")
    expect(rateLimitKey.apiKey("history", "abc")).toBe("hist:abc")
    expect(rateLimitKey.sandbox("203.0.113.7")).toBe("ip:203.0.113.7")
    expect(SANDBOX_RATE_PER_MINUTE).toBe(60)
  })
})
