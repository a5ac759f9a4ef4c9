/**
 * Deep history (issue 17, item 1): every ticker's daily bars from 2003 (or its listing year),
 * generated on demand, the same bits as the history the market holds in memory; rows and series
 * before the window from the ticker's whole history.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { MarketData } from "../../src/market/engine/MarketData.js"
import { barAt } from "../../src/market/history/barSeries.js"
import { HISTORY_START_DAY, historyStartDay } from "../../src/market/history/coverage.js"
import { buildDeepTicker } from "../../src/market/history/deepTicker.js"
import { GRID_LONG_SUM, GRID_SLOT, gridDays, gridStates } from "../../src/market/history/gridStates.js"
import { tickerBars } from "../../src/market/history/tickerBars.js"
import { epochDay, isoDate } from "../../src/market/indicators/days.js"
import {
  commitAll,
  configForAssetType,
  copyLongSum,
  LONG_SUM_SIZE,
  makeState,
  previewValues,
  recursiveScalars,
  SC_COUNT
} from "../../src/market/indicators/index.js"
import { parseCsvBars } from "../../src/market/sources/csvBars.js"
import { loadTickers } from "../../src/market/tickers/index.js"

const all = loadTickers()
const PICK = new Set(["AAPL", "MSFT", "SPY", "BTC-USD", "USDT", "SOL", "KO"])
// plus a few listed after 2003 (an IPO year in the seed)
const late = all.filter((t) => t.first_year !== null && t.asset_type !== "CRYPTO").slice(0, 3)
const tickers = all.filter((t, i) => PICK.has(t.ticker) || late.includes(t) || i % 900 === 0)
const FRIDAY_MIDDAY = Date.UTC(2026, 10, 20, 18, 30)

const barsOf = (
  s: { length: number; days: Int32Array; close: Float64Array; volume: ArrayLike<number> } & {
    openAt(j: number): number
    highAt(j: number): number
    lowAt(j: number): number
  },
  from = 0,
  to = s.length
) => {
  const out: Array<Array<number>> = []
  for (let j = from; j < to; j++) out.push([s.days[j], s.openAt(j), s.highAt(j), s.lowAt(j), s.close[j], s.volume[j]])
  return out
}

describe("deep history", () => {
  let md: MarketData
  beforeAll(() => {
    md = MarketData.build({ seed: 11, tickers, historyDays: 60, now: FRIDAY_MIDDAY })
  })

  it("starts every ticker in 2003, or on the first session of the year it listed; crypto on January 1", () => {
    expect(isoDate(HISTORY_START_DAY)).toBe("2003-01-02")
    const aapl = md.index.get("AAPL")!
    expect(isoDate(md.firstDay[aapl])).toBe("2003-01-02")
    for (const t of late) {
      const day = md.firstDay[md.index.get(t.ticker)!]
      expect(isoDate(day).slice(0, 4)).toBe(String(t.first_year))
      expect(historyStartDay(t)).toBe(day)
    }
    expect(historyStartDay({ asset_type: "CRYPTO", first_year: 2017 })).toBe(epochDay("2017-01-01"))
    expect(historyStartDay({ asset_type: "CS", first_year: 2015 })).toBe(epochDay("2015-01-02"))
  })

  it("generates one ticker's bars alone, bit for bit the market's history over the same days", () => {
    for (const t of tickers) {
      const i = md.index.get(t.ticker)!
      const s = md.series[i]
      if (s.length === 0) continue
      const alone = tickerBars({
        source: md.sim,
        slot: i,
        crypto: md.isCrypto[i] === 1,
        imported: undefined,
        fromDay: Math.max(md.firstDay[i], s.days[0]),
        toDay: s.days[s.length - 1]
      })
      expect(barsOf(alone), t.ticker).toEqual(barsOf(s))
    }
  })

  it("reads rows and series before the window from the ticker's whole history", () => {
    const i = md.index.get("AAPL")!
    const deep = md.deepOf(i)!
    expect(isoDate(deep.series.days[0])).toBe("2003-01-02")
    expect(deep.series.days[deep.series.length - 1]).toBeLessThan(md.windowDayOf(i))
    // a row in 2010: the preview of that day's bar on the state of every bar before it, from 2003
    const row = md.rowAsOf("AAPL", "2010-06-03")!
    expect(row.date).toBe("2010-06-03")
    const j = deep.series.indexAtOrBefore(epochDay("2010-06-03"))
    const bars = Array.from({ length: j }, (_, k) => barAt(deep.series, k))
    const st = commitAll(makeState(configForAssetType("CS")), bars)
    const expected = previewValues(st, barAt(deep.series, j))
    for (const c of ["price", "sma_200", "rsi_14", "ema_50", "macd_line", "high_52w", "obv"]) {
      expect(typeof expected[c], c).toBe("number")
      expect(row.values[c], c).toEqual(expected[c])
    }
    // a 1d series across years: one value per bar, the same as the rows
    const series = md.dailySeries("AAPL", "rsi_14", epochDay("2009-12-20"), epochDay("2010-06-03"))
    expect(series.at(-1)).toEqual({ day: epochDay("2010-06-03"), value: row.values.rsi_14 })
    expect(series.length).toBe(
      deep.series.indexAtOrBefore(epochDay("2010-06-03")) - deep.series.indexAtOrAfter(epochDay("2009-12-20")) + 1
    )
    // before the first bar: nothing
    expect(md.rowAsOf("AAPL", "2002-12-31")).toBeUndefined()
    // a ticker listed later has no bars before its first session
    const t = late[0]!
    expect(md.rowAsOf(t.ticker, `${t.first_year! - 1}-12-31`)).toBeUndefined()
  })

  it("lays imported bars over the deep history, the simulation resuming from their close", () => {
    const csv = [
      "ticker,date,open,high,low,close,volume",
      "KO,2008-03-03,20,21,19.5,20.5,1000000",
      "KO,2008-03-04,20.5,21.5,20,21,1100000"
    ].join("\n")
    const imported = parseCsvBars(csv, { file: "ko.csv", resolveTicker: (s: string) => s }).get("KO")!
    const i = md.index.get("KO")!
    const deep = buildDeepTicker({
      source: md.sim,
      slot: i,
      crypto: false,
      imported,
      fromDay: md.firstDay[i],
      toDay: epochDay("2008-12-31"),
      assetType: "CS"
    })
    const j = deep.series.indexAtOrBefore(epochDay("2008-03-04"))
    expect(deep.series.close[j]).toBe(21)
    expect(deep.series.close[j - 1]).toBe(20.5)
    // the next simulated day opens near the imported close, not at the simulated level
    const next = deep.series.openAt(j + 1)
    expect(Math.abs(next / 21 - 1)).toBeLessThan(0.2)
  })

  it("reads imported deep years at once after an import, not a ticker's history cached before it", () => {
    const market = MarketData.build({ seed: 11, tickers, historyDays: 60, now: FRIDAY_MIDDAY })
    const before = market.rowAsOf("MSFT", "2009-05-05")!
    expect(before.values.price).not.toBe(33.25)
    const csv = ["ticker,date,open,high,low,close,volume", "MSFT,2009-05-05,33,34,32.5,33.25,2000000"].join("\n")
    market.importBars(parseCsvBars(csv, { file: "msft.csv", resolveTicker: (s: string) => s }), FRIDAY_MIDDAY)
    const after = market.rowAsOf("MSFT", "2009-05-05")!
    expect(after.date).toBe("2009-05-05")
    expect(after.values.price).toBe(33.25)
  })

  it("keeps every ticker's state on a calendar grid, equal to its own history's state at each grid day", () => {
    const origin = epochDay("2003-01-02")
    const every = 64
    const toDay = epochDay("2005-06-30")
    const got = new Map<number, Float64Array>()
    const walk = gridStates({
      source: md.sim,
      assetTypes: md.tickers.map((t) => t.asset_type),
      firstDay: md.firstDay,
      imported: () => undefined,
      origin,
      every,
      toDay,
      group: 5,
      onTicker: (i, slots) => got.set(i, slots.slice())
    })
    while (!walk.next().done) {}
    expect(got.size).toBe(md.size)
    const days = gridDays(origin, every, toDay)
    for (const t of ["AAPL", "KO", "BTC-USD", late[0]!.ticker]) {
      const i = md.index.get(t)!
      const deep = buildDeepTicker({
        source: md.sim,
        slot: i,
        crypto: md.isCrypto[i] === 1,
        imported: undefined,
        fromDay: md.firstDay[i],
        toDay,
        assetType: md.tickers[i].asset_type
      })
      const slots = got.get(i)!
      for (let k = 0; k < days; k++) {
        const g = origin + every * k
        const j = deep.series.indexAtOrAfter(g)
        const count = j < 0 ? deep.series.length : j
        expect(slots[k * GRID_SLOT + SC_COUNT], `${t} ${isoDate(g)}`).toBe(count)
        if (count === 0) continue
        const st = commitAll(
          makeState(configForAssetType(md.tickers[i].asset_type)),
          Array.from({ length: count }, (_, q) => barAt(deep.series, q))
        )
        expect([...slots.subarray(k * GRID_SLOT, k * GRID_SLOT + SC_COUNT)], `${t} ${isoDate(g)}`).toEqual([
          ...recursiveScalars(st)
        ])
        const longSum = new Float64Array(LONG_SUM_SIZE)
        copyLongSum(st, longSum, 0)
        expect([...slots.subarray(k * GRID_SLOT + GRID_LONG_SUM, (k + 1) * GRID_SLOT)], `${t} ${isoDate(g)}`).toEqual([
          ...longSum
        ])
      }
    }
  })
})
