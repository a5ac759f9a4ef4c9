/**
 * A long walk's next stretch read ahead by the walk helper's thread (`history/stretchRead.ts`,
 * `engine/deepWalk.ts` `StretchRoom`): the series the service's thread takes out of the helper's arena
 * are those it reads itself, bar for bar, and a walk over them gives the same backtest; a read the
 * helper cannot do (its bar file gone from its path) is read by the service's thread instead; a series
 * the arena cannot hold (volumes that are not whole) is handed back as -1, its room zeroed.
 */
import { mkdtempSync, renameSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeStretchRoom, type StretchReads, type StretchRoom, stretchesOf } from "../../src/market/engine/deepWalk.js"
import { MarketData } from "../../src/market/engine/MarketData.js"
import type { MarketReader } from "../../src/market/engine/MarketReader.js"
import type { BarSeries } from "../../src/market/history/barSeries.js"
import { appendStored } from "../../src/market/history/deepBarsReader.js"
import { deepGridKey, openDeepGridFile, writeDeepGridFile } from "../../src/market/history/deepGridFile.js"
import { SeriesArena } from "../../src/market/history/seriesArena.js"
import { fillStretch, readAnswers, seriesIn } from "../../src/market/history/stretchRead.js"
import { stopWalkHelper, walkHelperReady, walkSharing } from "../../src/market/history/walkHelper.js"
import { epochDay } from "../../src/market/indicators/days.js"
import { familiesOf } from "../../src/market/indicators/index.js"
import { closesSuffice } from "../../src/market/indicators/kernels.js"
import { loadTickers } from "../../src/market/tickers/index.js"
import { backtestColumns, backtestPeriods, backtestStretches } from "../../src/research/backtest/run.js"
import { exitDay, rebalanceDays } from "../../src/research/backtest/schedule.js"
import { compileOn } from "../support/compileOn.js"

const all = loadTickers()
const PICK = new Set(["AAPL", "MSFT", "SPY", "BTC-USD", "ETH-USD", "KO", "XOM"])
const tickers = all.filter((t, i) => PICK.has(t.ticker) || i % 900 === 0)
const NOW = Date.UTC(2026, 10, 20, 18, 30)
const SEED = 13

/** a series' bars as plain numbers */
const barsOf = (s: BarSeries) =>
  Array.from({ length: s.length }, (_, j) => [s.days[j], s.openAt(j), s.highAt(j), s.lowAt(j), s.close[j], s.volume[j]])

describe("a walk's next stretch read ahead by the walk helper", () => {
  let md: MarketData
  let dir: string
  let key: string
  beforeAll(async () => {
    md = MarketData.build({ seed: SEED, tickers, historyDays: 60, now: NOW })
    const spec = md.deepGridSpec()
    key = deepGridKey(SEED, spec)
    dir = mkdtempSync(join(tmpdir(), "vigil-stretch-read-"))
    const walk = writeDeepGridFile(dir, key, spec)
    while (!walk.next().done) {}
    expect(await walkHelperReady()).toBe(true)
  }, 120_000)
  afterAll(() => {
    stopWalkHelper()
    rmSync(dir, { recursive: true, force: true })
  })

  const slots = () => md.tickers.map((_, i) => i)
  const fromDay = epochDay("2006-03-06")
  const toDay = epochDay("2010-09-24")
  /** stretches of a few months each over the sample, as the whole market's are over years */
  const stretches = (tail: number) =>
    stretchesOf(slots().length, fromDay, toDay, tail, md.wholeMarketFrom, slots().length * 520)
  /** each stretch's reader through one room that knows the stretches (so it reads ahead) */
  const cut = (tail: number, room: StretchRoom) =>
    stretches(tail).map((s) => ({
      from: s.from,
      to: s.to,
      reader: () => md.reachingBack(slots(), s.from, s.through, undefined, room)
    }))
  /** every stretch's series, read in order through `room` */
  const seriesRead = (room: StretchRoom) =>
    cut(10, room).map(({ reader }) => {
      const r: MarketReader = reader()
      return slots().map((i) => barsOf(r.series[i]!))
    })

  it("hands this thread the series it reads itself, and a walk over them gives the same backtest", () => {
    md.adoptDeepGrid(openDeepGridFile(dir, key)!)
    expect(stretches(10).length).toBeGreaterThan(4)
    walkSharing.enabled = false
    const alone = makeStretchRoom(stretches(10))
    const own = seriesRead(alone)
    walkSharing.enabled = true
    expect(alone.readsTaken).toBe(0)
    const ahead = makeStretchRoom(stretches(10))
    const read = seriesRead(ahead)
    // every stretch after the first read by the helper
    expect(ahead.readsTaken).toBe(stretches(10).length - 1)
    expect(read).toEqual(own)
    expect(read.flat().filter((s) => s.length > 0).length).toBeGreaterThan(slots().length * 3)

    const q = compileOn(md)("rsi_14 < 45 AND day_change_pct > -1")
    const days = rebalanceDays(fromDay, toDay, "1w")
    const spec = {
      slots: slots(),
      q,
      pick: { order: "rsi_14", desc: false, limit: 5 },
      scope: () => undefined,
      benchmark: md.index.get("SPY")!
    }
    const exits = days.map((d) => exitDay(d, 5))
    const collect = <T>(gen: Generator<T | undefined, void>) => [...gen].filter((x): x is T => x !== undefined)
    const whole = collect(backtestPeriods(md.reachingBack(slots(), fromDay), { ...spec, days, exits }))
    const room = makeStretchRoom(stretches(10))
    expect(collect(backtestStretches(cut(10, room), { ...spec, days, exits }))).toEqual(whole)
    expect(room.readsTaken).toBeGreaterThan(3)
    expect(whole.filter((p) => p.count > 0).length).toBeGreaterThan(days.length / 2)
  }, 120_000)

  it("reads the days and closes alone for a walk over closes: the same closes, the same backtest", () => {
    md.adoptDeepGrid(openDeepGridFile(dir, key)!)
    const q = compileOn(md)("rsi_14 < 45 AND day_change_pct > -1")
    const columns = backtestColumns(q, "rsi_14")
    expect(closesSuffice(columns)).toBe(true)
    const families = familiesOf(columns)
    const days = rebalanceDays(fromDay, toDay, "1w")
    const exits = days.map((d) => exitDay(d, 5))
    const spec = {
      slots: slots(),
      q,
      pick: { order: "rsi_14", desc: false, limit: 5 },
      scope: () => undefined,
      benchmark: md.index.get("SPY")!,
      days,
      exits
    }
    const collect = <T>(gen: Generator<T | undefined, void>) => [...gen].filter((x): x is T => x !== undefined)
    const over = (reads: StretchReads, room: StretchRoom) =>
      stretches(10).map((s) => ({
        from: s.from,
        to: s.to,
        reader: () => md.reachingBack(slots(), s.from, s.through, families, room, reads)
      }))
    const whole = collect(backtestStretches(over("bars", makeStretchRoom(stretches(10))), spec))
    expect(whole.filter((p) => p.count > 0).length).toBeGreaterThan(days.length / 2)
    // read ahead by the helper, and read here alone
    const ahead = makeStretchRoom(stretches(10))
    expect(collect(backtestStretches(over("closes", ahead), spec))).toEqual(whole)
    expect(ahead.readsTaken).toBeGreaterThan(3)
    walkSharing.enabled = false
    expect(collect(backtestStretches(over("closes", makeStretchRoom(stretches(10))), spec))).toEqual(whole)
    walkSharing.enabled = true
    // the closes and days as whole bars have them; no open, and no state off them
    const first = stretches(10)[1]!
    const closes = md.reachingBack(slots(), first.from, first.through, families, undefined, "closes")
    const bars = md.reachingBack(slots(), first.from, first.through, families, undefined, "bars")
    const aapl = md.index.get("AAPL")!
    const a = closes.series[aapl]!
    const b = bars.series[aapl]!
    expect(a.length).toBeGreaterThan(50)
    expect(Array.from(a.close.subarray(0, a.length))).toEqual(Array.from(b.close.subarray(0, b.length)))
    expect(Array.from(a.days.subarray(0, a.length))).toEqual(Array.from(b.days.subarray(0, b.length)))
    expect(a.openAt(0)).toBe(0)
    expect(() => closes.stateAt(aapl, 20)).toThrow(/closes alone/)
    // a stretch reaching into the window: the window's own days and closes after the years before
    const last = md.wholeMarketFrom - 40
    const into = (reads: StretchReads) =>
      md.reachingBack(slots(), last, md.wholeMarketFrom + 30, families, undefined, reads).series[aapl]!
    const c = into("closes")
    const w = into("bars")
    expect(w.days[w.length - 1]).toBeGreaterThan(md.wholeMarketFrom)
    expect(Array.from(c.close.subarray(0, c.length))).toEqual(Array.from(w.close.subarray(0, w.length)))
    expect(Array.from(c.days.subarray(0, c.length))).toEqual(Array.from(w.days.subarray(0, w.length)))
  }, 120_000)

  it("reads here what the helper cannot read (its bar file gone from its path)", () => {
    const file = openDeepGridFile(dir, key)!
    md.adoptDeepGrid(file)
    walkSharing.enabled = false
    const own = seriesRead(makeStretchRoom(stretches(10)))
    walkSharing.enabled = true
    // this thread keeps the file open; the helper looks it up by its path, which now names nothing
    const bars = join(dir, `deep-grid-${key}.bars`)
    renameSync(bars, `${bars}.moved`)
    try {
      const room = makeStretchRoom(stretches(10))
      expect(seriesRead(room)).toEqual(own)
      expect(room.readsTaken).toBe(0)
    } finally {
      renameSync(`${bars}.moved`, bars)
    }
    // back at its path, it is read ahead again
    const room = makeStretchRoom(stretches(10))
    expect(seriesRead(room)).toEqual(own)
    expect(room.readsTaken).toBe(stretches(10).length - 1)
  }, 120_000)

  it("hands back -1 for a series the arena cannot hold, its room zeroed, and the bars of the rest", () => {
    const file = openDeepGridFile(dir, key)!
    const bars = file.bars!
    const from = epochDay("2008-01-02")
    const ends = Int32Array.from(slots(), () => epochDay("2008-12-31"))
    // ticker 1's room is 10 bars of a year's: its series grows out of the arena
    const capacities = Int32Array.from(slots(), (i) => (i === 1 ? 10 : 400))
    const total = capacities.reduce((a, b) => a + b, 0)
    const arena = new SeriesArena(total)
    // what the arena held before (another stretch's bars): zeroed by the read
    for (const s of seriesIn(arena, capacities)) s.days.fill(7)
    const answers = readAnswers(slots().length)
    fillStretch(
      {
        kind: "read",
        path: "",
        layout: bars.layout,
        arena: arena.parts(),
        total,
        from,
        slots: Int32Array.from(slots()),
        capacities,
        ends,
        ...answers,
        closesOnly: false
      },
      bars
    )
    const taken = seriesIn(arena.rewind(), capacities)
    expect(answers.lengths[1]).toBe(-1)
    expect(Array.from(taken[1]!.days).every((d) => d === 0)).toBe(true)
    // the others hold what reading them here gives
    const own = seriesIn(new SeriesArena(total), capacities)
    appendStored(
      bars,
      Int32Array.from(slots()),
      from,
      (i) => ends[i]!,
      (i) => own[i]!
    )
    let full = 0
    for (const i of slots().filter((i) => i !== 1)) {
      taken[i]!.length = answers.lengths[i]!
      expect(barsOf(taken[i]!), md.tickers[i]!.ticker).toEqual(barsOf(own[i]!))
      if (taken[i]!.length > 200) full++
      expect(Array.from(taken[i]!.days.subarray(taken[i]!.length)).every((d) => d === 0)).toBe(true)
    }
    // a year of bars for the tickers listed by then
    expect(full).toBeGreaterThan(5)
    file.close()
  })
})
