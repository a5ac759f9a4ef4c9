import { beforeAll, describe, expect, it } from "vitest"
import { isTradingDay } from "../../src/market/calendar.js"
import { MarketData, runToEnd } from "../../src/market/engine/MarketData.js"
import { DailyWalk } from "../../src/market/history/dailyWalk.js"
import { FLAG_NAMES, FlagHistory } from "../../src/market/history/flagHistory.js"
import { epochDay, isoDate } from "../../src/market/indicators/days.js"
import type { Snapshot } from "../../src/market/snapshot.js"
import { parseCsvBars } from "../../src/market/sources/csvBars.js"
import { loadTickers } from "../../src/market/tickers/index.js"
import { alphaVantageCsv } from "../support/fixtures.js"

const PICK = new Set(["AAPL", "MSFT", "SPY", "NVDA", "BTC-USD", "ETH-USD", "F", "KO"])
const tickers = loadTickers().filter((t, i) => PICK.has(t.ticker) || i % 250 === 0)
/** Friday 2026-11-20, 13:30 New York: the session is open */
const FRIDAY_MIDDAY = Date.UTC(2026, 10, 20, 18, 30)

const build = () => MarketData.build({ seed: 11, tickers, historyDays: 40, now: FRIDAY_MIDDAY })

const cell = (s: Snapshot, r: number, column: string): number | boolean | null => {
  const col = s.columns.get(column)!
  if (col.kind === "string") return col.values[r] as any
  return col.valid[r] === 0 ? null : col.kind === "boolean" ? col.values[r] === 1 : col.values[r]
}

describe("daily walk and flag history", () => {
  let md: MarketData
  let history: FlagHistory
  beforeAll(() => {
    md = build()
    history = new FlagHistory(md.size, md.isCrypto)
    runToEnd(history.sync(md))
  })

  it("walks rows equal to the as-of rows, column for column (news included)", () => {
    const from = epochDay("2026-10-28")
    const to = epochDay("2026-11-04")
    const slots = Array.from({ length: md.size }, (_, i) => i)
    const walk = new DailyWalk(md, {
      slots,
      start: (_i, s) => s.indexAtOrBefore(from),
      fresh: false,
      toDay: to,
      inputs: "all"
    })
    expect(walk.row.size).toBeGreaterThan(100)
    let compared = 0
    const seen = new Set<number>()
    runToEnd(
      walk.run((k, j, day) => {
        expect(walk.series[k].days[j]).toBe(day)
        expect(day).toBeLessThanOrEqual(to)
        seen.add(day)
        if (day < from) return
        const snap = md.snapshotAsOf(isoDate(day))
        const r = snap.index.get(md.tickers[slots[k]].ticker)!
        expect(snap.rowDays[r]).toBe(day)
        for (const [name, col] of walk.row) {
          const mine = col.kind === "string" ? null : col.valid[0] === 0 ? null : col.values[0]
          const theirs = cell(snap, r, name)
          expect(mine === null ? null : col.kind === "boolean" ? mine === 1 : mine, `${name} ${isoDate(day)}`).toEqual(
            theirs
          )
        }
        compared++
      })
    )
    // every calendar day of the range has crypto bars
    for (let d = from; d <= to; d++) expect(seen.has(d)).toBe(true)
    expect(compared).toBeGreaterThan(md.size * 5)
  })

  it("holds every flag of every bar as the as-of row has it", () => {
    expect(FLAG_NAMES.length).toBeGreaterThan(20)
    for (const date of [isoDate(history.counts!.firstDay + 20), "2026-06-15", "2026-11-19"]) {
      const snap = md.snapshotAsOf(date)
      expect(snap.size).toBeGreaterThan(0)
      for (let r = 0; r < snap.size; r++) {
        const i = md.index.get(snap.tickers[r])!
        const j = history.barAtOrBefore(i, epochDay(date))
        expect(history.barDay(i, j)).toBe(snap.rowDays[r])
        FLAG_NAMES.forEach((flag, f) => {
          expect(history.value(i, j, f), `${snap.tickers[r]} ${flag} ${date}`).toBe(cell(snap, r, flag))
        })
      }
    }
  })

  it("counts per day equal the as-of snapshot's matches, weekends and carry-forward included", () => {
    const counts = history.counts!
    expect(isoDate(counts.lastDay)).toBe("2026-11-19")
    const first = isoDate(counts.firstDay)
    // the first day, a Saturday, a holiday (Presidents' Day), the last day
    for (const date of [first, "2026-02-14", "2026-02-16", "2026-11-19"]) {
      const snap = md.snapshotAsOf(date)
      const d = epochDay(date) - counts.firstDay
      expect(counts.totals[d], date).toBe(snap.size)
      FLAG_NAMES.forEach((flag, f) => {
        let expected = 0
        for (let r = 0; r < snap.size; r++) if (cell(snap, r, flag) === true) expected++
        expect(counts.counts[d * FLAG_NAMES.length + f], `${flag} ${date}`).toBe(expected)
        const among = history.countAmong(
          Array.from({ length: md.size }, (_, i) => i),
          f,
          epochDay(date)
        )
        expect(among).toEqual({ count: expected, total: snap.size })
      })
    }
  })

  it("adds each closed session's bars and recomputes an imported ticker", () => {
    const m = build()
    const h = new FlagHistory(m.size, m.isCrypto)
    runToEnd(h.sync(m))
    expect(runToEnd(h.sync(m))).toBe(false)
    const version = h.counts!.version
    // the Friday session closes, then the crypto day ends: both days' bars join the history
    m.refresh(Date.UTC(2026, 10, 21, 0, 30))
    expect(runToEnd(h.sync(m))).toBe(true)
    expect(h.counts!.version).toBe(version + 1)
    expect(isoDate(h.counts!.lastDay)).toBe("2026-11-20")
    expect(isTradingDay("2026-11-20")).toBe(true)
    const snap = m.snapshotAsOf("2026-11-20")
    const f = FLAG_NAMES.indexOf("above_sma_50")
    let expected = 0
    for (let r = 0; r < snap.size; r++) if (cell(snap, r, "above_sma_50") === true) expected++
    const d = epochDay("2026-11-20") - h.counts!.firstDay
    expect(h.counts!.counts[d * FLAG_NAMES.length + f]).toBe(expected)
    expect(h.counts!.totals[d]).toBe(snap.size)
    // the counts updated from the new bars on equal counts computed from scratch
    const fresh = new FlagHistory(m.size, m.isCrypto)
    runToEnd(fresh.sync(m))
    expect(fresh.counts!.firstDay).toBe(h.counts!.firstDay)
    expect(fresh.counts!.lastDay).toBe(h.counts!.lastDay)
    expect(Array.from(h.counts!.counts)).toEqual(Array.from(fresh.counts!.counts))
    expect(Array.from(h.counts!.totals)).toEqual(Array.from(fresh.counts!.totals))

    const text = alphaVantageCsv("AAPL")
    const parsed = parseCsvBars(text, { ticker: "AAPL", resolveTicker: (s) => (s === "AAPL" ? "AAPL" : undefined) })
    m.importBars(parsed, Date.UTC(2026, 10, 21, 0, 30))
    const aapl = m.index.get("AAPL")!
    expect(h.stale(m)).toEqual([aapl])
    expect(h.isCurrent(m, aapl)).toBe(false)
    runToEnd(h.sync(m))
    expect(h.stale(m)).toEqual([])
    expect(isoDate(h.counts!.firstDay)).toBe("1999-11-01")
    const old = m.snapshotAsOf("2020-03-16")
    expect(old.tickers).toEqual(["AAPL"])
    const j = h.barAtOrBefore(aapl, epochDay("2020-03-16"))
    FLAG_NAMES.forEach((flag, k) => {
      expect(h.value(aapl, j, k), flag).toBe(cell(old, 0, flag))
    })
    const day = epochDay("2020-03-16") - h.counts!.firstDay
    expect(h.counts!.totals[day]).toBe(1)
  })
})
