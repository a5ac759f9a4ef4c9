/**
 * The simulated market: determinism, bar and path invariants, earnings,
 * fundamentals and news (by value and by property).
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isEarlyClose, isTradingDay, openInstant } from "../../src/market/calendar.js"
import { epochDay, isoDate, newsColumns } from "../../src/market/indicators/index.js"
import {
  allocateDayBars,
  allocatePartialBars,
  type DayBars,
  MarketSimulator,
  type SimTickerSpec,
  volumeProfile
} from "../../src/market/sim/index.js"
import {
  EXPONENTIALS,
  fmix32,
  hash2,
  poissonOf,
  quickNormal,
  T4_SCALES,
  unit2,
  VOLUME_NOISE
} from "../../src/market/sim/random.js"

const ANCHOR = "2025-06-30"
const SECTORS = ["Information Technology", "Health Care", "Energy", "Financials"]

/** 60 common stocks over 4 sectors and caps from $50M to $2T, 10 ETFs, 6 crypto (one stablecoin). */
const universe = (): Array<SimTickerSpec> => {
  const out: Array<SimTickerSpec> = []
  for (let k = 0; k < 60; k++) {
    const price = 5 + ((k * 37) % 300)
    const cap = 5e7 * 40_000 ** ((k % 15) / 14)
    out.push({
      ticker: `CS${k}`,
      assetType: "CS",
      sector: SECTORS[k % 4],
      price,
      sharesOutstanding: cap / price,
      avgVolume: (cap / price) * 0.006,
      eps: k % 3 === 0 ? price / 20 : undefined,
      dividendYield: k % 5 === 0 ? 0.02 : null
    })
  }
  for (let k = 0; k < 10; k++) {
    out.push({
      ticker: `ETF${k}`,
      assetType: "ETF",
      sector: "ETF",
      price: 50 + k,
      sharesOutstanding: 1e7,
      avgVolume: 1e5
    })
  }
  const coins: Array<[string, number, number]> = [
    ["BTC-USD", 100_000, 2e7],
    ["ETH-USD", 3500, 1.2e8],
    ["SOL", 150, 5e8],
    ["DOGE", 0.2, 1.5e11],
    ["PEPE", 0.00001, 4e14]
  ]
  for (const [ticker, price, supply] of coins) {
    out.push({
      ticker,
      assetType: "CRYPTO",
      sector: "Crypto",
      price,
      sharesOutstanding: supply,
      avgVolume: supply * 0.02
    })
  }
  out.push({
    ticker: "USDT",
    assetType: "CRYPTO",
    sector: "Crypto",
    price: 1,
    sharesOutstanding: 1.8e11,
    avgVolume: 5e10,
    dailyVol: 0.001
  })
  return out
}

const SPECS = universe()
const make = (seed = 7, tickers = SPECS) => new MarketSimulator({ seed, tickers, anchorDate: ANCHOR })
const SIM = make()
const N = SIM.size
const addDays = (date: string, n: number): string => isoDate(epochDay(date) + n)
const copyBars = (b: DayBars) => ({
  date: b.date,
  traded: Uint8Array.from(b.traded),
  open: Float64Array.from(b.open),
  high: Float64Array.from(b.high),
  low: Float64Array.from(b.low),
  close: Float64Array.from(b.close),
  volume: Float64Array.from(b.volume)
})
const isCrypto = (i: number) => SPECS[i].assetType === "CRYPTO"

describe("counter-based randomness", () => {
  const moments = (xs: ArrayLike<number>) => {
    let m1 = 0
    let m2 = 0
    for (let i = 0; i < xs.length; i++) {
      m1 += xs[i]
      m2 += xs[i] * xs[i]
    }
    return [m1 / xs.length, m2 / xs.length] as const
  }

  it("spreads hashed uniforms evenly, also across neighbouring keys", () => {
    const buckets = new Int32Array(64)
    const n = 256_000
    for (let i = 0; i < n; i++) buckets[Math.floor(unit2(12345, i) * 64)]++
    const expected = n / 64
    const chi2 = buckets.reduce((a, c) => a + (c - expected) ** 2 / expected, 0)
    expect(chi2).toBeLessThan(120) // 63 degrees of freedom: p ≈ 1e-5
    // one draw key against consecutive ticker keys: no correlation between neighbours
    const us = Float64Array.from({ length: 50_000 }, (_, i) => (fmix32(hash2(7, 1) ^ hash2(9, i)) + 0.5) / 2 ** 32)
    let lag = 0
    for (let i = 1; i < us.length; i++) lag += (us[i] - 0.5) * (us[i - 1] - 0.5)
    expect(Math.abs(lag / (us.length - 1) / (1 / 12))).toBeLessThan(0.03)
  })

  it("has unit-variance, unit-mean tables and calibrated samplers", () => {
    expect(moments(T4_SCALES)[1]).toBeCloseTo(1, 12)
    expect(moments(EXPONENTIALS)[0]).toBeCloseTo(1, 2)
    expect(moments(VOLUME_NOISE)[0]).toBeCloseTo(1, 12)
    const z = Float64Array.from({ length: 100_000 }, (_, i) => quickNormal(99, i))
    const [m, m2] = moments(z)
    expect(Math.abs(m)).toBeLessThan(0.01)
    expect(m2).toBeCloseTo(1, 1)
    for (const lambda of [0.3, 4, 60, 250]) {
      const k = Float64Array.from({ length: 20_000 }, (_, i) => poissonOf(lambda, unit2(5, i)))
      const [mean, sq] = moments(k)
      expect(mean / lambda).toBeCloseTo(1, 1)
      expect((sq - mean * mean) / lambda).toBeCloseTo(1, 0)
    }
  })
})

describe("determinism", () => {
  it("the same seed gives the same market, a different seed a different one", () => {
    const a = make(11)
    const b = make(11)
    const c = make(12)
    const prev = a.closesAt("2025-03-13")
    expect(b.closesAt("2025-03-13")).toEqual(prev)
    const barsA = copyBars(a.generateDay("2025-03-14", prev))
    const barsB = copyBars(b.generateDay("2025-03-14", prev))
    const barsC = copyBars(c.generateDay("2025-03-14", prev))
    expect(barsB).toEqual(barsA)
    expect(barsC.close).not.toEqual(barsA.close)
    expect(c.closesAt("2025-03-13")).not.toEqual(prev)
    const sa = a.intradaySession(a.generateDay("2025-03-14", prev), "equity")
    const sb = b.intradaySession(b.generateDay("2025-03-14", prev), "equity")
    expect(sb.paths).toEqual(sa.paths)
    const t = Date.parse("2025-03-14T18:07:00Z")
    const va = new Float64Array(N)
    const vb = new Float64Array(N)
    const xa = new Float64Array(N)
    const xb = new Float64Array(N)
    a.newsColumnsAt(t, va, xa)
    b.newsColumnsAt(t, vb, xb)
    expect(vb).toEqual(va)
    expect(xb).toEqual(xa)
    expect(b.mentions(0, t - 3 * 86_400_000, t)).toEqual(a.mentions(0, t - 3 * 86_400_000, t))
  })

  it("a day generated alone equals the same day inside a longer run", () => {
    const from = "2025-01-02"
    const target = "2025-02-18"
    let before: Float64Array | undefined
    let inRun: ReturnType<typeof copyBars> | undefined
    let closes = SIM.closesAt(addDays(from, -1))
    SIM.simulate(from, "2025-03-31", (bars) => {
      if (bars.date === target) {
        before = Float64Array.from(closes)
        inRun = copyBars(bars)
      }
      closes = Float64Array.from(closes.map((c, i) => (bars.traded[i] === 1 ? bars.close[i] : c)))
    })
    expect(inRun).toBeDefined()
    const alone = copyBars(make().generateDay(target, before!))
    expect(alone).toEqual(inRun)
  })

  it("pins every close at the anchor date and agrees with closesAt elsewhere", () => {
    const atAnchor = SIM.closesAt(ANCHOR)
    for (let i = 0; i < N; i++) expect(Math.abs(atAnchor[i] / SPECS[i].price - 1)).toBeLessThan(1e-12)
    for (const start of ["2024-11-01", "2025-05-03"]) {
      const end = SIM.simulate(start, "2025-08-15", () => {})
      const direct = SIM.closesAt("2025-08-15")
      for (let i = 0; i < N; i++) expect(Math.abs(end[i] / direct[i] - 1)).toBeLessThan(1e-9)
    }
    // backfills started on different dates agree on the days they share
    const a = new Map<string, Float64Array>()
    SIM.simulate("2025-01-06", "2025-02-28", (b) => {
      a.set(b.date, Float64Array.from(b.close))
    })
    SIM.simulate("2025-02-03", "2025-02-28", (b) => {
      const other = a.get(b.date)!
      for (let i = 0; i < N; i++) {
        if (b.traded[i] === 1) expect(Math.abs(b.close[i] / other[i] - 1)).toBeLessThan(1e-12)
      }
    })
  })

  it("a ticker's market does not depend on the other tickers or their order", () => {
    const subset = [SPECS[44], SPECS[3], SPECS[72]]
    const small = make(7, subset)
    const bigBars = copyBars(SIM.generateDay("2025-04-07", SIM.closesAt("2025-04-06")))
    const smallBars = small.generateDay("2025-04-07", small.closesAt("2025-04-06"))
    subset.forEach((s, j) => {
      const i = SIM.indexOf(s.ticker)
      expect([smallBars.open[j], smallBars.high[j], smallBars.low[j], smallBars.close[j], smallBars.volume[j]]).toEqual(
        [bigBars.open[i], bigBars.high[i], bigBars.low[i], bigBars.close[i], bigBars.volume[i]]
      )
    })
  })
})

describe("daily bars", () => {
  it("hold L <= min(O,C) <= max(O,C) <= H, positive prices and volumes, on any day and seed", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: -900, max: 400 }), (seed, offset) => {
        const sim = make(seed)
        const date = addDays(ANCHOR, offset)
        const bars = sim.generateDay(date, sim.closesAt(addDays(date, -1)))
        const trading = isTradingDay(date)
        for (let i = 0; i < sim.size; i++) {
          const shouldTrade = trading || isCrypto(i)
          expect(bars.traded[i]).toBe(shouldTrade ? 1 : 0)
          if (!shouldTrade) {
            expect(Number.isNaN(bars.close[i])).toBe(true)
            expect(bars.volume[i]).toBe(0)
            continue
          }
          const o = bars.open[i]
          const h = bars.high[i]
          const l = bars.low[i]
          const c = bars.close[i]
          for (const x of [o, h, l, c, bars.volume[i]]) expect(x > 0 && Number.isFinite(x)).toBe(true)
          expect(l).toBeLessThanOrEqual(Math.min(o, c))
          expect(h).toBeGreaterThanOrEqual(Math.max(o, c))
          if (!isCrypto(i)) expect(Number.isInteger(bars.volume[i])).toBe(true)
        }
      }),
      { numRuns: 40 }
    )
  })

  it("crypto opens at the previous close; equities gap", () => {
    const prev = SIM.closesAt("2025-05-19")
    const bars = SIM.generateDay("2025-05-20", prev)
    let gaps = 0
    for (let i = 0; i < N; i++) {
      if (isCrypto(i)) expect(bars.open[i]).toBe(prev[i])
      else if (bars.open[i] !== prev[i]) gaps++
    }
    expect(gaps).toBe(70)
  })

  it("marks earnings days on the bars", () => {
    let flagged = 0
    SIM.simulate("2025-01-01", "2025-03-31", (b) => {
      for (let i = 0; i < N; i++) {
        expect(b.earnings[i] === 1).toBe(SIM.isEarningsDay(i, b.date))
        flagged += b.earnings[i]
      }
    })
    expect(flagged).toBe(60)
  })
})

describe("intraday paths", () => {
  const sessionCase = (seed: number, offset: number) => {
    const sim = make(seed)
    let date = addDays(ANCHOR, offset)
    while (!isTradingDay(date)) date = addDays(date, 1)
    const bars = sim.generateDay(date, sim.closesAt(addDays(date, -1)))
    return { sim, date, bars }
  }

  it("start at O, end at C and reach exactly H and L (equities and crypto, any day and seed)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: -600, max: 200 }), (seed, offset) => {
        const { sim, date, bars } = sessionCase(seed, offset)
        for (const kind of ["equity", "crypto"] as const) {
          const session = sim.intradaySession(bars, kind)
          const k = session.minutes
          expect(k).toBe(kind === "crypto" ? 1440 : isEarlyClose(date) ? 210 : 390)
          expect(session.tickers.length).toBe(kind === "crypto" ? 6 : 70)
          for (const i of session.tickers) {
            const path = session.pathOf(i)
            expect(path.length).toBe(k + 1)
            expect(path[0]).toBe(bars.open[i])
            expect(path[k]).toBe(bars.close[i])
            let max = -Infinity
            let min = Infinity
            let positive = true
            let step = 0
            for (let m = 0; m <= k; m++) {
              const v = path[m]
              positive &&= v > 0 && Number.isFinite(v)
              max = Math.max(max, v)
              min = Math.min(min, v)
              if (m > 0) step = Math.max(step, Math.abs(v - path[m - 1]))
            }
            expect(positive).toBe(true)
            // no spikes: no single minute covers more than a third of the day's range
            expect(step).toBeLessThanOrEqual((bars.high[i] - bars.low[i]) / 3)
            expect(max).toBe(bars.high[i])
            expect(min).toBe(bars.low[i])
            expect(session.priceAt(i, 123)).toBe(path[123])
          }
        }
      }),
      { numRuns: 25 }
    )
  })

  it("hit H and L exactly for arbitrary bars, including flat bars, bars without wicks and one-ulp wicks", () => {
    const wick = fc.oneof(
      fc.constant(0),
      fc.constant(Number.EPSILON),
      fc.double({ min: 1e-9, max: 1e-6, noNaN: true }),
      fc.double({ min: 1e-4, max: 0.5, noNaN: true })
    )
    const bar = fc.record({
      open: fc.double({ min: 1e-4, max: 1e5, noNaN: true }),
      move: fc.double({ min: -0.3, max: 0.3, noNaN: true }),
      up: wick,
      down: wick
    })
    fc.assert(
      fc.property(
        fc.array(bar, { minLength: N, maxLength: N }),
        fc.constantFrom("2025-03-14", "2025-11-28"),
        (rows, date) => {
          const bars = allocateDayBars(N)
          bars.date = date
          bars.day = epochDay(date)
          rows.forEach((b, i) => {
            const c = b.move === 0 ? b.open : b.open * Math.exp(b.move)
            bars.traded[i] = 1
            bars.open[i] = b.open
            bars.close[i] = c
            bars.high[i] = Math.max(b.open, c) * (1 + b.up)
            bars.low[i] = Math.min(b.open, c) / (1 + b.down)
            bars.volume[i] = 1000
          })
          for (const kind of ["equity", "crypto"] as const) {
            const session = SIM.intradaySession(bars, kind)
            for (const i of session.tickers) {
              const path = session.pathOf(i)
              expect(path[0]).toBe(bars.open[i])
              expect(path[session.minutes]).toBe(bars.close[i])
              expect(Math.max(...path)).toBe(bars.high[i])
              expect(Math.min(...path)).toBe(bars.low[i])
            }
          }
        }
      ),
      { numRuns: 30 }
    )
  })

  it("give partial bars equal to the running extremes of the path, at any sequence of minutes", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.array(fc.integer({ min: -5, max: 400 }), { minLength: 1, maxLength: 8 }),
        (seed, minutes) => {
          const { sim, bars } = sessionCase(seed, -seed % 300)
          const session = sim.intradaySession(bars, "equity")
          const k = session.minutes
          const out = allocatePartialBars(sim.size)
          for (const m of minutes) {
            session.partialBars(m, out)
            const at = Math.min(Math.max(m, 0), k)
            for (const i of session.tickers) {
              const path = session.pathOf(i)
              const seen = path.subarray(0, at + 1)
              expect(out.open[i]).toBe(bars.open[i])
              expect(out.high[i]).toBe(Math.max(...seen))
              expect(out.low[i]).toBe(Math.min(...seen))
              expect(out.close[i]).toBe(path[at])
              expect(out.volume[i]).toBe(session.volumeFraction[at] * bars.volume[i])
              expect(out.vwap[i]).toBeGreaterThanOrEqual(out.low[i] * (1 - 1e-12))
              expect(out.vwap[i]).toBeLessThanOrEqual(out.high[i] * (1 + 1e-12))
            }
          }
          session.partialBars(k, out)
          for (const i of session.tickers) {
            expect([out.high[i], out.low[i], out.close[i], out.volume[i]]).toEqual([
              bars.high[i],
              bars.low[i],
              bars.close[i],
              bars.volume[i]
            ])
          }
        }
      ),
      { numRuns: 15 }
    )
  })

  it("map instants to minutes from the session start", () => {
    const { sim, bars, date } = sessionCase(3, -10)
    const equity = sim.intradaySession(bars, "equity")
    const crypto = sim.intradaySession(bars, "crypto")
    expect(equity.startMs).toBe(openInstant(date))
    expect(equity.minuteAt(openInstant(date) + 90.5 * 60_000)).toBe(90)
    expect(equity.minuteAt(openInstant(date) - 1)).toBe(0)
    expect(equity.minuteAt(openInstant(date) + 86_400_000)).toBe(equity.minutes)
    expect(crypto.startMs).toBe(epochDay(date) * 86_400_000)
    expect(crypto.priceAt(0, 10)).toBeNaN() // CS0 is not a crypto
  })

  it("have a U-shaped cumulative volume profile from 0 to 1", () => {
    for (const [kind, k] of [
      ["equity", 390],
      ["equity", 210],
      ["crypto", 1440]
    ] as const) {
      const f = volumeProfile(kind, k)
      expect(f[0]).toBe(0)
      expect(f[k]).toBe(1)
      for (let m = 1; m <= k; m++) expect(f[m]).toBeGreaterThan(f[m - 1])
      if (kind === "equity") {
        const perMinute = (m: number) => f[m] - f[m - 1]
        expect(perMinute(1)).toBeGreaterThan(2.5 * perMinute(k >> 1))
        expect(perMinute(k - 1)).toBeGreaterThan(1.5 * perMinute(k >> 1))
        expect(perMinute(k)).toBeGreaterThan(10 * perMinute(k >> 1)) // closing auction
      }
    }
  })
})

describe("earnings and fundamentals", () => {
  const csIndexes = SPECS.flatMap((s, i) => (s.assetType === "CS" ? [i] : []))

  it("schedules one report per quarter per common stock, on trading days, and none for ETFs or crypto", () => {
    for (const i of csIndexes) {
      const reports: Array<string> = []
      let d = "2024-01-01"
      while (true) {
        const next = SIM.nextEarningsDate(i, d)!
        if (next > "2025-12-31") break
        expect(isTradingDay(next)).toBe(true)
        expect(SIM.isEarningsDay(i, next)).toBe(true)
        expect(SIM.lastEarningsDate(i, next)).toBe(next)
        reports.push(next)
        d = addDays(next, 1)
      }
      expect(reports.length).toBe(8)
      const quarters = reports.map((r) => `${r.slice(0, 4)}Q${Math.floor((Number(r.slice(5, 7)) - 1) / 3)}`)
      expect(new Set(quarters).size).toBe(8)
      for (const r of reports) expect(Number(r.slice(8, 10)) + 31 * ((Number(r.slice(5, 7)) - 1) % 3)).toBeLessThan(60)
    }
    expect(SIM.nextEarningsDate("CS3", "2025-05-01")).toBe(SIM.nextEarningsDate(3, "2025-05-01"))
    expect(() => SIM.nextEarningsDate("NOPE", "2025-05-01")).toThrow(RangeError)
    for (let i = 60; i < N; i++) {
      expect(SIM.nextEarningsDate(i, "2025-01-01")).toBeNull()
      expect(SIM.isEarningsDay(i, "2025-01-15")).toBe(false)
    }
  })

  it("starts from the spec values at the anchor and moves EPS only on earnings days", () => {
    const f = SIM.fundamentalsAt(ANCHOR)
    SPECS.forEach((s, i) => {
      expect(f.sharesOutstanding[i]).toBe(s.sharesOutstanding)
      if (s.eps !== undefined) expect(f.eps[i]).toBe(s.eps)
      if (s.dividendYield) expect(f.dividendPerShare[i]).toBeCloseTo(s.dividendYield * s.price, 10)
      if (s.assetType !== "CS") {
        expect(f.eps[i]).toBeNaN()
        expect(f.nextEarningsDay[i]).toBeNaN()
      } else {
        expect(Number.isFinite(f.eps[i]) && Number.isFinite(f.forwardEps[i])).toBe(true)
        expect(f.bookValuePerShare[i]).toBeGreaterThan(0)
        expect(f.salesPerShare[i]).toBeGreaterThan(0)
      }
      if (s.assetType === "CRYPTO") {
        expect(f.dividendPerShare[i]).toBeNaN()
        expect(f.sharesShort[i]).toBeNaN()
      } else {
        expect(f.dividendPerShare[i]).toBeGreaterThanOrEqual(0)
        expect(f.sharesShort[i] / f.sharesOutstanding[i]).toBeGreaterThan(0)
        expect(f.sharesShort[i] / f.sharesOutstanding[i]).toBeLessThan(0.8)
      }
      expect(Number.isFinite(f.beta[i])).toBe(true)
    })
    let prev = SIM.fundamentalsAt("2024-06-30")
    let changes = 0
    let reports = 0
    for (let d = epochDay("2024-07-01"); d <= epochDay("2025-12-31"); d++) {
      const date = isoDate(d)
      const cur = SIM.fundamentalsAt(date)
      for (const i of csIndexes) {
        const report = SIM.isEarningsDay(i, date)
        if (report) reports++
        if (cur.eps[i] !== prev.eps[i]) {
          changes++
          expect(report).toBe(true)
        }
        if (cur.bookValuePerShare[i] !== prev.bookValuePerShare[i]) expect(report).toBe(true)
        expect(cur.sharesOutstanding[i]).toBe(prev.sharesOutstanding[i])
        expect(cur.nextEarningsDay[i]).toBeGreaterThanOrEqual(d)
        expect(cur.lastEarningsDay[i]).toBeLessThanOrEqual(d)
        expect(SIM.isEarningsDay(i, isoDate(cur.nextEarningsDay[i]))).toBe(true)
        const monday = d - ((d + 3) % 7)
        const expected = cur.lastEarningsDay[i] >= monday ? cur.lastEarningsDay[i] : cur.nextEarningsDay[i]
        expect(cur.earningsDay[i]).toBe(expected)
      }
      prev = cur
    }
    expect(reports).toBe(60 * 6)
    expect(changes).toBe(reports)
  })

  it("keeps EPS plausible and drifting slowly over years", () => {
    const now = SIM.fundamentalsAt(ANCHOR)
    const later = SIM.fundamentalsAt("2027-06-30")
    const earlier = SIM.fundamentalsAt("2023-06-30")
    for (const i of csIndexes) {
      const scale = Math.max(Math.abs(now.eps[i]), 0.02 * SPECS[i].price)
      expect(Math.abs(later.eps[i] - now.eps[i]) / scale).toBeLessThan(3)
      expect(Math.abs(earlier.eps[i] - now.eps[i]) / scale).toBeLessThan(3)
      expect(later.bookValuePerShare[i] / now.bookValuePerShare[i]).toBeGreaterThan(0.8)
      expect(later.bookValuePerShare[i] / now.bookValuePerShare[i]).toBeLessThan(1.4)
    }
  })

  it("updates short interest on the 15th and the last business day of the month only", () => {
    const settlement = (d: number): boolean => {
      const date = new Date(d * 86_400_000)
      const y = date.getUTCFullYear()
      const m = date.getUTCMonth()
      let mid = Date.UTC(y, m, 15) / 86_400_000
      while (!isTradingDay(isoDate(mid))) mid--
      let end = Date.UTC(y, m + 1, 0) / 86_400_000
      while (!isTradingDay(isoDate(end))) end--
      return d === mid || d === end
    }
    let prev = SIM.fundamentalsAt("2024-12-31").sharesShort
    let updates = 0
    for (let d = epochDay("2025-01-01"); d <= epochDay("2025-12-31"); d++) {
      const cur = SIM.fundamentalsAt(isoDate(d)).sharesShort
      const changed = cur[0] !== prev[0]
      expect(changed).toBe(settlement(d))
      if (changed) updates++
      prev = cur
    }
    expect(updates).toBe(24)
  })
})

describe("news", () => {
  const DAY = 86_400_000

  it("computes both columns as newsColumns does over the listed mentions", () => {
    const instants = [
      Date.parse("2025-04-16T14:37:12Z"),
      Date.parse("2025-04-17T00:00:00Z"),
      Date.parse("2025-04-19T23:59:59.999Z"),
      Date.parse("2025-04-21T13:30:00Z")
    ]
    const volume = new Float64Array(N)
    const sentiment = new Float64Array(N)
    for (const t of instants) {
      const tq = SIM.newsColumnsAt(t, volume, sentiment)
      expect(tq).toBe(Math.floor(t / 900_000) * 900_000)
      const fresh = make()
      for (let i = 0; i < N; i++) {
        const expected = newsColumns(fresh.mentions(i, tq - DAY, tq), tq)
        expect(volume[i]).toBe(expected.newsVolume)
        expect(sentiment[i]).toBeCloseTo(expected.newsVolumeWeightedSentiment, 12)
      }
    }
    const mega = SIM.indexOf("CS14")
    expect(volume[mega]).toBeGreaterThan(3)
  })

  it("holds values constant within a 15-minute bucket", () => {
    const a = [new Float64Array(N), new Float64Array(N)] as const
    const b = [new Float64Array(N), new Float64Array(N)] as const
    SIM.newsColumnsAt(Date.parse("2025-04-16T15:00:00Z"), ...a)
    SIM.newsColumnsAt(Date.parse("2025-04-16T15:14:59Z"), ...b)
    expect(b).toEqual(a)
  })

  it("lists well-formed mentions in time order, seven days a week, the same with or without the day cache", () => {
    const from = Date.parse("2025-04-11T00:00:00Z")
    const to = from + 7 * DAY
    const cold = make()
    const warm = make()
    for (let d = 0; d < 7; d++) warm.dayNews(Math.floor(from / DAY) + d)
    for (let i = 0; i < N; i++) {
      const list = cold.mentions(i, from, to)
      expect(warm.mentions(i, from, to)).toEqual(list)
      for (let j = 0; j < list.length; j++) {
        const m = list[j]
        expect(m.at > from && m.at <= to).toBe(true)
        if (j > 0) expect(m.at).toBeGreaterThanOrEqual(list[j - 1].at)
        expect(m.relevance).toBeGreaterThanOrEqual(0)
        expect(m.relevance).toBeLessThanOrEqual(1)
        expect(m.sentiment).toBeGreaterThanOrEqual(-1)
        expect(m.sentiment).toBeLessThanOrEqual(1)
      }
    }
    const weekend = SIM.mentions(
      SIM.indexOf("CS14"),
      Date.parse("2025-04-12T00:00:00Z"),
      Date.parse("2025-04-14T00:00:00Z")
    )
    expect(weekend.length).toBeGreaterThan(0)
  })

  it("spikes on earnings days and follows the sign of the day's move", () => {
    let earnCount = 0
    let earnDays = 0
    let otherCount = 0
    let otherDays = 0
    const xs: Array<number> = []
    const ys: Array<number> = []
    let closes = SIM.closesAt("2024-12-31")
    SIM.simulate("2025-01-01", "2025-06-30", (bars) => {
      const news = SIM.dayNews(bars.day)
      for (let i = 0; i < 60; i++) {
        if (bars.traded[i] !== 1) continue
        const count = news.offsets[i + 1] - news.offsets[i]
        if (bars.earnings[i] === 1) {
          earnCount += count
          earnDays++
        } else {
          otherCount += count
          otherDays++
        }
        if (count > 0) {
          let s = 0
          for (let j = news.offsets[i]; j < news.offsets[i + 1]; j++) s += news.sentiment[j]
          xs.push(Math.log(bars.close[i] / closes[i]))
          ys.push(s / count)
        }
      }
      closes = Float64Array.from(closes.map((c, i) => (bars.traded[i] === 1 ? bars.close[i] : c)))
    })
    expect(earnCount / earnDays).toBeGreaterThan(3 * (otherCount / otherDays))
    expect(correlation(xs, ys)).toBeGreaterThan(0.2)
  })
})

const correlation = (xs: ReadonlyArray<number>, ys: ReadonlyArray<number>): number => {
  const n = xs.length
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let k = 0; k < n; k++) {
    sxy += (xs[k] - mx) * (ys[k] - my)
    sxx += (xs[k] - mx) ** 2
    syy += (ys[k] - my) ** 2
  }
  return sxy / Math.sqrt(sxx * syy)
}
