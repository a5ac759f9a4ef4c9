/**
 * Whole-market as-of rows before the window (issue 17, items 1 and 2): read off the grid of
 * states (`history/deepGrid.ts`, `engine/deepAsOf.ts`), every ticker's row equal, bit for bit, to
 * the row its own history from its first bar gives (`rowAsOf`, `history/deepTicker.ts`), with the
 * as-of scan's carry-forward; imported bars included; the system universes' memberships since
 * 2003 by the window's rule.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { dailyEvaluations, dailyStretches } from "../../src/alerts/dryRun/dailyEvaluations.js"
import type { Evaluation } from "../../src/alerts/dryRun/replay.js"
import { isTradingDay } from "../../src/market/calendar.js"
import { readRow } from "../../src/market/engine/asOf.js"
import { gridIndexFor } from "../../src/market/engine/deepAsOf.js"
import { makeStretchRoom, stretchesOf } from "../../src/market/engine/deepWalk.js"
import { MarketData } from "../../src/market/engine/MarketData.js"
import { BarSeries } from "../../src/market/history/barSeries.js"
import { DEEP_GRID_EVERY, deepGridBarsTo, deepGridInMemory } from "../../src/market/history/deepGrid.js"
import {
  barBytesAtMost,
  type DeepGridFile,
  deepGridKey,
  openDeepGridFile,
  writeDeepGridFile
} from "../../src/market/history/deepGridFile.js"
import { epochDay, isoDate } from "../../src/market/indicators/days.js"
import { parseCsvBars } from "../../src/market/sources/csvBars.js"
import { loadTickers } from "../../src/market/tickers/index.js"
import { computeMembership } from "../../src/market/universes.js"
import { backtestPeriods, backtestStretches } from "../../src/research/backtest/run.js"
import { exitDay, rebalanceDays } from "../../src/research/backtest/schedule.js"
import { compileOn } from "../support/compileOn.js"

const all = loadTickers()
const PICK = new Set(["AAPL", "MSFT", "SPY", "BTC-USD", "ETH-USD", "USDT", "SOL", "KO", "XOM"])
const late = all.filter((t) => t.first_year !== null && t.asset_type !== "CRYPTO").slice(0, 4)
const tickers = all.filter((t, i) => PICK.has(t.ticker) || late.includes(t) || i % 700 === 0)
const FRIDAY_MIDDAY = Date.UTC(2026, 10, 20, 18, 30)

/** every ticker's row of the snapshot against its own history's row as of the date */
const expectRowsOfOwnHistory = (md: MarketData, date: string) => {
  const snap = md.snapshotAsOf(date)
  const day = epochDay(date)
  let rows = 0
  for (const t of md.tickers) {
    const own = md.rowAsOf(t.ticker, date)
    const r = snap.index.get(t.ticker)
    if (own === undefined || day - epochDay(own.date) > 14) {
      expect(r, `${t.ticker} on ${date}: no row within 14 days`).toBeUndefined()
      continue
    }
    expect(r, `${t.ticker} on ${date}: a row of ${own.date}`).toBeDefined()
    expect(isoDate(snap.rowDays[r!]), `${t.ticker} on ${date}`).toBe(own.date)
    expect(readRow(snap.columns, r!), `${t.ticker} on ${date}`).toEqual(own.values)
    rows++
  }
  expect(snap.size).toBe(rows)
  return rows
}

describe.each([
  ["bars read off the bar file kept beside the grid, in groups of 7 tickers", true, 7],
  ["bars regenerated", false, undefined]
])("whole-market rows before the window: %s", (_, keepBars, group) => {
  let md: MarketData
  beforeAll(() => {
    md = MarketData.build({ seed: 11, tickers, historyDays: 60, now: FRIDAY_MIDDAY })
    md.adoptDeepGrid(deepGridInMemory({ ...md.deepGridSpec(), group }, keepBars))
    expect(md.deepGrid!.bars !== undefined).toBe(keepBars)
  }, 120_000)

  it("gives every ticker the row of its own history from its first bar, on any day since 2003", () => {
    const before = isoDate(md.wholeMarketFrom - 1)
    const dates = [
      "2003-01-02", // the first day: no bar before it
      "2003-01-20", // a holiday two weeks in
      "2004-06-11",
      "2008-10-10",
      "2010-06-06", // a Sunday: Friday's rows, crypto's Sunday
      "2013-12-25",
      "2017-03-08", // on a grid day's neighbourhood
      "2021-08-02",
      before, // the day before the window
      // a grid day, and days just after one: rows on or after it restore there, older rows at the one before
      isoDate(epochDay("2003-01-02") + DEEP_GRID_EVERY * 137),
      isoDate(epochDay("2003-01-02") + DEEP_GRID_EVERY * 150 + 3),
      isoDate(epochDay("2003-01-02") + DEEP_GRID_EVERY * 171 + 6),
      isoDate(md.wholeMarketFrom - 40)
    ]
    let rows = 0
    for (const date of dates) rows += expectRowsOfOwnHistory(md, date)
    expect(rows).toBeGreaterThan(dates.length * 10)
    // 2002: no ticker has a state yet
    expect(md.snapshotAsOf("2002-12-31").size).toBe(0)
  }, 120_000)

  it("walks years before the window in stretches as one walk over them: a backtest's periods, a dry-run's evaluations", () => {
    const q = compileOn(md)("rsi_14 < 45 AND pct_rank(day_change_pct) > 0.3")
    const slots = md.tickers.map((_, i) => i)
    const fromDay = epochDay("2007-02-05")
    const toDay = epochDay("2009-11-27")
    // small stretches (a few months each) over a few tickers, as the whole market's are over years, their
    // series kept in one room as walkStretchesOf keeps them (each stretch's in the arena of the one before)
    const cut = (tail: number) => {
      const room = makeStretchRoom()
      return stretchesOf(slots.length, fromDay, toDay, tail, md.wholeMarketFrom, slots.length * 520).map((s) => ({
        from: s.from,
        to: s.to,
        reader: () => md.reachingBack(slots, s.from, s.through, undefined, room)
      }))
    }
    expect(cut(10).length).toBeGreaterThan(3)
    const days = rebalanceDays(fromDay, toDay, "1w")
    const exits = days.map((d) => exitDay(d, 5))
    const spec = {
      slots,
      q,
      pick: { order: "rsi_14", desc: false, limit: 4 },
      scope: () => undefined,
      benchmark: md.index.get("SPY")!
    }
    const collect = <T>(gen: Generator<T | undefined, void>) => [...gen].filter((x): x is T => x !== undefined)
    const whole = collect(backtestPeriods(md.reachingBack(slots, fromDay), { ...spec, days, exits }))
    const stretched = collect(backtestStretches(cut(10), { ...spec, days, exits }))
    expect(stretched).toEqual(whole)
    expect(whole.filter((p) => p.count > 0).length).toBeGreaterThan(days.length / 2)
    // a dry-run's evaluations, and the closes of its forward returns
    // (read as each comes: an evaluation's prices are those of the latest one)
    const evaluations = (gen: Generator<Evaluation | undefined, void>) => {
      const out: Array<unknown> = []
      for (const e of gen) {
        if (e === undefined) continue
        const next = Array.from(e.matched, (id) => [e.price(id), e.closeAt(id, e.bar(id) + 20)])
        out.push({ at: e.at, matched: Array.from(e.matched), next })
      }
      return out
    }
    const dry = { slots, q, clear: undefined, scope: () => undefined }
    const one = evaluations(dailyEvaluations(md.reachingBack(slots, fromDay), { ...dry, fromDay, toDay }))
    const many = evaluations(dailyStretches(cut(40), dry))
    expect(many).toEqual(one)
    expect(one.length).toBeGreaterThan(700)
  }, 120_000)

  it("gives a walk reaching back before the window each walked ticker's bars of its own history, then the window's", () => {
    const fromDay = epochDay("2009-03-10")
    const slots = md.tickers.map((_, i) => i).filter((i) => i % 3 !== 1)
    const view = md.reachingBack(slots, fromDay) as unknown as { series: ReadonlyArray<BarSeries> }
    let bars = 0
    for (const i of slots) {
      const s = view.series[i]!
      const own = md.deepOf(i)?.series
      const window = md.series[i]!
      const j0 = s.indexAtOrAfter(fromDay - 600)
      for (let j = j0; j < s.length; j++) {
        const inWindow = window.length > 0 && s.days[j]! >= window.days[0]!
        const ref = inWindow ? window : own!
        const r = ref.indexAtOrBefore(s.days[j]!)
        expect(ref.days[r], `${md.tickers[i]!.ticker} bar ${j}`).toBe(s.days[j])
        expect([s.openAt(j), s.highAt(j), s.lowAt(j), s.close[j], s.volume[j]]).toEqual([
          ref.openAt(r),
          ref.highAt(r),
          ref.lowAt(r),
          ref.close[r],
          ref.volume[r]
        ])
        bars++
      }
    }
    expect(bars).toBeGreaterThan(slots.length * 100)
    // a stretch of it (`through`): the same bars, to that day
    const through = fromDay + 200
    const stretch = md.reachingBack(slots, fromDay, through) as unknown as { series: ReadonlyArray<BarSeries> }
    for (const i of slots) {
      const s = view.series[i]!
      const t = stretch.series[i]!
      const n = s.indexAtOrBefore(through) + 1
      if (s === md.series[i]) continue // not reaching back: the window's series
      expect(t.length, md.tickers[i]!.ticker).toBe(n)
      expect(Array.from(t.days.subarray(0, n))).toEqual(Array.from(s.days.subarray(0, n)))
      expect(Array.from(t.close.subarray(0, n))).toEqual(Array.from(s.close.subarray(0, n)))
    }
  }, 120_000)
})

describe("whole-market rows before the window", () => {
  let md: MarketData
  beforeAll(() => {
    md = MarketData.build({ seed: 11, tickers, historyDays: 60, now: FRIDAY_MIDDAY })
    md.adoptDeepGrid(deepGridInMemory(md.deepGridSpec()))
  }, 120_000)

  it("starts each read at the grid day at or before every row's state", () => {
    const meta = md.deepGrid!.meta
    expect(meta.every).toBe(DEEP_GRID_EVERY)
    for (const date of ["2003-01-02", "2003-01-17", "2003-03-21", "2010-06-04"]) {
      const day = epochDay(date)
      const k = gridIndexFor(meta, day)
      expect(meta.origin + meta.every * k).toBeLessThanOrEqual(Math.max(meta.origin, day - 14))
      if (day - 14 >= meta.origin + meta.every) expect(meta.origin + meta.every * (k + 1)).toBeGreaterThan(day - 14)
    }
  })

  it("ranks the system universes monthly since 2003 by the window's rule, over the same bars", () => {
    const names = md.tickers.map((t) => t.ticker)
    const deep = md.tickers.map((_, i) => md.deepOf(i)?.series ?? new BarSeries(0))
    for (const first of ["2003-02-01", "2006-03-01", "2012-01-01", "2020-05-01"]) {
      const day = epochDay(first)
      const expected = computeMembership(day, names, deep)
      expect(md.membershipOn(day), first).toEqual(expected)
      expect(md.membershipOn(day + 20), `${first} + 20 days`).toEqual(expected)
      expect(expected.ranked.length).toBeGreaterThan(5)
    }
    // before the first full trailing window: none
    expect(md.membershipOn(epochDay("2003-01-15"))).toBeUndefined()
    // the window's own memberships are unchanged
    const window = md.memberships[0]!
    expect(md.membershipOn(window.effectiveDay)).toBe(window)
  })

  it("reads imported years: the grid built over the imported bars gives their rows", () => {
    const market = MarketData.build({ seed: 11, tickers, historyDays: 60, now: FRIDAY_MIDDAY })
    const csv = [
      "ticker,date,open,high,low,close,volume",
      "KO,2009-05-04,20,21,19.5,20.5,1000000",
      "KO,2009-05-05,20.5,21.5,20,21,1100000",
      "KO,2009-05-06,21,21.5,20.5,21.25,900000",
      "AAPL,2009-05-05,120,125,119,124,30000000"
    ].join("\n")
    market.importBars(parseCsvBars(csv, { file: "two.csv", resolveTicker: (s: string) => s }), FRIDAY_MIDDAY)
    market.adoptDeepGrid(deepGridInMemory(market.deepGridSpec()))
    for (const date of ["2009-05-05", "2009-05-06", "2009-08-14", "2011-02-02"]) expectRowsOfOwnHistory(market, date)
    const snap = market.snapshotAsOf("2009-05-06")
    expect(readRow(snap.columns, snap.index.get("KO")!).price).toBe(21.25)
    // an import afterwards drops the grid (it was walked over other bars)
    market.importBars(
      parseCsvBars(["ticker,date,open,high,low,close,volume", "KO,2012-01-03,30,31,29,30.5,500000"].join("\n"), {
        file: "ko.csv",
        resolveTicker: (s: string) => s
      }),
      FRIDAY_MIDDAY
    )
    expect(market.deepGrid).toBeUndefined()
  }, 120_000)

  it("keeps the grid and its key through an import after the bars it reads (into the window)", () => {
    const market = MarketData.build({ seed: 11, tickers, historyDays: 60, now: FRIDAY_MIDDAY })
    const spec = market.deepGridSpec()
    const before = deepGridKey(11, spec)
    market.adoptDeepGrid(deepGridInMemory(spec))
    const grid = market.deepGrid
    const last = isoDate(deepGridBarsTo(spec))
    const csv = (date: string) =>
      parseCsvBars(["ticker,date,open,high,low,close,volume", `KO,${date},30,31,29,30.5,500000`].join("\n"), {
        file: "ko.csv",
        resolveTicker: (s: string) => s
      })
    // the session before this Friday's: in the window, after every bar the grid reads
    market.importBars(csv("2026-11-19"), FRIDAY_MIDDAY)
    expect(market.deepGrid).toBe(grid)
    expect(deepGridKey(11, market.deepGridSpec())).toBe(before)
    // the last day the grid reads (its memberships' trailing month): a new grid, a new key
    const weekday = [0, 1, 2, 3, 4].map((k) => isoDate(epochDay(last) - k)).find((d) => isTradingDay(d))!
    market.importBars(csv(weekday), FRIDAY_MIDDAY)
    expect(market.deepGrid).toBeUndefined()
    expect(deepGridKey(11, market.deepGridSpec())).not.toBe(before)
  }, 120_000)

  it("keeps the grid in a file with its bars beside it; a grid whose bar file is gone or cut short reads without them", () => {
    const market = MarketData.build({ seed: 11, tickers, historyDays: 60, now: FRIDAY_MIDDAY })
    const spec = market.deepGridSpec()
    const key = deepGridKey(11, spec)
    const dir = mkdtempSync(join(tmpdir(), "vigil-deep-grid-"))
    try {
      const walk = writeDeepGridFile(dir, key, spec)
      while (!walk.next().done) {}
      const bars = join(dir, `deep-grid-${key}.bars`)
      expect(statSync(bars).size).toBeGreaterThan(0)
      expect(statSync(bars).size).toBeLessThanOrEqual(barBytesAtMost(spec))
      expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([])
      const dates = ["2004-06-11", "2015-02-27", isoDate(market.wholeMarketFrom - 3)]
      const rows = (file: DeepGridFile) => {
        market.adoptDeepGrid(file)
        const out = dates.map((d) => {
          const snap = market.snapshotAsOf(d)
          return snap.tickers.map((t, r) => [t, readRow(snap.columns, r)])
        })
        file.close()
        return out
      }
      const full = openDeepGridFile(dir, key)!
      expect(full.bars).toBeDefined()
      const withBars = rows(full)
      expect(withBars.flat().length).toBeGreaterThan(20)
      truncateSync(bars, statSync(bars).size - 8)
      const cut = openDeepGridFile(dir, key)!
      expect(cut.bars).toBeUndefined()
      expect(rows(cut)).toEqual(withBars)
      rmSync(bars)
      const none = openDeepGridFile(dir, key)!
      expect(none.bars).toBeUndefined()
      expect(rows(none)).toEqual(withBars)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
