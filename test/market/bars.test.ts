/** Chart bars (issue 18, item 4): a week folds its days into the first open, the extremes, the last close, the summed volume. */
import { describe, expect, it } from "vitest"
import { type Bars, weeklyBars } from "../../src/market/engine/bars.js"
import { epochDay } from "../../src/market/indicators/days.js"

describe("weekly bars", () => {
  it("fold Monday–Sunday weeks, dated by their last day", () => {
    const days = ["2026-11-16", "2026-11-17", "2026-11-20", "2026-11-22", "2026-11-23", "2026-11-30"].map(epochDay)
    const daily: Bars = {
      days,
      open: [10, 11, 12, 13, 20, 30],
      high: [11, 15, 13, 14, 21, 31],
      low: [9, 10, 8, 12, 19, 29],
      close: [11, 12, 13, 12.5, 20.5, 30.5],
      volume: [100, 200, 300, 400, 500, 600]
    }
    expect(weeklyBars(daily)).toEqual({
      days: [epochDay("2026-11-22"), epochDay("2026-11-23"), epochDay("2026-11-30")],
      open: [10, 20, 30],
      high: [15, 21, 31],
      low: [8, 19, 29],
      close: [12.5, 20.5, 30.5],
      volume: [1000, 500, 600]
    })
    expect(weeklyBars({ days: [], open: [], high: [], low: [], close: [], volume: [] }).days).toEqual([])
  })
})
