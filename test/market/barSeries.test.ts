/**
 * A ticker's daily bars: whole volumes below 2^32 are kept in half the memory,
 * any other volume turns the series' volumes into doubles; either way a bar
 * reads back exactly as pushed, across growth and overlays.
 */
import { describe, expect, it } from "@effect/vitest"
import { BarSeries, PRICE_SCALE } from "../../src/market/history/barSeries.js"
import { SeriesArena } from "../../src/market/history/seriesArena.js"

const pushAll = (s: BarSeries, volumes: ReadonlyArray<number>, from = 100) =>
  volumes.forEach((v, k) => {
    s.push(from + k, 10 + k, 11 + k, 9 + k, 10.25 + k, v)
  })

const read = (s: BarSeries) =>
  Array.from({ length: s.length }, (_, j) => [s.days[j], s.openAt(j), s.highAt(j), s.lowAt(j), s.close[j], s.volume[j]])

describe("BarSeries", () => {
  it("keeps a series made in int32 ticks from the start (scaledIn) as pushing its bars into a new series would", () => {
    for (const [prices, volumes] of [
      [
        [10.01, 10.02, 10.03, 10.04],
        [5, 6, 7, 8]
      ],
      [
        [10.01, 10.02 + 1e-9, 10.03, 10.04],
        [5, 6, 7, 8]
      ], // off the tick grid from the second bar
      [
        [10.01, 10.02, 10.03, 10.04],
        [5, 6.5, 7, 8]
      ]
    ] as const) {
      const n = prices.length
      const bars = {
        days: Int32Array.from({ length: n }, (_, k) => 500 + k),
        open: Float64Array.from(prices),
        high: Float64Array.from(prices, (p) => p + 0.5),
        low: Float64Array.from(prices, (p) => p - 0.25),
        close: Float64Array.from(prices, (p) => p + 0.01),
        volume: Float64Array.from(volumes)
      }
      const a = BarSeries.scaledIn(n + 2, new SeriesArena(2 * n))
      const b = new BarSeries(1)
      a.push(400, 1.5, 2, 1, 1.25, 3)
      b.push(400, 1.5, 2, 1, 1.25, 3)
      for (const s of [a, b])
        for (let j = 0; j < n; j++)
          s.push(bars.days[j]!, bars.open[j]!, bars.high[j]!, bars.low[j]!, bars.close[j]!, bars.volume[j]!)
      expect(read(a), `${prices} ${volumes}`).toEqual(read(b))
      expect(a.ohlScale, `${prices}`).toBe(prices[1] === 10.02 ? PRICE_SCALE : 1)
      expect(a.volume.constructor).toBe(b.volume.constructor)
    }
  })

  it("reuses an arena for series of no more bars, zero as a new one, and refuses more than it holds", () => {
    const arena = new SeriesArena(8)
    const first = BarSeries.scaledIn(8, arena)
    for (let k = 0; k < 8; k++) first.push(100 + k, 10 + k / 100, 11, 9, 10.5 + k, 1000 + k)
    expect(arena.reuse(9)).toBeUndefined()
    expect(arena.reuse(8)).toBe(arena)
    const again = [BarSeries.scaledIn(5, arena), BarSeries.scaledIn(3, arena)]
    // the same memory, handed out again as a new arena's is: every slot zero before a bar is pushed
    expect(again[0]!.days.buffer).toBe(first.days.buffer)
    for (const s of again)
      for (const a of [s.days, s.open, s.high, s.low, s.close, s.volume])
        expect(Array.from(a)).toEqual(Array(a.length).fill(0))
    again[0]!.push(200, 1.5, 2, 1, 1.25, 3)
    expect([again[0]!.days[0], again[0]!.close[0], again[0]!.volume[0], again[0]!.length]).toEqual([200, 1.25, 3, 1])
  })

  it("appends another series as pushing its bars one by one would, whatever each keeps its prices and volumes as", () => {
    const bars = (from: number, n: number, price: (k: number) => number, volume: (k: number) => number) =>
      Array.from(
        { length: n },
        (_, k) => [from + k, price(k), price(k) + 1, price(k) - 0.5, price(k) + 0.25, volume(k)] as const
      )
    const kinds = {
      ticks: (k: number) => 10 + k / 100,
      doubles: (k: number) => 10 + k / 3,
      whole: (k: number) => 1000 + k,
      fractional: (k: number) => 1000.5 + k
    }
    for (const [headPrices, tailPrices] of [
      ["ticks", "ticks"],
      ["ticks", "doubles"],
      ["doubles", "ticks"],
      ["doubles", "doubles"]
    ] as const)
      for (const [headVolumes, tailVolumes] of [
        ["whole", "whole"],
        ["whole", "fractional"],
        ["fractional", "whole"]
      ] as const) {
        const head = bars(100, 5, kinds[headPrices], kinds[headVolumes])
        const tail = bars(200, 7, kinds[tailPrices], kinds[tailVolumes])
        const a = new BarSeries(3)
        for (const b of head) a.push(...b)
        a.compact()
        const src = new BarSeries(2)
        for (const b of tail) src.push(...b)
        src.compact()
        a.appendSeries(src)
        expect(read(a), `${headPrices}/${headVolumes} then ${tailPrices}/${tailVolumes}`).toEqual([...head, ...tail])
        expect(() => a.appendSeries(src)).toThrow(/not after/)
      }
  })

  it("keeps whole volumes below 2^32 as 32-bit integers, through growth", () => {
    const s = new BarSeries(2)
    const volumes = [0, 1, 123_456_789, 4_294_967_295, 7, 8, 9]
    pushAll(s, volumes)
    expect(s.volume).toBeInstanceOf(Uint32Array)
    expect(Array.from(s.volume.subarray(0, s.length))).toEqual(volumes)
    expect(s.close[6]).toBe(16.25)
  })

  for (const odd of [1.5, 2 ** 32, -1, Number.NaN]) {
    it(`turns the volumes into doubles at a volume of ${odd}, keeping the earlier ones`, () => {
      const s = new BarSeries(4)
      pushAll(s, [5, 6, odd, 8, 9])
      expect(s.volume).toBeInstanceOf(Float64Array)
      expect(Array.from(s.volume.subarray(0, s.length))).toEqual([5, 6, odd, 8, 9])
    })
  }

  it("an overlay reads the same bars as pushing them", () => {
    const s = new BarSeries(0)
    pushAll(s, [1, 2, 3, 4])
    const o = s.overlay([{ day: 101, open: 1, high: 2, low: 0.5, close: 1.5, volume: 0.25 }])
    expect(Array.from(o.days.subarray(0, o.length))).toEqual([100, 101, 102, 103])
    expect(Array.from(o.volume.subarray(0, o.length))).toEqual([1, 0.25, 3, 4])
    expect(s.volume).toBeInstanceOf(Uint32Array)
  })

  const prices = (s: BarSeries) =>
    Array.from({ length: s.length }, (_, j) => [s.openAt(j), s.highAt(j), s.lowAt(j), s.close[j]])

  it("keeps opens, highs and lows on the tick grid as scaled int32, reading back the same numbers", () => {
    const s = new BarSeries(2)
    const bars = [
      [187.43, 189.99, 186.01, 188.5],
      [0.1234, 0.1301, 0.12, 0.125],
      [91_234.56, 92_000.01, 90_000, 91_000],
      [0.29, 0.3, 0.07, 0.1]
    ]
    bars.forEach(([o, h, l, c], k) => {
      s.push(200 + k, o!, h!, l!, c!, 1_000)
    })
    s.compact()
    expect(s.ohlScale).toBe(PRICE_SCALE)
    expect(s.high).toBeInstanceOf(Int32Array)
    expect(prices(s)).toEqual(bars)
    // later bars on the grid stay scaled (and the arrays grow as such)
    s.push(210, 1.01, 1.02, 1, 1.015, 5)
    expect(s.ohlScale).toBe(PRICE_SCALE)
    expect(prices(s)[4]).toEqual([1.01, 1.02, 1, 1.015])
  })

  for (const [what, off] of [
    ["a fraction finer than 1/10,000", 12.345_67],
    ["a price beyond int32 × 1/10,000", 700_000.5],
    ["NaN", Number.NaN]
  ] as const) {
    it(`goes back to doubles at ${what}, keeping every earlier price`, () => {
      const s = new BarSeries(8)
      pushAll(s, [1, 2, 3])
      s.compact()
      expect(s.ohlScale).toBe(PRICE_SCALE)
      const before = prices(s)
      s.push(300, off, Math.max(off, 20), 1, 10, 4)
      expect(s.ohlScale).toBe(1)
      expect(s.open).toBeInstanceOf(Float64Array)
      expect(prices(s).slice(0, 3)).toEqual(before)
      expect(s.openAt(3)).toBe(off)
    })
  }

  it("does not compact a series with a price off the grid", () => {
    const s = new BarSeries(4)
    s.push(1, 10.123_456, 11, 9, 10, 1)
    s.push(2, 10, 11, 9, 10, 1)
    s.compact()
    expect(s.ohlScale).toBe(1)
    expect(s.openAt(0)).toBe(10.123_456)
  })

  it("builds in a caller's scratch buffer and leaves it once compacted, either way", () => {
    const scratch = new Float64Array(3 * 8)
    const onGrid = new BarSeries(4, scratch.subarray(0, 12))
    const offGrid = new BarSeries(4, scratch.subarray(12, 24))
    pushAll(onGrid, [1, 2, 3])
    pushAll(offGrid, [1, 2, 3])
    offGrid.push(200, 10.123_456, 11, 9, 10, 1)
    expect(onGrid.open.buffer).toBe(scratch.buffer)
    onGrid.compact()
    offGrid.compact()
    for (const s of [onGrid, offGrid]) {
      for (const a of [s.open, s.high, s.low]) expect(a.buffer).not.toBe(scratch.buffer)
    }
    scratch.fill(-1)
    expect(prices(onGrid)[2]).toEqual([12, 13, 11, 12.25])
    expect(offGrid.openAt(3)).toBe(10.123_456)
    expect(prices(offGrid)[0]).toEqual([10, 11, 9, 10.25])
  })
})
