/**
 * Period returns and the summary: equal weights over the tickers that can be
 * held; empty periods hold cash (out of the averages, a factor 1 in the
 * compounding and the drawdown); the figures against direct definitions.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { periodReturn } from "../../src/research/backtest/periods.js"
import { compound, maxDrawdown, type Period, summarize } from "../../src/research/backtest/stats.js"

const ret = fc.double({ min: -0.9, max: 2, noNaN: true })
const period: fc.Arbitrary<Period> = fc.record({
  count: fc.integer({ min: 0, max: 50 }),
  return: fc.option(ret, { nil: null }),
  benchmark_return: fc.option(ret, { nil: null })
})

describe("period returns", () => {
  it("average the holdings that have a positive entry price, equally weighted", () => {
    const some = periodReturn([10, 20, 0, Number.NaN], [11, 18, 5, 3])
    expect(some.count).toBe(2)
    expect(some.return).toBeCloseTo((0.1 - 0.1) / 2, 12)
    expect(periodReturn([], [])).toEqual({ count: 0, return: null })
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.double({ min: 0.01, max: 1e4, noNaN: true }), fc.double({ min: 0.01, max: 1e4, noNaN: true }))
        ),
        (xs) => {
          const r = periodReturn(
            xs.map((x) => x[0]),
            xs.map((x) => x[1])
          )
          expect(r.count).toBe(xs.length)
          if (xs.length === 0) expect(r.return).toBeNull()
          else expect(r.return).toBeCloseTo(xs.reduce((s, [a, b]) => s + b / a - 1, 0) / xs.length, 9)
        }
      )
    )
  })
})

describe("summary", () => {
  it("matches the definitions, empty periods holding cash", () => {
    fc.assert(
      fc.property(fc.array(period, { maxLength: 40 }), (raw) => {
        const periods = raw.map((p) => (p.count === 0 ? { ...p, return: null } : p))
        const s = summarize(periods)
        const invested = periods.filter((p) => p.return !== null).map((p) => p.return!)
        expect(s.periods).toBe(periods.length)
        expect(s.invested_periods).toBe(invested.length)
        // empty periods as 0 returns: the same compounding and drawdown
        const asCash = periods.map((p) => p.return ?? 0)
        expect(s.cumulative_return).toBeCloseTo(compound(asCash), 9)
        expect(s.max_drawdown).toBeCloseTo(maxDrawdown(asCash), 9)
        expect(s.max_drawdown).toBeGreaterThanOrEqual(0)
        expect(s.max_drawdown).toBeLessThan(1)
        if (invested.length === 0) {
          expect(s.mean_return).toBeNull()
          expect(s.hit_rate).toBeNull()
          expect(s.cumulative_return).toBe(0)
        } else {
          expect(s.mean_return).toBeCloseTo(invested.reduce((a, b) => a + b, 0) / invested.length, 9)
          expect(s.hit_rate).toBe(invested.filter((r) => r > 0).length / invested.length)
        }
        const both = periods.filter((p) => p.return !== null && p.benchmark_return !== null)
        if (both.length === 0) expect(s.excess_return).toBeNull()
        else
          expect(s.excess_return).toBeCloseTo(
            both.reduce((a, p) => a + p.return! - p.benchmark_return!, 0) / both.length,
            9
          )
        if (periods.length > 0) {
          expect(s.mean_count).toBeCloseTo(periods.reduce((a, p) => a + p.count, 0) / periods.length, 9)
        }
      })
    )
  })

  it("measures the drawdown from the peak of the equity curve", () => {
    // 1 → 1.1 → 0.55 → 0.605: the fall from 1.1 to 0.55 is 50%
    expect(maxDrawdown([0.1, -0.5, 0.1])).toBeCloseTo(0.5, 12)
    expect(maxDrawdown([0.1, 0.2])).toBe(0)
    expect(compound([0.1, -0.5])).toBeCloseTo(-0.45, 12)
  })
})
