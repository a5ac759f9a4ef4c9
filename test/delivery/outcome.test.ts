/**
 * What an attempt's result means: classification and the retry schedule (pure tables).
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration } from "effect"
import { AppConfig } from "../../src/config/AppConfig.js"
import {
  classify,
  maxAttempts,
  nextAttemptDelayMs,
  retryAfterHint,
  scheduleMillis
} from "../../src/delivery/outcome.js"
import type { PostResult } from "../../src/delivery/transport.js"

const result = (status: number | null, extra: Partial<PostResult> = {}): PostResult => ({
  status,
  retryAfterSeconds: null,
  error: status === null ? "timeout after 10 s" : null,
  durationMs: 5,
  ...extra
})

const S = 1000
const M = 60 * S
const H = 60 * M
const schedule = scheduleMillis(AppConfig.make().webhookRetrySchedule)

describe("classify", () => {
  it.each([
    [200, "delivered"],
    [201, "delivered"],
    [202, "delivered"],
    [204, "delivered"],
    [299, "delivered"],
    [410, "gone"],
    [100, "retry"],
    [301, "retry"],
    [302, "retry"],
    [307, "retry"],
    [308, "retry"],
    [400, "retry"],
    [401, "retry"],
    [404, "retry"],
    [429, "retry"],
    [500, "retry"],
    [503, "retry"],
    [null, "retry"]
  ] as const)("status %s → %s", (status, outcome) => {
    expect(classify(result(status))).toBe(outcome)
  })

  it("a refused target or connection error is retried", () => {
    expect(classify(result(null, { error: "target refused: private address 10.0.0.5" }))).toBe("retry")
    expect(classify(result(null, { error: "connection refused" }))).toBe("retry")
  })

  it("Retry-After counts only on 429 and 503", () => {
    expect(retryAfterHint(result(429, { retryAfterSeconds: 60 }))).toBe(60)
    expect(retryAfterHint(result(503, { retryAfterSeconds: 5 }))).toBe(5)
    expect(retryAfterHint(result(500, { retryAfterSeconds: 60 }))).toBeNull()
    expect(retryAfterHint(result(200, { retryAfterSeconds: 60 }))).toBeNull()
    expect(retryAfterHint(result(429))).toBeNull()
  })
})

describe("nextAttemptDelayMs", () => {
  it("the default schedule is 30s, 2m, 10m, 1h, 6h: 6 POSTs, 5 delays", () => {
    expect(schedule).toEqual([30 * S, 2 * M, 10 * M, 1 * H, 6 * H])
    expect(maxAttempts(schedule)).toBe(6)
  })

  it.each([
    [1, null, 30 * S],
    [2, null, 2 * M],
    [3, null, 10 * M],
    [4, null, 1 * H],
    [5, null, 6 * H],
    [6, null, null],
    [7, null, null],
    // Retry-After shorter than the scheduled delay: the schedule wins
    [1, 5, 30 * S],
    [3, 60, 10 * M],
    // longer: honoured
    [1, 90, 90 * S],
    [2, 3600, 1 * H],
    // never beyond the longest delay
    [1, 7 * 24 * 3600, 6 * H],
    [5, 24 * 3600, 6 * H],
    // never extends the schedule
    [6, 30, null],
    // 0 and garbage are ignored
    [2, 0, 2 * M],
    [2, -1, 2 * M],
    [2, Number.NaN, 2 * M]
  ] as const)("after %s failed POSTs with Retry-After %s → %s ms", (failed, retryAfter, expected) => {
    expect(nextAttemptDelayMs(schedule, failed, retryAfter)).toBe(expected)
  })

  it("a failed-attempt count below 1 counts as 1; an empty schedule gives one POST", () => {
    expect(nextAttemptDelayMs(schedule, 0, null)).toBe(30 * S)
    expect(nextAttemptDelayMs([], 1, null)).toBeNull()
    expect(maxAttempts([])).toBe(1)
  })

  it("works with a custom schedule (WEBHOOK_RETRY_SCHEDULE=1s,2s)", () => {
    const custom = scheduleMillis([Duration.seconds(1), Duration.seconds(2)])
    expect([1, 2, 3].map((n) => nextAttemptDelayMs(custom, n, null))).toEqual([1000, 2000, null])
    expect(nextAttemptDelayMs(custom, 1, 10)).toBe(2000)
  })
})
