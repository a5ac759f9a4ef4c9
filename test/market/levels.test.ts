/**
 * The simulated price levels (`src/market/sim/levels.ts`): one definition, reached any way —
 * whole market or one ticker, one long walk or many short ones, in any order — gives the same
 * bits, and it is the walk the module describes (summed outward from the anchor).
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { epochDay } from "../../src/market/indicators/index.js"
import { computeReturns } from "../../src/market/sim/daily.js"
import { MarketSimulator, type SimTickerSpec } from "../../src/market/sim/index.js"

const ANCHOR = "2020-06-30"

const specs = (): Array<SimTickerSpec> => {
  const out: Array<SimTickerSpec> = []
  for (let k = 0; k < 12; k++) {
    out.push({
      ticker: `CS${k}`,
      assetType: "CS",
      sector: ["Energy", "Financials", "Health Care"][k % 3],
      price: 10 + 7 * k,
      sharesOutstanding: 1e8,
      avgVolume: 1e6
    })
  }
  out.push({
    ticker: "BTC-USD",
    assetType: "CRYPTO",
    sector: "Crypto",
    price: 9000,
    sharesOutstanding: 2e7,
    avgVolume: 4e5
  })
  return out
}

const simulator = () => new MarketSimulator({ seed: 7, tickers: specs(), anchorDate: ANCHOR })
const all = (sim: MarketSimulator) => Int32Array.from({ length: sim.size }, (_, i) => i)

/** levels of `slots` on every day of [from, to] (rows of slots.length), by one walk */
const levelsOf = (sim: MarketSimulator, slots: Int32Array, from: number, to: number) => {
  const out = new Float64Array((to - from + 1) * slots.length)
  sim.levels.walk(slots, from, to, (d, _, cur) => out.set(cur, (d - from) * slots.length))
  return out
}

/** The definition, walked naively from the anchor (one day at a time, every ticker). */
const naive = (sim: MarketSimulator, from: number, to: number) => {
  const n = sim.size
  const anchor = sim.anchorDay
  const r = new Float64Array(n)
  const gap = new Float64Array(n)
  const byDay = new Map<number, Float64Array>()
  let s: Float64Array = new Float64Array(n)
  byDay.set(anchor, s)
  for (let d = anchor; d > from - 1; d--) {
    const m = sim.model(d)
    computeReturns(m, r, gap)
    const next = Float64Array.from(s, (x, i) => (m.trades(i) ? x - r[i] : x))
    byDay.set(d - 1, next)
    s = next
  }
  s = byDay.get(anchor)!
  for (let d = anchor + 1; d <= to; d++) {
    const m = sim.model(d)
    computeReturns(m, r, gap)
    const next = Float64Array.from(s, (x, i) => (m.trades(i) ? x + r[i] : x))
    byDay.set(d, next)
    s = next
  }
  const out = new Float64Array((to - from + 1) * n)
  for (let d = from; d <= to; d++) out.set(byDay.get(d)!, (d - from) * n)
  return out
}

describe("simulated price levels", () => {
  it("are the walk outward from the anchor, zero at the anchor, carried over days a ticker does not trade", () => {
    const sim = simulator()
    const from = sim.anchorDay - 300
    const to = sim.anchorDay + 200
    const got = levelsOf(sim, all(sim), from, to)
    expect(got).toEqual(naive(sim, from, to))
    const n = sim.size
    const atAnchor = got.subarray((sim.anchorDay - from) * n, (sim.anchorDay - from + 1) * n)
    expect([...atAnchor]).toEqual(new Array(n).fill(0))
    // a Saturday: equities carry Friday's level, crypto moves
    const saturday = epochDay("2020-06-27")
    const friday = saturday - 1
    expect(got[(saturday - from) * n]).toBe(got[(friday - from) * n])
    expect(got[(saturday - from) * n + 12]).not.toBe(got[(friday - from) * n + 12])
  })

  it("give the same bits for one ticker as for the whole market, over any ranges walked in any order", () => {
    const whole = simulator()
    const from = whole.anchorDay - 700
    const to = whole.anchorDay + 300
    const reference = levelsOf(whole, all(whole), from, to)
    const n = whole.size
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 12 }),
            fc.integer({ min: 0, max: 1000 }),
            fc.integer({ min: 0, max: 150 })
          ),
          {
            minLength: 1,
            maxLength: 6
          }
        ),
        (reads) => {
          const sim = simulator()
          for (const [slot, offset, length] of reads) {
            const lo = from + offset
            const hi = Math.min(to, lo + length)
            const got = levelsOf(sim, Int32Array.of(slot), lo, hi)
            for (let d = lo; d <= hi; d++) expect(got[d - lo]).toBe(reference[(d - from) * n + slot])
          }
        }
      ),
      { numRuns: 25 }
    )
  })

  it("hand each visit the level of the day before", () => {
    const sim = simulator()
    const slots = Int32Array.of(0, 12)
    const from = sim.anchorDay - 130
    const to = sim.anchorDay + 70
    const levels = levelsOf(sim, slots, from - 1, to)
    sim.levels.walk(slots, from, to, (d, prev, cur) => {
      const row = (d - from + 1) * 2
      expect([prev[0], prev[1]]).toEqual([levels[row - 2], levels[row - 1]])
      expect([cur[0], cur[1]]).toEqual([levels[row], levels[row + 1]])
    })
  })
})
