/**
 * `KeptRows`' day-by-day reads: `daysWhere` (each day's tickers whose row is a kept bar with its bit
 * set, listed in one pass per ticker) and `positionOn` / `barAt` give what `on` gives day by day —
 * over sparse kept bars, so rows carried forward run out (the carry-forward's edge) as well as move.
 */
import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import { MarketData } from "../../src/market/engine/MarketData.js"
import { KeptRows } from "../../src/market/history/keptRows.js"
import { DAY_MS } from "../../src/market/indicators/days.js"
import { loadTickers } from "../../src/market/tickers/index.js"

const NOW = Date.UTC(2026, 10, 20, 18, 30)
const TODAY = Math.floor(NOW / DAY_MS)

describe("KeptRows", () => {
  let md: MarketData
  beforeAll(() => {
    const tickers = loadTickers().filter((_, i) => i % 700 === 0)
    md = MarketData.build({ seed: 5, tickers, historyDays: 80, now: NOW })
  })

  it("lists each day's tickers with a set bit, and each row's position and bar, as `on` finds them", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.double({ min: 0.02, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 70 }),
        (seed, keep, set, back, span) => {
          let x = seed
          const rand = () => {
            x = (x * 1103515245 + 12345) % 2147483648
            return x / 2147483648
          }
          const slots = [...Array(md.size).keys()]
          // a random share of each ticker's bars kept: gaps longer than the carry-forward appear
          const rows = new KeptRows(md, slots, ["price"], (s) =>
            Int32Array.from([...Array(s.length).keys()].filter(() => rand() < keep))
          )
          const bits = Uint8Array.from({ length: rows.size }, () => (rand() < set ? 1 : 0))
          const toDay = TODAY - back
          const fromDay = toDay - span
          const lists = rows.daysWhere(bits, fromDay, toDay)
          const positions = new Int32Array(slots.length)
          const bars = new Int32Array(slots.length)
          for (let day = fromDay; day <= toDay; day++) {
            rows.on(day, positions, bars)
            const expected = slots.filter((k) => positions[k]! >= 0 && bits[positions[k]!] === 1)
            const d = day - fromDay
            expect(Array.from(lists.ks.subarray(lists.start[d]!, lists.start[d + 1]!))).toEqual(expected)
            // each listed ticker's row: its position on the day
            expect(Array.from(lists.ps.subarray(lists.start[d]!, lists.start[d + 1]!))).toEqual(
              expected.map((k) => positions[k])
            )
            for (const k of slots) {
              const p = rows.positionOn(k, day)
              expect(p).toBe(positions[k])
              if (p >= 0) expect(rows.barAt(p)).toBe(bars[k])
            }
          }
        }
      ),
      { numRuns: 60 }
    )
  })
})
