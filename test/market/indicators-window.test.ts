/**
 * The rings and sliding windows under the engine: moments against exact
 * integer arithmetic (prices in cents), including windows that go flat or
 * nearly flat after large moves at high price levels, and every window's
 * `rebuild` against the state reached by pushing.
 */
import { describe, expect, it } from "vitest"
import { m2WithValue, Ring, WindowMoments, WindowSum } from "../../src/market/indicators/window.js"
import { WindowExtreme } from "../../src/market/indicators/windowExtreme.js"

/** mulberry32 */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
}

/**
 * Integer cents around `level` dollars: random walks, flat stretches after 5x spikes,
 * and near-flat stretches (one-cent moves) -- the cases where running sums lose precision.
 */
const centsSeries = (level: number, n: number, seed: number): Array<number> => {
  const rand = prng(seed)
  const base = Math.round(level * 100)
  const out: Array<number> = []
  let x = base
  while (out.length < n) {
    const phase = Math.floor(rand() * 4)
    const len = 10 + Math.floor(rand() * 60)
    for (let i = 0; i < len && out.length < n; i++) {
      if (phase === 0) x = Math.max(1, Math.round(x * (1 + (rand() - 0.5) * 0.06)))
      else if (phase === 1) x = i < 5 ? base * 5 : base
      else if (phase === 2) x = base + (rand() < 0.2 ? (rand() < 0.5 ? 1 : -1) : 0)
      else x = base
      out.push(x)
    }
  }
  return out
}

/**
 * Exact mean and M2 of doubles (as stored: 50000.01 is not exactly 50000.01), in BigInt:
 * every value here is at least 2^-8, so x * 2^60 is an exact integer.
 */
const SCALE = 2 ** 60
const exactMoments = (values: ReadonlyArray<number>): { mean: number; m2: number } => {
  const n = BigInt(values.length)
  let s = 0n
  let s2 = 0n
  for (const x of values) {
    const i = BigInt(x * SCALE)
    s += i
    s2 += i * i
  }
  // M2 = (n sum x^2 - (sum x)^2) / n
  return {
    mean: Number(s) / values.length / SCALE,
    m2: Number(n * s2 - s * s) / values.length / SCALE / SCALE
  }
}

describe("WindowMoments", () => {
  for (const level of [0.07, 1, 50, 50_000, 1_000_000]) {
    it(`equals exact arithmetic on every window, flat windows exactly 0 (price level ${level})`, () => {
      for (const length of [19, 59]) {
        const prices = centsSeries(level, 900, length + Math.round(level)).map((c) => c / 100)
        const ring = new Ring(length + 1)
        const w = new WindowMoments(ring, length)
        let flatWindows = 0
        for (let t = 0; t < prices.length; t++) {
          ring.push(prices[t])
          w.push()
          if (!w.full) continue
          const exact = exactMoments(prices.slice(t - length + 1, t + 1))
          if (exact.m2 === 0) {
            flatWindows++
            expect(w.m2, `flat window ending at ${t}`).toBe(0)
          } else {
            expect(Math.abs(w.m2 - exact.m2) / exact.m2, `M2 of the window ending at ${t}`).toBeLessThan(1e-12)
          }
          expect(Math.abs(w.mean - exact.mean) / exact.mean).toBeLessThan(1e-15)
          // preview's Welford step with today's value, on deviations from the shift
          if (t + 1 < prices.length) {
            const withToday = exactMoments(prices.slice(t - length + 1, t + 2))
            const m2 = m2WithValue(w.deviationMean, w.m2, length, prices[t + 1] - w.shift)
            if (withToday.m2 === 0) expect(m2).toBe(0)
            else expect(Math.abs(m2 - withToday.m2) / withToday.m2).toBeLessThan(1e-12)
          }
        }
        expect(flatWindows).toBeGreaterThan(0)
      }
    })
  }
})

/** Push `values` through a ring and window, checking at every count that `rebuild` reaches the same state. */
const checkRebuild = (
  values: ReadonlyArray<number>,
  capacity: number,
  make: (ring: Ring) => { push(): void; save(): Array<number> },
  rebuild: (ring: Ring, w: ReturnType<typeof make>, pushed: number) => void
) => {
  const ring = new Ring(capacity)
  const w = make(ring)
  for (let t = 0; t < values.length; t++) {
    ring.push(values[t])
    w.push()
    const ring2 = new Ring(capacity)
    ring2.fill(values, t + 1, t + 1)
    const w2 = make(ring2)
    rebuild(ring2, w2, t + 1)
    expect(w2.save(), `after ${t + 1} pushes`).toEqual(w.save())
  }
}

describe("rebuild", () => {
  const rand = prng(7)
  const values = Array.from({ length: 700 }, (_, t) => 100 + 30 * Math.sin(t / 17) + rand() * 5)

  it("WindowSum replays to the pushed state from 2 x length - 1 values", () => {
    for (const length of [1, 9, 30, 199]) {
      checkRebuild(
        values,
        length + 1,
        (ring) => new WindowSum(ring, length),
        (_, w, pushed) => (w as WindowSum).rebuild(values, pushed, pushed)
      )
    }
  })

  it("WindowSum re-sums from fewer values: equal to rounding, and bit-for-bit from the next re-summation", () => {
    const length = 199
    const ring = new Ring(length + 1)
    const w = new WindowSum(ring, length)
    for (let t = 0; t < 450; t++) {
      ring.push(values[t])
      w.push()
    }
    // the ring's worth (200 values): fewer than the 397 an exact replay needs at this phase
    const tail = values.slice(450 - (length + 1), 450)
    const ring2 = new Ring(length + 1)
    ring2.fill(tail, length + 1, 450)
    const w2 = new WindowSum(ring2, length)
    w2.rebuild(tail, length + 1, 450)
    expect(Math.abs(w2.mean() - w.mean()) / w.mean()).toBeLessThan(1e-15)
    for (let t = 450; t < 450 + length; t++) {
      ring.push(values[t])
      w.push()
      ring2.push(values[t])
      w2.push()
      expect(Math.abs(w2.mean() - w.mean()) / w.mean()).toBeLessThan(1e-15)
    }
    expect(w2.save()).toEqual(w.save())
  })

  it("WindowMoments and WindowExtreme rebuild from the ring alone", () => {
    for (const length of [1, 2, 19, 59]) {
      checkRebuild(
        values,
        length + 1,
        (ring) => new WindowMoments(ring, length),
        (_, w, pushed) => (w as WindowMoments).rebuild(pushed)
      )
    }
    for (const [length, sign] of [
      [13, 1],
      [13, -1],
      [251, 1],
      [251, -1]
    ] as const) {
      checkRebuild(
        values,
        length + 1,
        (ring) => new WindowExtreme(ring, length, sign),
        (_, w, pushed) => (w as WindowExtreme).rebuild(pushed)
      )
    }
  })
})

describe("Ring", () => {
  it("keeps the last `capacity` values in a power-of-two buffer", () => {
    const ring = new Ring(252)
    expect(ring.buf.length).toBe(256)
    for (let i = 0; i < 600; i++) ring.push(i)
    expect(ring.at(0)).toBe(599)
    expect(ring.at(251)).toBe(348)
    expect(ring.toArray()).toEqual(Array.from({ length: 252 }, (_, i) => 348 + i))
    const copy = new Ring(252)
    copy.load(ring.toArray(), ring.count)
    expect(copy.toArray()).toEqual(ring.toArray())
    const filled = new Ring(252)
    filled.fill(
      Array.from({ length: 600 }, (_, i) => i),
      600,
      600
    )
    expect(filled.toArray()).toEqual(ring.toArray())
    expect(filled.count).toBe(600)
  })
})
