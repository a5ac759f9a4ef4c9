/** The split adjustment of imported bars (issue 17): pure, checked on examples and by properties. */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { adjustForSplits, type DailyBar } from "../../src/store/splits.js"

const bar = (date: string, close: number, volume = 1000): DailyBar => ({
  ticker: "AAPL",
  date,
  open: close,
  high: close * 1.01,
  low: close * 0.99,
  close,
  volume
})

describe("adjustForSplits", () => {
  it("divides the prices and multiplies the volume of the bars before a split, leaving the rest", () => {
    // a 4-for-1 split on 2020-08-31: 500 before, 125 after, as traded
    const raw = [bar("2020-08-27", 500, 100), bar("2020-08-28", 504, 110), bar("2020-08-31", 127, 480)]
    const adjusted = adjustForSplits(raw, [{ date: "2020-08-31", ratio: 4 }])
    expect(adjusted.map((b) => [b.date, b.close, b.volume])).toEqual([
      ["2020-08-27", 125, 400],
      ["2020-08-28", 126, 440],
      ["2020-08-31", 127, 480]
    ])
    expect(adjusted[0]!.high).toBeCloseTo(126.25, 10)
    // the bar on the split's date is the same object: nothing to adjust
    expect(adjusted[2]).toBe(raw[2])
  })

  it("compounds several splits, reverse splits too, in any order given", () => {
    const raw = [bar("2019-01-02", 800), bar("2020-01-02", 200), bar("2021-01-04", 100), bar("2022-01-03", 1000)]
    const splits = [
      { date: "2021-06-01", ratio: 0.1 }, // 1-for-10 reverse split
      { date: "2019-06-03", ratio: 4 },
      { date: "2020-06-01", ratio: 2 }
    ]
    expect(adjustForSplits(raw, splits).map((b) => b.close)).toEqual([800 / 0.8, 200 / 0.2, 100 / 0.1, 1000])
  })

  it("leaves the bars its file adjusted already", () => {
    const raw = [bar("2020-08-27", 125), bar("2020-08-28", 504)]
    const adjusted = adjustForSplits(raw, [{ date: "2020-08-31", ratio: 4 }], (b) => b.date === "2020-08-27")
    expect(adjusted.map((b) => b.close)).toEqual([125, 126])
  })

  // ---------------------------------------------------------------- properties

  const days = (n: number) =>
    Array.from({ length: n }, (_, i) => new Date(Date.UTC(2010, 0, 1) + i * 86_400_000).toISOString().slice(0, 10))

  /** a series with its splits: the prices as traded jump by 1 / ratio at each split */
  const series = fc
    .record({
      n: fc.integer({ min: 1, max: 60 }),
      moves: fc.array(fc.double({ min: -0.05, max: 0.05, noNaN: true }), { minLength: 60, maxLength: 60 }),
      splits: fc.uniqueArray(
        fc.record({
          at: fc.integer({ min: 1, max: 59 }),
          ratio: fc.constantFrom(2, 3, 4, 5, 7, 10, 20, 0.5, 0.1, 1.5)
        }),
        { selector: (s) => s.at, maxLength: 4 }
      )
    })
    .map(({ n, moves, splits }) => {
      const dates = days(n)
      const inRange = splits.filter((s) => s.at < n)
      // the economic price moves smoothly; each split divides the traded price by its ratio from its date on
      let value = 100
      const raw: Array<DailyBar> = []
      const values: Array<number> = []
      for (let i = 0; i < n; i++) {
        value *= 1 + moves[i]!
        values.push(value)
        const since = inRange.filter((s) => s.at <= i).reduce((f, s) => f * s.ratio, 1)
        raw.push(bar(dates[i]!, value / since, 1000 * since))
      }
      return { raw, splits: inRange.map((s) => ({ date: dates[s.at]!, ratio: s.ratio })), values }
    })

  it("makes the series continuous across its splits: day-on-day moves are the economic ones", () => {
    fc.assert(
      fc.property(series, ({ raw, splits, values }) => {
        const adjusted = adjustForSplits(raw, splits)
        const last = raw.length - 1
        // the last bar is as traded (every split is before or on it)
        expect(adjusted[last]!.close).toBe(raw[last]!.close)
        // the raw series jumps by 1 / ratio on a split's day; the adjusted one moves as the value does
        for (let i = 1; i < raw.length; i++) {
          expect(adjusted[i]!.close / adjusted[i - 1]!.close).toBeCloseTo(values[i]! / values[i - 1]!, 9)
        }
      })
    )
  })

  it("keeps the value traded (close × volume) of every bar, and the order of highs and lows", () => {
    fc.assert(
      fc.property(series, ({ raw, splits }) => {
        const adjusted = adjustForSplits(raw, splits)
        adjusted.forEach((b, i) => {
          expect(b.close * b.volume).toBeCloseTo(raw[i]!.close * raw[i]!.volume, 6)
          expect(b.low).toBeLessThanOrEqual(b.open)
          expect(b.open).toBeLessThanOrEqual(b.high)
          expect(b.date).toBe(raw[i]!.date)
        })
      })
    )
  })

  it("does not depend on the order of the splits, and adjusting by two lists is adjusting by both", () => {
    fc.assert(
      fc.property(series, fc.integer({ min: 0, max: 4 }), ({ raw, splits }, cut) => {
        const once = adjustForSplits(raw, splits)
        expect(adjustForSplits(raw, [...splits].reverse())).toEqual(once)
        const twice = adjustForSplits(adjustForSplits(raw, splits.slice(0, cut)), splits.slice(cut))
        twice.forEach((b, i) => {
          expect(b.close).toBeCloseTo(once[i]!.close, 9)
          expect(b.volume).toBeCloseTo(once[i]!.volume, 6)
        })
      })
    )
  })
})
