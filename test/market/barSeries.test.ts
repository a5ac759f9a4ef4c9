/**
 * A ticker's daily bars: whole volumes below 2^32 are kept in half the memory,
 * any other volume turns the series' volumes into doubles; either way a bar
 * reads back exactly as pushed, across growth and overlays.
 */
import { describe, expect, it } from "@effect/vitest"
import { BarSeries } from "../../src/market/history/barSeries.js"

const pushAll = (s: BarSeries, volumes: ReadonlyArray<number>, from = 100) =>
  volumes.forEach((v, k) => s.push(from + k, 10 + k, 11 + k, 9 + k, 10.25 + k, v))

describe("BarSeries", () => {
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
})
