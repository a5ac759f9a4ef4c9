/**
 * The backtest calendar: rebalance days are NYSE trading days within the
 * range, one per period (every trading day, the first of each calendar week,
 * the first of each month), and each is the first trading day of its period;
 * the exit lies `hold` sessions later.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isTradingDay, tradingDaysBetween } from "../../src/market/calendar.js"
import { epochDay, isoDate } from "../../src/market/indicators/days.js"
import { EVERY, exitDay, monthOf, rebalanceDays, weekOf } from "../../src/research/backtest/schedule.js"

const LO = epochDay("2003-01-01")
const HI = epochDay("2026-12-31")

describe("rebalance schedule", () => {
  it("knows a few dates", () => {
    // 2026-01-01 is a holiday (Thursday), 2026-01-02 the first trading day; 2026-01-19 is MLK day
    const d = (s: string) => epochDay(s)
    expect(rebalanceDays(d("2026-01-01"), d("2026-01-31"), "1mo").map(isoDate)).toEqual(["2026-01-02"])
    // the week of 2026-01-02 began on 2025-12-29, before the range: its first trading day is not in it
    expect(rebalanceDays(d("2026-01-01"), d("2026-01-31"), "1w").map(isoDate)).toEqual([
      "2026-01-05",
      "2026-01-12",
      "2026-01-20",
      "2026-01-26"
    ])
    // a range starting mid-week starts with the next week's first trading day
    expect(rebalanceDays(d("2026-01-07"), d("2026-01-13"), "1w").map(isoDate)).toEqual(["2026-01-12"])
    expect(rebalanceDays(d("2026-01-16"), d("2026-01-20"), "1d").map(isoDate)).toEqual(["2026-01-16", "2026-01-20"])
    expect(isoDate(exitDay(d("2026-01-16"), 1))).toBe("2026-01-20")
    expect(isoDate(exitDay(d("2026-01-16"), 5))).toBe("2026-01-26")
  })

  it("gives the first trading day of each period within the range, and exits hold sessions later", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: LO, max: HI - 400 }),
        fc.integer({ min: 0, max: 400 }),
        fc.constantFrom(...EVERY),
        fc.integer({ min: 1, max: 60 }),
        (from, span, every, hold) => {
          const to = from + span
          const days = rebalanceDays(from, to, every)
          const period = { "1d": (x: number) => x, "1w": weekOf, "1mo": monthOf }[every]
          const expected: Array<number> = []
          for (let x = from; x <= to; x++) {
            if (!isTradingDay(isoDate(x))) continue
            let first = true
            for (let y = period(x); y < x; y++) if (isTradingDay(isoDate(y))) first = false
            if (first) expected.push(x)
          }
          expect(days).toEqual(expected)
          for (const x of days.slice(0, 3)) {
            const e = exitDay(x, hold)
            expect(isTradingDay(isoDate(e))).toBe(true)
            expect(tradingDaysBetween(isoDate(x), isoDate(e))).toBe(hold)
          }
        }
      ),
      { numRuns: 150 }
    )
  })

  it("puts weeks on Mondays and months on the 1st", () => {
    expect(isoDate(weekOf(epochDay("2026-12-06")))).toBe("2026-11-30") // a Sunday → its Monday
    expect(isoDate(weekOf(epochDay("2026-11-30")))).toBe("2026-11-30")
    expect(isoDate(monthOf(epochDay("2024-02-29")))).toBe("2024-02-01")
  })
})
