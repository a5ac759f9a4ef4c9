/** The pure parts of the signal events and stats endpoints, on a small market. */
import { Either } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { compileContext } from "../../../src/api/common/compile.js"
import { type FlagBars, flagEvents, latestState } from "../../../src/api/signals/events.js"
import {
  cappedRange,
  computedCounts,
  finalDay,
  inputsFor,
  numericCount,
  tradingDays
} from "../../../src/api/signals/stats.js"
import { MarketData, runToEnd } from "../../../src/market/engine/MarketData.js"
import { epochDay, isoDate } from "../../../src/market/indicators/days.js"
import type { Snapshot } from "../../../src/market/snapshot.js"
import { loadTickers, type TickerDirectory } from "../../../src/market/tickers/index.js"
import { compileQuery } from "../../../src/query/index.js"

const PICK = new Set(["AAPL", "MSFT", "SPY", "NVDA", "BTC-USD", "ETH-USD", "F", "KO"])
const tickers = loadTickers().filter((t, i) => PICK.has(t.ticker) || i % 250 === 0)
/** Friday 2026-11-20, 13:30 New York: the session is open */
const FRIDAY_MIDDAY = Date.UTC(2026, 10, 20, 18, 30)
const days = (dates: ReadonlyArray<string>) => dates.map(epochDay)
const dates = (ds: ReadonlyArray<number>) => ds.map(isoDate)

const cell = (s: Snapshot, r: number, column: string): number | boolean | null => {
  const col = s.columns.get(column)!
  if (col.kind === "string") return col.values[r] as any
  return col.valid[r] === 0 ? null : col.kind === "boolean" ? col.values[r] === 1 : col.values[r]
}

describe("trading days and ranges", () => {
  it("lists NYSE trading days only (weekends and holidays out)", () => {
    // Thanksgiving 2026 is Thursday 11-26
    expect(dates(tradingDays(epochDay("2026-11-20"), epochDay("2026-11-30")))).toEqual([
      "2026-11-20",
      "2026-11-23",
      "2026-11-24",
      "2026-11-25",
      "2026-11-27",
      "2026-11-30"
    ])
    expect(tradingDays(epochDay("2026-11-21"), epochDay("2026-11-22"))).toEqual([])
  })

  it("caps an on-demand range: defaults fill the cap, explicit bounds are kept", () => {
    const FIRST = epochDay("2024-11-26")
    const last = epochDay("2026-11-25")
    // nothing given: the last `cap` trading days to the last final day
    const r1 = cappedRange(undefined, undefined, last, 3, FIRST)
    expect(dates(tradingDays(r1.fromDay, r1.toDay))).toEqual(["2026-11-23", "2026-11-24", "2026-11-25"])
    // only to (a Sunday): the cap ends at the Friday before
    const r2 = cappedRange(undefined, epochDay("2026-11-22"), last, 2, FIRST)
    expect(dates(tradingDays(r2.fromDay, r2.toDay))).toEqual(["2026-11-19", "2026-11-20"])
    // only from (a Saturday): the cap's trading days from it
    const r3 = cappedRange(epochDay("2026-11-14"), undefined, last, 4, FIRST)
    expect(dates(tradingDays(r3.fromDay, r3.toDay))).toEqual(["2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19"])
    // only from, near the end: clipped to the last final day
    const r4 = cappedRange(epochDay("2026-11-24"), undefined, last, 4, FIRST)
    expect(dates(tradingDays(r4.fromDay, r4.toDay))).toEqual(["2026-11-24", "2026-11-25"])
    // both: kept (the caller refuses a range over the cap), `to` clipped
    const r5 = cappedRange(epochDay("2026-10-01"), epochDay("2026-12-31"), last, 4, FIRST)
    expect(r5).toEqual({ fromDay: epochDay("2026-10-01"), toDay: last })
    // only to, near the first day of the data: the range starts there, not before
    const r6 = cappedRange(undefined, epochDay("2024-11-28"), last, 4, FIRST)
    expect(dates(tradingDays(r6.fromDay, r6.toDay))).toEqual(["2024-11-26", "2024-11-27"])
    // only to, before the data (down to the calendar's first year, 1990): empty, not a walk out of the calendar
    for (const to of ["2020-01-01", "1990-01-02"]) {
      const r = cappedRange(undefined, epochDay(to), last, 250, FIRST)
      expect(tradingDays(r.fromDay, r.toDay)).toEqual([])
    }
  })

  it("chooses the inputs a walk needs from the columns", () => {
    expect(inputsFor(["rsi_14", "price"])).toBe("none")
    expect(inputsFor(["rsi_14", "market_cap"])).toBe("fundamentals")
    expect(inputsFor(["news_volume", "price"])).toBe("all")
  })
})

describe("flag events", () => {
  /** one ticker (slot 0): bars on days 10, 11, 12, ... with the given flag values */
  const bars = (values: ReadonlyArray<boolean | null>): FlagBars => ({
    barCount: () => values.length,
    barDay: (_i, j) => 10 + j,
    barClose: (_i, j) => 100 + j,
    value: (_i, j) => values[j]
  })
  const b = bars([true, true, false, null, true, true, false, true])

  it("emits a row whose state differs from the previous row, newest first; NULL is off", () => {
    const events = flagEvents(b, 0, 0, 0, 100, Number.POSITIVE_INFINITY, 100)
    expect(events).toEqual([
      { day: 17, on: true, value: true, previousDay: 16, close: 107 },
      { day: 16, on: false, value: false, previousDay: 15, close: 106 },
      { day: 14, on: true, value: true, previousDay: 13, close: 104 },
      { day: 12, on: false, value: false, previousDay: 11, close: 102 }
    ])
    // false → null is no change; the first bar has no event
    expect(flagEvents(bars([true]), 0, 0, 0, 100, Number.POSITIVE_INFINITY, 10)).toEqual([])
    expect(flagEvents(bars([false, null, false]), 0, 0, 0, 100, Number.POSITIVE_INFINITY, 10)).toEqual([])
    expect(flagEvents(bars([true, null]), 0, 0, 0, 100, Number.POSITIVE_INFINITY, 10)).toEqual([
      { day: 11, on: false, value: null, previousDay: 10, close: 101 }
    ])
  })

  it("windows by day (the previous row may lie before it), pages before a day, stops at max", () => {
    expect(flagEvents(b, 0, 0, 14, 16, Number.POSITIVE_INFINITY, 100).map((e) => e.day)).toEqual([16, 14])
    expect(flagEvents(b, 0, 0, 0, 100, 16, 100).map((e) => e.day)).toEqual([14, 12])
    expect(flagEvents(b, 0, 0, 0, 100, Number.POSITIVE_INFINITY, 2).map((e) => e.day)).toEqual([17, 16])
  })

  it("gives the latest row of a window", () => {
    expect(latestState(b, 0, 0, 0, 100)).toEqual({ day: 17, value: true })
    expect(latestState(b, 0, 0, 0, 13)).toEqual({ day: 13, value: null })
    expect(latestState(b, 0, 0, 20, 30)).toBeUndefined()
    expect(latestState(b, 0, 0, 0, 5)).toBeUndefined()
  })
})

describe("counts computed on demand", () => {
  let md: MarketData
  beforeAll(() => {
    md = MarketData.build({ seed: 11, tickers, historyDays: 40, now: FRIDAY_MIDDAY })
  })
  const all = () => Array.from({ length: md.size }, (_, i) => i)

  it("takes the last day both asset classes completed as the last final day", () => {
    // Friday's session is open and the UTC Friday not over: Thursday
    expect(isoDate(finalDay(md))).toBe("2026-11-19")
    const later = MarketData.build({ seed: 11, tickers, historyDays: 40, now: Date.UTC(2026, 10, 21, 0, 30) })
    expect(isoDate(finalDay(later))).toBe("2026-11-20")
  })

  it("counts a numeric condition per day as the as-of snapshots do, over all tickers and over members", () => {
    const listed = tradingDays(epochDay("2026-10-26"), epochDay("2026-11-06"))
    const condition = { op: ">" as const, value: 55, text: ">55" }
    const counts = runToEnd(
      computedCounts(md, { days: listed, slots: all(), columns: ["rsi_14"], count: numericCount("rsi_14", condition) })
    )
    const members = new Set([md.index.get("AAPL")!, md.index.get("BTC-USD")!, md.index.get("KO")!])
    const scoped = runToEnd(
      computedCounts(md, {
        days: listed,
        slots: [...members].sort((a, b) => a - b),
        members: () => members,
        columns: ["rsi_14"],
        count: numericCount("rsi_14", condition)
      })
    )
    listed.forEach((d, x) => {
      const snap = md.snapshotAsOf(isoDate(d))
      let expected = 0
      let expectedScoped = 0
      for (let r = 0; r < snap.size; r++) {
        const v = cell(snap, r, "rsi_14")
        const hit = typeof v === "number" && v > 55
        if (hit) expected++
        if (hit && members.has(md.index.get(snap.tickers[r])!)) expectedScoped++
      }
      expect(counts[x], isoDate(d)).toEqual({ count: expected, total: snap.size })
      expect(scoped[x], isoDate(d)).toEqual({ count: expectedScoped, total: 3 })
    })
    expect(counts.some((c) => c.count > 0)).toBe(true)
  })

  it("evaluates a compiled expression (strings, inputs, cross-ticker references) per day", () => {
    const directory = {
      lookup: (s: string) => md.tickers.find((t) => t.ticker === s.toUpperCase())
    } as unknown as TickerDirectory
    const compiled = compileQuery(
      "(day_change_pct > spy.day_change_pct AND market_cap > 1000000000) OR sector = 'Energy'",
      compileContext(directory)
    )
    if (Either.isLeft(compiled)) throw new Error(compiled.left.message)
    const query = compiled.right
    const listed = days(["2026-11-02", "2026-11-03", "2026-11-13"])
    const counts = runToEnd(
      computedCounts(md, {
        days: listed,
        slots: all(),
        columns: query.columns,
        count: (snapshot, rows) => query.evaluate(snapshot, rows).length
      })
    )
    listed.forEach((d, x) => {
      const snap = md.snapshotAsOf(isoDate(d))
      expect(counts[x], isoDate(d)).toEqual({ count: query.evaluate(snap).length, total: snap.size })
    })
    expect(counts.some((c) => c.count > 0)).toBe(true)
  })
})
