import { describe, expect, it } from "vitest"
import { CsvBarParser, parseCsvBars } from "../../src/market/sources/csvBars.js"
import { CsvImportError } from "../../src/market/sources/csvLine.js"
import { alphaVantageCsv, syntheticYahooCsv } from "../support/fixtures.js"

const tracked = new Set(["AAPL", "SPY", "MSFT", "BRK.B"])
const resolveTicker = (s: string) => {
  const t = s.trim().toUpperCase().replace("-", ".")
  return tracked.has(t) ? t : undefined
}

const errorOf = (f: () => unknown): CsvImportError => {
  try {
    f()
  } catch (e) {
    if (e instanceof CsvImportError) return e
    throw e
  }
  throw new Error("expected a CsvImportError")
}

describe("CSV bar import parser", () => {
  it("reads the long format for several tickers", () => {
    const bars = parseCsvBars(
      "ticker,date,open,high,low,close,volume\nAAPL,2024-01-02,10,11,9,10.5,100\nmsft,2024-01-02,20,21,19,20,50\nAAPL,2024-01-03,10.5,12,10,11,200\n",
      { resolveTicker }
    )
    expect([...bars.keys()].sort()).toEqual(["AAPL", "MSFT"])
    expect(bars.get("AAPL")).toEqual([
      { ticker: "AAPL", date: "2024-01-02", open: 10, high: 11, low: 9, close: 10.5, volume: 100 },
      { ticker: "AAPL", date: "2024-01-03", open: 10.5, high: 12, low: 10, close: 11, volume: 200 }
    ])
  })

  it("reads a Yahoo-format SPY file (no trailing newline) and adjusts by Adj Close", () => {
    const text = syntheticYahooCsv("SPY")
    expect(text.endsWith("\n")).toBe(false)
    const bars = parseCsvBars(text, { ticker: "SPY", resolveTicker }).get("SPY")!
    expect(bars).toHaveLength(1113)
    expect(bars[0].date).toBe("2017-01-03")
    expect(bars[bars.length - 1].date).toBe("2021-06-04")
    // first row: Date,Open,High,Low,Close,Adj Close,Volume; the factor Adj Close / Close applies to every price
    const [, open, high, low, close, adjusted, volume] = text.split("\n")[1]!.split(",").map(Number)
    const factor = adjusted! / close!
    expect(factor).toBeLessThan(1)
    expect(bars[0].close).toBeCloseTo(adjusted!, 6)
    expect(bars[0].open).toBeCloseTo(open! * factor, 6)
    expect(bars[0].high).toBeCloseTo(high! * factor, 6)
    expect(bars[0].low).toBeCloseTo(low! * factor, 6)
    expect(bars[0].volume).toBe(volume)
    // the last row has no dividend still to come: as given
    const last = text.slice(text.lastIndexOf("\n") + 1).split(",")
    expect(bars[bars.length - 1].close).toBe(Number(last[4]))
  })

  it("reads Alpha Vantage's AAPL file: adjusted prices, split-adjusted volume, no jump at the 2020 split", () => {
    const text = alphaVantageCsv("AAPL")
    const bars = parseCsvBars(text, { ticker: "aapl", resolveTicker }).get("AAPL")!
    expect(bars).toHaveLength(5402)
    const i = bars.findIndex((b) => b.date === "2020-08-31")
    const before = bars[i - 1]
    const after = bars[i]
    expect(Math.abs(after.close / before.close - 1)).toBeLessThan(0.1)
    // raw volume on 2020-08-28 was 46,907,479 before the 4:1 split → ×4
    expect(before.volume).toBeCloseTo(46907479 * 4, 0)
    expect(after.volume).toBe(223505733)
  })

  it("accepts columns in any order and a newest-first file", () => {
    const bars = parseCsvBars("Volume,Close,Low,High,Open,timestamp\n5,2,1,3,2,2024-01-03\n6,2,1,3,2,2024-01-02", {
      ticker: "MSFT",
      resolveTicker
    }).get("MSFT")!
    expect(bars.map((b) => b.date)).toEqual(["2024-01-02", "2024-01-03"])
  })

  it("streams: chunks split anywhere give the same result", () => {
    const text =
      "ticker,date,open,high,low,close,volume\r\nAAPL,2024-01-02,10,11,9,10.5,100\r\nAAPL,2024-01-03,10.5,12,10,11,200"
    const parser = new CsvBarParser({ resolveTicker })
    for (let i = 0; i < text.length; i += 7) parser.push(text.slice(i, i + 7))
    expect(parser.finish()).toEqual(parseCsvBars(text, { resolveTicker }))
  })

  it.each([
    ["", 1, "empty"],
    ["date,open,high,low,close\n", 1, "header lacks volume"],
    ["date,open,high,low,close,volume\n2024-01-02,1,1,1,1,1\n", 1, "no ticker column"],
    ["ticker,date,open,high,low,close,volume\nAAPL,2024-13-02,1,1,1,1,1\n", 2, "not YYYY-MM-DD"],
    [
      "ticker,date,open,high,low,close,volume\nAAPL,2024-01-02,1,1,1,1,1\nAAPL,2024-01-03,x,1,1,1,1\n",
      3,
      "open is not a number"
    ],
    ["ticker,date,open,high,low,close,volume\nAAPL,2024-01-02,1,2,1.5,1,1\n", 2, "outside low..high"],
    ["ticker,date,open,high,low,close,volume\nAAPL,2024-01-02,1,1,2,1,1\n", 2, "low 2 is above high 1"],
    ["ticker,date,open,high,low,close,volume\nAAPL,2024-01-02,1,1,1,1,-5\n", 2, "volume must be >= 0"],
    ["ticker,date,open,high,low,close,volume\nAAPL,2024-01-02,0,1,1,1,5\n", 2, "open must be > 0"],
    ["ticker,date,open,high,low,close,volume\nZZZZ,2024-01-02,1,1,1,1,5\n", 2, "ZZZZ is not tracked"],
    [
      "ticker,date,open,high,low,close,volume\nAAPL,2024-01-02,1,1,1,1,5\nAAPL,2024-01-02,1,1,1,1,5\n",
      3,
      "duplicate date"
    ],
    [
      "ticker,date,open,high,low,close,volume\nAAPL,2024-01-02,1,1,1,1,5\nAAPL,2024-01-04,1,1,1,1,5\nAAPL,2024-01-03,1,1,1,1,5\n",
      4,
      "not in order"
    ]
  ])("refuses bad input with file:line and the reason (%#)", (text, line, reason) => {
    const error = errorOf(() => parseCsvBars(text, { file: "bars.csv", resolveTicker }))
    expect(error.line).toBe(line)
    expect(error.message).toContain(`bars.csv:${line}: `)
    expect(error.message).toContain(reason)
  })
})
