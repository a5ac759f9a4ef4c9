/**
 * Statistics of a long simulated run: volatility per asset class, factor
 * correlations, fat tails, trading days, volume behaviour, price ranges.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { isTradingDay } from "../../src/market/calendar.js"
import { MarketSimulator, type SimTickerSpec } from "../../src/market/sim/index.js"

const ANCHOR = "2025-06-30"
const FROM = "2022-01-01"
const SECTORS = ["Information Technology", "Health Care", "Energy", "Financials"]

const specs: Array<SimTickerSpec> = []
for (let k = 0; k < 80; k++) {
  const price = 10 + ((k * 53) % 400)
  const cap = 1e8 * 10_000 ** ((k % 20) / 19)
  specs.push({
    ticker: `S${k}`,
    assetType: "CS",
    sector: SECTORS[k % 4],
    price,
    sharesOutstanding: cap / price,
    avgVolume: (cap / price) * 0.005
  })
}
for (let k = 0; k < 12; k++) {
  specs.push({
    ticker: `E${k}`,
    assetType: "ETF",
    sector: "ETF",
    price: 40 + k,
    sharesOutstanding: 1e8,
    avgVolume: 1e6
  })
}
for (let k = 0; k < 8; k++) {
  specs.push({
    ticker: `C${k}`,
    assetType: "CRYPTO",
    sector: "Crypto",
    price: 10 ** (k - 2),
    sharesOutstanding: 1e10 / 10 ** (k - 2),
    avgVolume: 1e8
  })
}
specs.push({
  ticker: "STABLE",
  assetType: "CRYPTO",
  sector: "Crypto",
  price: 1,
  sharesOutstanding: 1e11,
  avgVolume: 1e10,
  dailyVol: 0.001
})

const sim = new MarketSimulator({ seed: 20260526, tickers: specs, anchorDate: ANCHOR })
const N = sim.size
const CS = specs.flatMap((s, i) => (s.assetType === "CS" ? [i] : []))
const ETF = specs.flatMap((s, i) => (s.assetType === "ETF" ? [i] : []))
const COINS = specs.flatMap((s, i) => (s.assetType === "CRYPTO" && s.ticker !== "STABLE" ? [i] : []))

/** Per ticker: daily log returns, relative volumes, earnings flags, (H-L)/C; and the dates traded. */
const returns: Array<Array<number>> = specs.map(() => [])
const volumes: Array<Array<number>> = specs.map(() => [])
const earnings: Array<Array<boolean>> = specs.map(() => [])
const ranges: Array<Array<number>> = specs.map(() => [])
const weekendTrades = new Int32Array(N)
const holidayTrades = new Int32Array(N)
/** equity-trading-day returns keyed by date, for correlations */
const byDate = new Map<string, Float64Array>()
/** per ticker, the lowest and highest close over the run as a multiple of the anchor price */
const minRatio = new Float64Array(N).fill(Infinity)
const maxRatio = new Float64Array(N)

beforeAll(() => {
  let prev = sim.closesAt("2021-12-31")
  sim.simulate(FROM, ANCHOR, (bars) => {
    const weekday = new Date(`${bars.date}T00:00:00Z`).getUTCDay()
    const row = new Float64Array(N).fill(Number.NaN)
    for (let i = 0; i < N; i++) {
      if (bars.traded[i] !== 1) continue
      if (weekday === 0 || weekday === 6) weekendTrades[i]++
      else if (!isTradingDay(bars.date)) holidayTrades[i]++
      const r = Math.log(bars.close[i] / prev[i])
      returns[i].push(r)
      row[i] = r
      volumes[i].push(bars.volume[i] / specs[i].avgVolume)
      earnings[i].push(bars.earnings[i] === 1)
      ranges[i].push((bars.high[i] - bars.low[i]) / bars.close[i])
      const ratio = bars.close[i] / specs[i].price
      minRatio[i] = Math.min(minRatio[i], ratio)
      maxRatio[i] = Math.max(maxRatio[i], ratio)
      prev[i] = bars.close[i]
    }
    if (isTradingDay(bars.date)) byDate.set(bars.date, row)
    prev = Float64Array.from(prev)
  })
})

const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
const std = (xs: ReadonlyArray<number>) => {
  const m = mean(xs)
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1))
}
const kurtosis = (xs: ReadonlyArray<number>) => {
  const m = mean(xs)
  const v = xs.reduce((a, x) => a + (x - m) ** 2, 0) / xs.length
  return xs.reduce((a, x) => a + (x - m) ** 4, 0) / xs.length / (v * v)
}
const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[s.length >> 1]
}
const corr = (i: number, j: number): number => {
  const xs: Array<number> = []
  const ys: Array<number> = []
  for (const row of byDate.values()) {
    if (Number.isNaN(row[i]) || Number.isNaN(row[j])) continue
    xs.push(row[i])
    ys.push(row[j])
  }
  const mx = mean(xs)
  const my = mean(ys)
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let k = 0; k < xs.length; k++) {
    sxy += (xs[k] - mx) * (ys[k] - my)
    sxx += (xs[k] - mx) ** 2
    syy += (ys[k] - my) ** 2
  }
  return sxy / Math.sqrt(sxx * syy)
}

describe("a simulated run from 2022 to mid-2025", () => {
  it("trades crypto every day and equities on NYSE sessions only", () => {
    const sessions = byDate.size
    expect(sessions).toBeGreaterThan(870)
    for (const i of [...CS, ...ETF]) {
      expect(returns[i].length).toBe(sessions)
      expect(weekendTrades[i] + holidayTrades[i]).toBe(0)
    }
    for (const i of COINS) {
      expect(returns[i].length).toBeGreaterThan(1270)
      expect(weekendTrades[i]).toBeGreaterThan(360)
      expect(holidayTrades[i]).toBeGreaterThan(25)
    }
  })

  it("gives daily volatilities in the intended range per asset class", () => {
    const sd = (ids: ReadonlyArray<number>) => ids.map((i) => std(returns[i]))
    const cs = sd(CS)
    expect(median(cs)).toBeGreaterThan(0.012)
    expect(median(cs)).toBeLessThan(0.04)
    expect(Math.min(...cs)).toBeGreaterThan(0.006)
    expect(Math.max(...cs)).toBeLessThan(0.08)
    // small caps are more volatile than large caps
    const small = sd(CS.filter((i) => i % 20 < 5))
    const large = sd(CS.filter((i) => i % 20 >= 15))
    expect(mean(small)).toBeGreaterThan(1.5 * mean(large))
    const etf = sd(ETF)
    expect(median(etf)).toBeGreaterThan(0.005)
    expect(median(etf)).toBeLessThan(0.016)
    const coins = sd(COINS)
    expect(median(coins)).toBeGreaterThan(0.025)
    expect(median(coins)).toBeLessThan(0.07)
    expect(std(returns[sim.indexOf("STABLE")])).toBeLessThan(0.0015)
  })

  it("correlates a sector's stocks more than stocks across sectors, and crypto weakly with equities", () => {
    const within: Array<number> = []
    const across: Array<number> = []
    for (const a of CS) {
      for (const b of CS) {
        if (b <= a) continue
        ;(a % 4 === b % 4 ? within : across).push(corr(a, b))
      }
    }
    expect(mean(across)).toBeGreaterThan(0.05)
    expect(mean(within)).toBeGreaterThan(mean(across) + 0.05)
    const etfs: Array<number> = []
    for (let a = 0; a < ETF.length; a++) for (let b = a + 1; b < ETF.length; b++) etfs.push(corr(ETF[a], ETF[b]))
    expect(mean(etfs)).toBeGreaterThan(0.5)
    const coins: Array<number> = []
    for (let a = 0; a < COINS.length; a++)
      for (let b = a + 1; b < COINS.length; b++) coins.push(corr(COINS[a], COINS[b]))
    expect(mean(coins)).toBeGreaterThan(0.3)
    const cross = COINS.flatMap((c) => ETF.map((e) => corr(c, e)))
    expect(mean(cross)).toBeGreaterThan(0.05)
    expect(mean(cross)).toBeLessThan(0.4)
  })

  it("has fat tails", () => {
    const k = [...CS, ...ETF, ...COINS].map((i) => kurtosis(returns[i]))
    expect(median(k)).toBeGreaterThan(4)
    const pooled = CS.flatMap((i) => {
      const s = std(returns[i])
      return returns[i].map((r) => r / s)
    })
    expect(kurtosis(pooled)).toBeGreaterThan(4)
    // far more 4-sigma days than a normal law's 0.006 %
    expect(pooled.filter((z) => Math.abs(z) > 4).length / pooled.length).toBeGreaterThan(0.001)
  })

  it("has volume around the average, higher on earnings and big-move days", () => {
    const rel = CS.map((i) => median(volumes[i]))
    expect(median(rel)).toBeGreaterThan(0.7)
    expect(median(rel)).toBeLessThan(1.3)
    const onEarnings = CS.flatMap((i) => volumes[i].filter((_, t) => earnings[i][t]))
    const otherDays = CS.flatMap((i) => volumes[i].filter((_, t) => !earnings[i][t]))
    expect(onEarnings.length).toBeGreaterThan(80 * 13)
    expect(mean(onEarnings)).toBeGreaterThan(2.5 * mean(otherDays))
    const big: Array<number> = []
    const quiet: Array<number> = []
    for (const i of CS) {
      const s = std(returns[i])
      returns[i].forEach((r, t) => {
        if (earnings[i][t]) return
        if (Math.abs(r) > 2.5 * s) big.push(volumes[i][t])
        else if (Math.abs(r) < 0.5 * s) quiet.push(volumes[i][t])
      })
    }
    expect(mean(big)).toBeGreaterThan(2 * mean(quiet))
  })

  it("moves more on earnings days", () => {
    const ratio = CS.map((i) => {
      const on = returns[i].filter((_, t) => earnings[i][t]).map(Math.abs)
      const off = returns[i].filter((_, t) => !earnings[i][t]).map(Math.abs)
      return mean(on) / mean(off)
    })
    expect(median(ratio)).toBeGreaterThan(1.8)
  })

  it("keeps prices positive and plausible, with daily ranges in proportion to volatility", () => {
    // 3.5 years back from the anchor a micro cap may have been worth 50× its anchor price or a small
    // fraction of it (lognormal tails), but the typical ticker stays within a few times it
    expect(Math.min(...minRatio)).toBeGreaterThan(0.005)
    expect(Math.max(...maxRatio)).toBeLessThan(200)
    expect(median(Array.from(minRatio))).toBeGreaterThan(0.25)
    expect(median(Array.from(maxRatio))).toBeLessThan(4)
    for (const i of [...CS, ...ETF, ...COINS]) {
      const r = mean(ranges[i]) / std(returns[i])
      expect(r).toBeGreaterThan(0.8)
      expect(r).toBeLessThan(3)
    }
  })
})
