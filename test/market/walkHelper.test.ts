/**
 * A history walk shared with the walk helper's thread (`walkHelper.ts`, `keptWalk.ts`) fills
 * `KeptRows`' columns bit for bit as one thread alone does — over the window's series (start states
 * off its checkpoints) and over series reaching back before it (start states off the grid) — the
 * helper walking some of the runs; a helper that fails a run leaves it to the service's thread, and
 * the next walk is shared again.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MarketData } from "../../src/market/engine/MarketData.js"
import { deepGridInMemory } from "../../src/market/history/deepGrid.js"
import { barsAsOf, barsInRange, type KeptBars, KeptRows } from "../../src/market/history/keptRows.js"
import { stopWalkHelper, walkHelperReady } from "../../src/market/history/walkHelper.js"
import { DAY_MS, epochDay } from "../../src/market/indicators/days.js"
import { loadTickers } from "../../src/market/tickers/index.js"

const NOW = Date.UTC(2026, 10, 20, 18, 30)
const TODAY = Math.floor(NOW / DAY_MS)
/** columns of every family a walk without inputs advances */
const COLUMNS = [
  "price",
  "rsi_14",
  "sma_200",
  "macd_line",
  "adx_14",
  "atr_14",
  "stoch_k",
  "bb_upper",
  "volatility_20d",
  "high_52w",
  "return_1m",
  "obv",
  "golden_cross"
]
const tickers = loadTickers().filter((t, i) => i % 350 === 0 || t.ticker === "BTC-USD" || t.ticker === "AAPL")

/** the kept rows of `kept` walked by one thread, and shared with the helper in runs of a few bars */
const both = (md: MarketData, slots: ReadonlyArray<number>, kept: KeptBars, failAfter?: number) => {
  const alone = new KeptRows(md, slots, COLUMNS, kept)
  for (const _ of alone.walk({ shareFrom: Number.POSITIVE_INFINITY })) {
  }
  const shared = new KeptRows(md, slots, COLUMNS, kept)
  for (const _ of shared.walk({ shareFrom: 0, runBars: 64, helperFailsAfter: failAfter, helperFirst: true })) {
  }
  return { alone, shared }
}

const expectSame = (a: KeptRows, b: KeptRows) => {
  expect(b.size).toBe(a.size)
  expect(a.size).toBeGreaterThan(500)
  for (let c = 0; c < a.columns.length; c++) {
    const x = a.columns[c]!
    const y = b.columns[c]!
    expect(Buffer.from(y.valid.buffer).equals(Buffer.from(x.valid.buffer)), `${x.name}: validity`).toBe(true)
    // bit for bit (NaN and -0 included)
    expect(Buffer.from(y.values.buffer).equals(Buffer.from(x.values.buffer)), `${x.name}: values`).toBe(true)
    expect(
      x.valid.some((v) => v === 1),
      `${x.name}: some valid`
    ).toBe(true)
  }
}

describe("a history walk shared with the walk helper's thread", () => {
  let md: MarketData
  let slots: Array<number>
  beforeAll(async () => {
    md = MarketData.build({ seed: 7, tickers, historyDays: 120, now: NOW })
    slots = [...Array(md.size).keys()]
    expect(await walkHelperReady()).toBe(true)
  }, 120_000)
  afterAll(() => stopWalkHelper())

  it("fills the columns bit for bit as one thread alone, the helper walking some of the runs", () => {
    const { alone, shared } = both(md, slots, barsInRange(TODAY - 200, TODAY))
    expectSame(alone, shared)
    expect(alone.shared).toBeUndefined()
    expect(shared.shared!.runs).toBeGreaterThan(20)
    expect(shared.shared!.byHelper).toBeGreaterThan(0)
    // sparse kept bars (a backtest's rebalance days): the others only committed, by either thread
    const days = Int32Array.from({ length: 20 }, (_, k) => TODAY - 190 + 9 * k)
    const sparse = both(md, slots, barsAsOf(days))
    expectSame(sparse.alone, sparse.shared)
  })

  it("walks again here a run the helper failed, and shares the next walk", () => {
    const failed = both(md, slots, barsInRange(TODAY - 150, TODAY), 1)
    expectSame(failed.alone, failed.shared)
    const next = both(md, slots, barsInRange(TODAY - 150, TODAY))
    expectSame(next.alone, next.shared)
    expect(next.shared.shared!.byHelper).toBeGreaterThan(0)
  })

  it("over series reaching back before the window: start states off the grid, bit for bit", () => {
    md.adoptDeepGrid(deepGridInMemory(md.deepGridSpec()))
    const fromDay = epochDay("2011-03-07")
    const view = md.reachingBack(slots, fromDay, fromDay + 400) as unknown as MarketData
    const { alone, shared } = both(view, slots, barsInRange(fromDay - 14, fromDay + 400))
    expectSame(alone, shared)
    expect(shared.shared!.byHelper).toBeGreaterThan(0)
  }, 120_000)
})

describe("the walk helper's thread in a process", () => {
  it("keeps no process alive: a script that shared a walk with it exits on its own", () => {
    const script = fileURLToPath(new URL("./support/walkHelperExit.ts", import.meta.url))
    const run = spawnSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8", timeout: 60_000 })
    expect(run.stderr).toBe("")
    expect(run.stdout).toContain("ready true")
    expect(run.stdout).toMatch(/walked \d+ bars in \d+ runs/)
    // ended by itself, not by the timeout's signal
    expect(run.signal).toBeNull()
    expect(run.status).toBe(0)
  }, 90_000)
})
