/**
 * Indicator checkpoints: dense (every 8 bars) from the history window's
 * start, sparse (every 64) in the warm-up before it. A state rebuilt for any
 * bar — before the window, at its edges, inside it, past the last checkpoint
 * — is the state committed from scratch, bit for bit; and the sparse part
 * holds fewer checkpoints.
 */
import { describe, expect, it } from "@effect/vitest"
import { CHECKPOINT_EVERY, HistoryCheckpoints, SPARSE_EVERY } from "../../src/market/engine/checkpoints.js"
import { BarSeries } from "../../src/market/history/barSeries.js"
import { checkpoint, commit, type DailyState, EQUITY_DAILY, makeState } from "../../src/market/indicators/index.js"
import { syntheticBars } from "./indicators-fixtures.js"

const BARS = syntheticBars(530, 18_000, 7)
const series = new BarSeries(BARS.length)
for (const b of BARS) series.push(b.day, b.open, b.high, b.low, b.close, b.volume)
/** the same bars on a cent grid, kept scaled (as the market keeps them) */
const cents = (x: number) => Math.round(x * 100) / 100
const GRID = BARS.map((b) => ({
  ...b,
  open: cents(b.open),
  high: cents(b.high),
  low: cents(b.low),
  close: cents(b.close)
}))
const gridSeries = new BarSeries(GRID.length)
for (const b of GRID) gridSeries.push(b.day, b.open, b.high, b.low, b.close, b.volume)
gridSeries.compact()

/** commits the whole series with checkpoints dense from `denseFrom` (as the market does at start) */
const committed = (denseFrom: number, upTo = BARS.length) => {
  const cps = new HistoryCheckpoints(1)
  cps.reset(0, denseFrom)
  cps.reserve(0, BARS.length)
  const st = makeState(EQUITY_DAILY)
  for (let j = 0; j < upTo; j++) {
    cps.beforeCommit(0, j, st)
    commit(st, BARS[j]!)
  }
  return cps
}

const fromScratch = (j: number): DailyState => {
  const st = makeState(EQUITY_DAILY)
  for (let k = 0; k < j; k++) commit(st, BARS[k]!)
  return st
}

const JS = [
  0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 191, 192, 193, 200, 251, 252, 253, 256, 300, 399, 400, 511, 512, 520, 529, 530
]

describe("HistoryCheckpoints", () => {
  for (const denseFrom of [0, 252, 530]) {
    it(`rebuilds every state bit for bit (dense from bar ${denseFrom})`, () => {
      const cps = committed(denseFrom)
      for (const j of JS) {
        const rebuilt = cps.stateBefore(0, j, series, "CS")
        expect(JSON.stringify(checkpoint(rebuilt)), `state before bar ${j}`).toBe(
          JSON.stringify(checkpoint(fromScratch(j)))
        )
      }
    })
  }

  it("rebuilds past the bars committed so far from the last checkpoint written", () => {
    // 304: the state at exactly the committed bars, a checkpoint position not written yet
    for (const upTo of [300, 304]) {
      const cps = committed(252, upTo)
      for (const j of [299, 300, 304, 320, 400]) {
        expect(JSON.stringify(checkpoint(cps.stateBefore(0, j, series, "CS"))), `bar ${j} of ${upTo}`).toBe(
          JSON.stringify(checkpoint(fromScratch(j)))
        )
      }
    }
  })

  it("keeps one checkpoint per 64 bars before the dense start, one per 8 from it", () => {
    const dense = committed(0).bytes(0)
    const sparse = committed(252).bytes(0)
    // dense from 192 (252 rounded down to 64): 2 sparse + 43 dense checkpoints (and a spare slot) instead of 66
    expect(dense / (25 * 8)).toBe(Math.ceil(BARS.length / CHECKPOINT_EVERY))
    expect(sparse / (25 * 8)).toBe(Math.floor(191 / SPARSE_EVERY) + Math.floor((529 - 192) / CHECKPOINT_EVERY) + 1 + 1)
    expect(sparse).toBeLessThan(dense * 0.7)
  })

  it("rebuilds bit for bit from a series that keeps its prices scaled", () => {
    expect(gridSeries.ohlScale).toBeGreaterThan(1)
    const cps = new HistoryCheckpoints(1)
    cps.reset(0, 252)
    cps.reserve(0, GRID.length)
    const st = makeState(EQUITY_DAILY)
    GRID.forEach((b, j) => {
      cps.beforeCommit(0, j, st)
      commit(st, b)
    })
    for (const j of [65, 200, 300, 401, 529]) {
      const scratch = makeState(EQUITY_DAILY)
      for (let k = 0; k < j; k++) commit(scratch, GRID[k]!)
      expect(JSON.stringify(checkpoint(cps.stateBefore(0, j, gridSeries, "CS"))), `bar ${j}`).toBe(
        JSON.stringify(checkpoint(scratch))
      )
    }
  })
})
