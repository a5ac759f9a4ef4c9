/**
 * `historyWindow` (src/api/signals/window.ts): what a signal history read may ask for under the
 * plan's history window and the data's coverage, as the spec's 400s.
 */
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { historyWindow } from "../../../src/api/signals/window.js"

const DAY = 86_400_000
const now = Date.parse("2026-11-27T15:00:00Z")
const coverageStartMs = Date.parse("2024-01-02T00:00:00Z")
const pro = { plan: "pro" as const, maxDays: 1825, now, coverageStartMs, interval: "1d" }
const hobby = { plan: "hobby" as const, maxDays: 0, now, coverageStartMs, interval: "1d" }

describe("historyWindow", () => {
  it("spans the coverage (or the plan's window, when shorter) up to now when no bound is given", () => {
    expect(historyWindow(pro)).toEqual(Either.right({ fromMs: coverageStartMs, toMs: now }))
    const today = Math.floor(now / DAY) * DAY
    expect(historyWindow(hobby)).toEqual(Either.right({ fromMs: today, toMs: now }))
  })

  it("reads a date as the start (from) or the end (to) of its UTC day", () => {
    const w = historyWindow({ ...pro, from: "2025-03-03", to: "2025-03-04" })
    expect(w).toEqual(
      Either.right({ fromMs: Date.parse("2025-03-03T00:00:00Z"), toMs: Date.parse("2025-03-05T00:00:00Z") - 1 })
    )
  })

  it("refuses a from before the plan's window with history_window_exceeded and the limit", () => {
    const w = historyWindow({ ...hobby, from: "2026-11-01" })
    expect(Either.isLeft(w) && w.left).toMatchObject({
      _tag: "HistoryWindowExceeded",
      details: { max_history_days: 0, earliest_allowed_from: "2026-11-27" }
    })
    expect(Either.isLeft(w) && w.left.message).toMatch(/hobby plan's history window \(0 days\)/)
  })

  it("refuses a from before the data with history_window_exceeded at the coverage's first day", () => {
    const w = historyWindow({ ...pro, from: "2023-06-01" })
    expect(Either.isLeft(w) && w.left).toMatchObject({
      _tag: "HistoryWindowExceeded",
      details: { max_history_days: 1825, earliest_allowed_from: "2024-01-02" }
    })
  })

  it("refuses to before from (bad_request), and a to before the window without from (history_window_exceeded)", () => {
    const backwards = historyWindow({ ...pro, from: "2025-03-04", to: "2025-03-03" })
    expect(Either.isLeft(backwards) && backwards.left._tag).toBe("BadRequest")
    const early = historyWindow({ ...pro, to: "2023-01-01" })
    expect(Either.isLeft(early) && early.left._tag).toBe("HistoryWindowExceeded")
    const malformed = historyWindow({ ...pro, from: "yesterday" })
    expect(Either.isLeft(malformed) && malformed.left._tag).toBe("BadRequest")
  })

  it("never answers a window that starts before the plan's window or the coverage", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4000 }),
        fc.option(fc.integer({ min: 0, max: 3000 }), { nil: null }),
        fc.integer({ min: 0, max: 3000 }),
        (fromDaysAgo, maxDays, coverageDaysAgo) => {
          const today = Math.floor(now / DAY)
          const from = new Date((today - fromDaysAgo) * DAY).toISOString().slice(0, 10)
          const coverage = (today - coverageDaysAgo) * DAY
          const w = historyWindow({ ...pro, maxDays, coverageStartMs: coverage, from })
          if (Either.isRight(w)) {
            expect(w.right.fromMs).toBeGreaterThanOrEqual(coverage)
            if (maxDays !== null) expect(w.right.fromMs).toBeGreaterThanOrEqual((today - maxDays) * DAY)
            expect(w.right.toMs).toBeGreaterThanOrEqual(w.right.fromMs)
          } else {
            expect(w.left._tag).toBe("HistoryWindowExceeded")
          }
        }
      )
    )
  })
})
