import { beforeAll, describe, expect, it } from "vitest"
import { closeInstant, openInstant } from "../../src/market/calendar.js"
import { ImportRangeError, MarketData } from "../../src/market/engine/MarketData.js"
import { epochDay, isoDate } from "../../src/market/indicators/days.js"
import { batch } from "../../src/market/indicators/index.js"
import type { Snapshot } from "../../src/market/snapshot.js"
import { parseCsvBars } from "../../src/market/sources/csvBars.js"
import { ReplaySource } from "../../src/market/sources/replay.js"
import { loadTickers } from "../../src/market/tickers/index.js"
import { alphaVantageCsv, syntheticYahooCsv } from "../support/fixtures.js"

const PICK = new Set(["AAPL", "MSFT", "SPY", "NVDA", "BTC-USD", "ETH-USD", "USDT", "SOL", "F", "KO"])
const tickers = loadTickers().filter((t, i) => PICK.has(t.ticker) || i % 500 === 0)
/** Friday 2026-11-20, 13:30 New York: the session is open */
const FRIDAY_MIDDAY = Date.UTC(2026, 10, 20, 18, 30)

const value = (s: Snapshot, ticker: string, column: string): number | boolean | null => {
  const r = s.index.get(ticker)
  if (r === undefined) throw new Error(`no row for ${ticker}`)
  const col = s.columns.get(column)!
  if (col.kind === "string") return col.values[r] as any
  return col.valid[r] === 0 ? null : col.kind === "boolean" ? col.values[r] === 1 : col.values[r]
}

const build = (seed = 7, now = FRIDAY_MIDDAY, historyDays = 30) => MarketData.build({ seed, tickers, historyDays, now })

describe("market data", () => {
  let md: MarketData
  beforeAll(() => {
    md = build()
  })

  it("is a pure function of the seed", () => {
    const again = build()
    const other = build(8)
    for (const t of ["AAPL", "BTC-USD", "SPY"]) {
      expect(value(again.latest, t, "price")).toBe(value(md.latest, t, "price"))
      expect(value(again.latest, t, "rsi_14")).toBe(value(md.latest, t, "rsi_14"))
      expect(value(other.latest, t, "price")).not.toBe(value(md.latest, t, "price"))
    }
  })

  it("pins every ticker to its seed price on the anchor date", () => {
    for (const t of tickers) {
      const s = md.series[md.index.get(t.ticker)!]
      const j = s.indexAtOrBefore(epochDay("2026-08-21"))
      expect(s.close[j]).toBeCloseTo(t.price, t.price >= 1 ? 2 : 4)
    }
  })

  it("fills every column of the live row; prices move in ticks", () => {
    const s = md.latest
    expect(s.size).toBe(tickers.length)
    for (const t of ["AAPL", "SPY", "BTC-USD"]) {
      const price = value(s, t, "price") as number
      expect(price).toBeGreaterThan(0)
      expect(Math.abs(price * 100 - Math.round(price * 100))).toBeLessThan(1e-6)
      for (const c of [
        "sma_200",
        "ema_50",
        "rsi_14",
        "macd_line",
        "high_52w",
        "atr_14",
        "volume_today",
        "market_cap"
      ]) {
        expect(value(s, t, c), `${t}.${c}`).not.toBeNull()
      }
    }
    expect(value(s, "AAPL", "name")).toBe(tickers.find((t) => t.ticker === "AAPL")!.name)
    expect(value(s, "AAPL", "pe_ratio")).not.toBeNull()
    expect(value(s, "SPY", "pe_ratio")).toBeNull()
  })

  it("keeps equities still outside the session and crypto moving", () => {
    const saturday = Date.UTC(2026, 10, 21, 15, 0)
    const m = build(7, saturday)
    const again = MarketData.build({ seed: 7, tickers, historyDays: 30, now: saturday })
    again.refresh(saturday + 3 * 3_600_000)
    expect(value(again.latest, "AAPL", "price")).toBe(value(m.latest, "AAPL", "price"))
    expect(value(again.latest, "BTC-USD", "price")).not.toBe(value(m.latest, "BTC-USD", "price"))
  })

  it("makes a closed session's live row its daily row, and commits it when the next session opens", () => {
    const m = build()
    const afterClose = closeInstant("2026-11-20") + 60_000
    const live = m.refresh(afterClose)
    const daily = m.snapshotAsOf("2026-11-20")
    for (const t of ["AAPL", "SPY", "NVDA"]) {
      for (const c of ["price", "day_change_pct", "rsi_14", "sma_50", "bb_upper", "volume_today"]) {
        expect(value(daily, t, c), `${t}.${c}`).toBe(value(live, t, c))
      }
    }
    const monday = openInstant("2026-11-23") + 5 * 60_000
    const next = m.refresh(monday)
    const friday = value(live, "AAPL", "price") as number
    const monOpen = value(next, "AAPL", "price") as number
    expect(value(next, "AAPL", "day_change_pct")).toBeCloseTo(monOpen / friday - 1, 12)
    // the rebuilt daily row of Friday is unchanged by the roll
    expect(value(m.snapshotAsOf("2026-11-20"), "AAPL", "rsi_14")).toBe(value(daily, "AAPL", "rsi_14"))
  })

  it("reads the universe as of a past date with the 14-day carry-forward", () => {
    const sunday = md.snapshotAsOf("2026-11-15")
    const ai = sunday.index.get("AAPL")!
    expect(isoDate(sunday.rowDays[ai])).toBe("2026-11-13")
    expect(isoDate(sunday.rowDays[sunday.index.get("BTC-USD")!])).toBe("2026-11-15")
    const fri = md.snapshotAsOf("2026-11-13")
    expect(value(sunday, "AAPL", "price")).toBe(value(fri, "AAPL", "price"))
    const earliest = isoDate(md.earliestDay - 15)
    expect(md.snapshotAsOf(earliest).size).toBe(0)
    expect(md.asOfCacheSize).toBeGreaterThan(0)
  })

  it("reads one ticker's row without a look-back limit, and its series matches the daily rows", () => {
    const row = md.rowAsOf("AAPL", "2030-01-01")!
    expect(row.date).toBe(isoDate(md.series[md.index.get("AAPL")!].lastDay!))
    const series = md.dailySeries("AAPL", "rsi_14", epochDay("2026-10-01"), epochDay("2026-11-13"))
    expect(series.length).toBeGreaterThan(25)
    for (const point of series.filter((_, k) => k % 7 === 0)) {
      const daily = md.snapshotAsOf(isoDate(point.day))
      expect(point.value).toBe(value(daily, "AAPL", "rsi_14"))
    }
  })

  it("ranks system universes by 30-day dollar volume and rebalances on the 1st", () => {
    const m = md.membershipOn(epochDay("2026-11-20"))!
    expect(isoDate(m.effectiveDay)).toBe("2026-11-01")
    expect(m.ranked.length).toBe(tickers.length)
    const before = md.membershipOn(epochDay("2026-10-31"))!
    expect(isoDate(before.effectiveDay)).toBe("2026-10-01")
  })

  it("imports real bars: they replace the simulated ones and every indicator is recomputed from them", () => {
    const m = build()
    const text = alphaVantageCsv("AAPL")
    const parsed = parseCsvBars(text, { ticker: "AAPL", resolveTicker: (s) => (s === "AAPL" ? "AAPL" : undefined) })
    const summary = m.importBars(parsed, FRIDAY_MIDDAY)
    expect(summary).toEqual({ tickers: ["AAPL"], rows: 5402, from: "1999-11-01", to: "2021-04-21" })
    const bars = parsed.get("AAPL")!
    const row = m.rowAsOf("AAPL", "2020-03-16")!
    const k = bars.findIndex((b) => b.date === "2020-03-16")
    expect(row.date).toBe("2020-03-16")
    expect(row.values.price).toBeCloseTo(bars[k].close, 9)
    const closes = bars.map((b) => b.close)
    expect(row.values.sma_50).toBeCloseTo(batch.sma(closes, 50)[k]!, 9)
    expect(row.values.rsi_14).toBeCloseTo(batch.rsi(closes, 14)[k]!, 9)
    // the universe as of an imported date holds the imported ticker only
    const asOf = m.snapshotAsOf("2020-03-16")
    expect(asOf.tickers).toEqual(["AAPL"])
    // the simulation resumes from the imported close: no break in the live price level beyond a normal day
    expect(value(m.latest, "AAPL", "price")).not.toBeNull()
    expect(() => m.importBars(new Map([["AAPL", [{ ...bars[0], date: "2026-11-20" }]]]), FRIDAY_MIDDAY)).toThrow(
      ImportRangeError
    )
  })
})

describe("minute-tier history", () => {
  it("walks back minute by minute and hour by hour, consistent with the live row and the daily row", () => {
    const md = build()
    const live = md.latest
    const minutes = md.intradaySeries("AAPL", "price", "1m", 0, FRIDAY_MIDDAY, 500)
    expect(minutes[0].t).toBe(FRIDAY_MIDDAY)
    expect(minutes[0].value).toBe(value(live, "AAPL", "price"))
    for (let k = 1; k < minutes.length; k++) expect(minutes[k - 1].t - minutes[k].t).toBeGreaterThan(0)
    // the previous session's last minute is its close, the daily row's price
    const thursdayClose = minutes.find((p) => p.t === closeInstant("2026-11-19"))!
    expect(thursdayClose.value).toBe(value(md.snapshotAsOf("2026-11-19"), "AAPL", "price"))
    const hours = md.intradaySeries("BTC-USD", "day_change_pct", "1h", 0, FRIDAY_MIDDAY, 30)
    expect(hours).toHaveLength(30)
    for (const p of hours) expect(p.t % 3_600_000).toBe(0)
    const equityHours = md.intradaySeries("SPY", "price", "1h", 0, FRIDAY_MIDDAY, 12)
    expect(equityHours.map((p) => new Date(p.t).toISOString().slice(11, 16))).toContain("21:00")
  })
})

describe("weekly history", () => {
  it("takes each week's last daily row", () => {
    const md = build()
    const weeks = md.weeklySeries("AAPL", "price", epochDay("2026-10-01"), epochDay("2026-11-19"))
    expect(weeks.map((w) => isoDate(w.day))).toEqual([
      "2026-10-02",
      "2026-10-09",
      "2026-10-16",
      "2026-10-23",
      "2026-10-30",
      "2026-11-06",
      "2026-11-13",
      "2026-11-19"
    ])
  })
})

describe("replay source", () => {
  it("replays a bar file (Yahoo format) from its start session, then simulates on from the last replayed close", () => {
    const text = syntheticYahooCsv("SPY")
    const all = parseCsvBars(text, { ticker: "SPY", resolveTicker: (s) => (s === "SPY" ? "SPY" : undefined) }).get(
      "SPY"
    )!
    const tape = all.slice(0, 40)
    const slot = tickers.findIndex((t) => t.ticker === "SPY")
    const md = MarketData.build({
      seed: 7,
      tickers,
      historyDays: 30,
      now: FRIDAY_MIDDAY,
      source: (sim) => new ReplaySource(sim, [{ slot, crypto: false, bars: tape }], "2026-09-01")
    })
    const s = md.series[slot]
    const k = s.indexAtOrBefore(epochDay("2026-09-01"))
    expect(isoDate(s.days[k])).toBe("2026-09-01")
    for (let n = 0; n < tape.length; n++) {
      expect(s.close[k + n]).toBe(tape[n].close)
      expect(s.volume[k + n]).toBe(tape[n].volume)
    }
    // the next session moves on from the last replayed close (a normal daily move, not a jump back to the sim's level)
    const after = s.close[k + tape.length]
    expect(Math.abs(Math.log(after / tape[tape.length - 1].close))).toBeLessThan(0.2)
    // the session before the start is simulated at the simulator's level
    expect(s.close[k - 1]).not.toBe(tape[0].close)
  })
})
