/**
 * A walk before the window cut into stretches (`stretchesOf`, issue 17 items 3 and 4): the stretches
 * cover the walk's days once each, in order; each one's series (from a grid day a year before it to
 * its tail) holds at most `DEEP_WALK_MAX_BARS` bars unless it is the shortest stretch, whatever its
 * restores read before the grid day (`lookbackDays`); the days the window holds are one last stretch
 * over the market itself.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { CARRY_FORWARD_DAYS } from "../../src/market/engine/core.js"
import { LOOKBACK_DAYS, lookbackDays } from "../../src/market/engine/deepAsOf.js"
import { DEEP_WALK_MAX_BARS, stretchesOf } from "../../src/market/engine/deepWalk.js"
import { DEEP_GRID_EVERY } from "../../src/market/history/deepGrid.js"
import { familiesOf } from "../../src/market/indicators/index.js"

describe("a walk before the window, in stretches", () => {
  it("covers every day once, each stretch's series bounded, the window's days read off the market", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 14_000 }),
        fc.integer({ min: 12_000, max: 20_000 }),
        fc.integer({ min: 0, max: 8_000 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 12_000, max: 21_000 }),
        fc.constantFrom(LOOKBACK_DAYS, 42, 21),
        (tickers, fromDay, span, tail, windowFrom, lookback) => {
          const toDay = fromDay + span
          const out = stretchesOf(tickers, fromDay, toDay, tail, windowFrom, DEEP_WALK_MAX_BARS, lookback)
          expect(out[0]!.from).toBe(fromDay)
          expect(out[out.length - 1]!.to).toBe(toDay)
          out.forEach((s, k) => {
            expect(s.to).toBeGreaterThanOrEqual(s.from)
            if (k > 0) expect(s.from).toBe(out[k - 1]!.to + 1)
            const inWindow = s.from - CARRY_FORWARD_DAYS >= windowFrom
            // only the last stretch reads the market itself, and only when the window holds its days
            expect(s.through === undefined).toBe(inWindow)
            if (s.through === undefined) {
              expect(k).toBe(out.length - 1)
              return
            }
            expect(s.through).toBe(s.to + tail)
            const days = s.through - (s.from - CARRY_FORWARD_DAYS - DEEP_GRID_EVERY - lookback)
            const shortest = s.to - s.from + 1 <= 64 || k === out.length - 1
            if (!shortest) expect(Math.floor(days * 0.72) * tickers).toBeLessThanOrEqual(DEEP_WALK_MAX_BARS)
          })
        }
      ),
      { numRuns: 500 }
    )
  })

  it("reads a whole-market twenty years in stretches of about a year", () => {
    const out = stretchesOf(13_047, 12_419, 19_680, 7, 20_050)
    expect(out.length).toBeGreaterThan(10)
    expect(out.length).toBeLessThan(25)
    // a top_100 backtest's ~450 tickers: one stretch
    expect(stretchesOf(452, 12_419, 19_680, 7, 20_050)).toHaveLength(1)
    // a walk of RSI alone reads three weeks before each grid day, not a year: fewer, longer stretches
    expect(lookbackDays(familiesOf(["rsi_14", "price"]))).toBe(21)
    expect(lookbackDays(familiesOf(["stoch_k"]))).toBe(42)
    expect(lookbackDays(familiesOf(["sma_200"]))).toBe(LOOKBACK_DAYS)
    const rsi = stretchesOf(13_047, 12_419, 19_680, 7, 20_050, DEEP_WALK_MAX_BARS, 21)
    expect(rsi.length).toBeLessThan(out.length * 0.65)
  })
})
