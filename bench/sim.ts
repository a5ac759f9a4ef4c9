/**
 * Speed of the simulated market at full scale: the committed ticker seed
 * (13,047 tickers), padded with synthetic common stocks if it ever holds fewer.
 * Every measurement is the best of a few runs, printed next to a baseline
 * measured the same way in the same process (a plain loop filling the same
 * output arrays with one hash per value) and the ratio.
 *
 *   npx tsx bench/sim.ts
 */
import { performance } from "node:perf_hooks"
import { allocatePartialBars, MarketSimulator, type SimTickerSpec } from "../src/market/sim/index.js"
import { fmix32 } from "../src/market/sim/random.js"
import { loadTickers } from "../src/market/tickers/index.js"

const TARGET_TICKERS = 13_047
const HISTORY_TRADING_DAYS = 512
const ANCHOR = "2026-08-21"
const DAY_MS = 86_400_000

const seed = loadTickers()
const specs: Array<SimTickerSpec> = seed.map((t) => ({
  ticker: t.ticker,
  assetType: t.asset_type,
  sector: t.sector,
  price: t.price,
  sharesOutstanding: t.shares_outstanding,
  avgVolume: t.avg_volume,
  eps: t.fundamentals?.eps,
  dividendYield: t.fundamentals?.dividend_yield,
  priceToBook: t.fundamentals?.price_to_book,
  priceToSales: t.fundamentals?.price_to_sales,
  dailyVol: t.industry === "Stablecoin" ? 0.001 : undefined
}))
for (let k = 0; specs.length < TARGET_TICKERS; k++) {
  specs.push({
    ticker: `ZZSIM${k}`,
    assetType: "CS",
    sector: "Industrials",
    price: 5 + (k % 200),
    sharesOutstanding: 2e7 + 1e5 * k,
    avgVolume: 2e5
  })
}
const n = specs.length

/** Best wall time of `runs` calls of f(run), in ms. */
const best = (runs: number, f: (run: number) => unknown): number => {
  let min = Infinity
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now()
    f(r)
    min = Math.min(min, performance.now() - t0)
  }
  return min
}

const report = (label: string, ms: number, baseMs: number) =>
  console.log(
    `${label.padEnd(46)} ${ms.toFixed(2).padStart(9)} ms   baseline ${baseMs.toFixed(2).padStart(8)} ms   ratio ${(ms / baseMs).toFixed(1)}`
  )

/** One hash per value into every array, `rounds` times. */
const baseline = (rounds: number, arrays: ReadonlyArray<Float64Array | Float32Array>): number => {
  let acc = 0
  for (let r = 0; r < rounds; r++) {
    for (const a of arrays) {
      for (let i = 0; i < a.length; i++) a[i] = fmix32(Math.imul(r, 0x9e3779b1) + i) * 2.3283064365386963e-10
    }
    acc += arrays[0][r % arrays[0].length]
  }
  return acc
}

let sim = new MarketSimulator({ seed: 20260526, tickers: specs, anchorDate: ANCHOR })
const buildMs = best(3, () => {
  sim = new MarketSimulator({ seed: 20260526, tickers: specs, anchorDate: ANCHOR })
})
console.log(`tickers: ${n} (${n - seed.length} synthetic), anchor ${ANCHOR}; best of several runs each`)
console.log(`constructor: ${buildMs.toFixed(1)} ms`)

// the service's backfill: the 512 trading days ending at the anchor, every calendar day for crypto
let first = epochDayOf(ANCHOR)
for (let count = 0; count < HISTORY_TRADING_DAYS; ) if (sim.days.isTradingDay(--first)) count++
const firstDate = new Date(first * DAY_MS).toISOString().slice(0, 10)
const calendarDays = epochDayOf(ANCHOR) - first + 1
console.log(`backfill ${firstDate} .. ${ANCHOR}: ${calendarDays} calendar days, ${HISTORY_TRADING_DAYS} sessions`)

const dayArrays = Array.from({ length: 5 }, () => new Float64Array(n))
const historyBase = best(3, () => baseline(calendarDays, dayArrays))
let startCloses: Float64Array = new Float64Array(n)
const closesMs = best(3, () => {
  startCloses = sim.closesAt(new Date((first - 1) * DAY_MS).toISOString().slice(0, 10))
})
const barsMs = best(3, () => sim.simulate(firstDate, ANCHOR, () => {}, startCloses))
report(`start closes (closesAt, ${calendarDays} days)`, closesMs, historyBase)
report(`daily bars, ${calendarDays} days x ${n}`, barsMs, historyBase)
report("backfill total (closesAt + bars)", closesMs + barsMs, historyBase)

const bars = sim.generateDay(ANCHOR, sim.closesAt("2026-08-20"))
let session = sim.intradaySession(bars, "equity")
const sessionMs = best(5, () => {
  session = sim.intradaySession(bars, "equity")
})
const paths = new Float32Array(session.paths.length)
report(
  `equity intraday paths (${paths.length} values)`,
  sessionMs,
  best(5, () => baseline(1, [paths]))
)
let crypto = sim.intradaySession(bars, "crypto")
const cryptoMs = best(5, () => {
  crypto = sim.intradaySession(bars, "crypto")
})
const cryptoPaths = new Float32Array(crypto.paths.length)
report(
  `crypto intraday paths (${cryptoPaths.length} values)`,
  cryptoMs,
  best(5, () => baseline(1, [cryptoPaths]))
)

const partial = allocatePartialBars(n)
const partialArrays = [partial.open, partial.high, partial.low, partial.close, partial.volume, partial.vwap]
const refreshBase = best(20, () => baseline(1, partialArrays))
session.partialBars(100, partial)
crypto.partialBars(600, partial)
const stepMs = best(50, (r) => {
  session.partialBars(101 + r, partial)
  crypto.partialBars(601 + r, partial)
})
report("one refresh: partial bars, next minute (all)", stepMs, refreshBase)
const coldMs = best(5, (r) => {
  session.partialBars(0, partial)
  session.partialBars(389 - r, partial)
})
report("partial bars from minute 0 to 389 (equities)", coldMs, refreshBase)
const priceMs = best(20, (r) => {
  let s = 0
  for (let i = 0; i < n; i++) s += session.priceAt(i, 100 + r)
  return s
})
report("priceAt for every ticker", priceMs, refreshBase / 6)

const volume = new Float64Array(n)
const sentiment = new Float64Array(n)
const newsBase = best(20, () => baseline(1, [volume, sentiment]))
const t0 = Date.parse(`${ANCHOR}T20:00:00Z`)
// a different week each run so that both days are generated (the cache keeps 4 days)
const newsColdMs = best(3, (r) => sim.newsColumnsAt(t0 - (r + 1) * 7 * DAY_MS, volume, sentiment))
sim.newsColumnsAt(t0, volume, sentiment)
const newsWarmMs = best(20, (r) => sim.newsColumnsAt(t0 + ((r % 4) + 1) * 15 * 60_000, volume, sentiment))
report("news columns, cold (generates 2 days)", newsColdMs, newsBase)
report("news columns, next 15 minutes (cached)", newsWarmMs, newsBase)
const newsHistoryMs = best(1, () => {
  for (let d = 0; d < 100; d++) sim.newsColumnsAt(t0 - (100 + d) * DAY_MS, volume, sentiment)
})
report("news columns at 100 consecutive past days", newsHistoryMs, newsBase * 100)

const fundamentalArrays = Array.from({ length: 11 }, () => new Float64Array(n))
const fundBase = best(10, () => baseline(1, fundamentalArrays))
const fundColdMs = best(1, () => sim.fundamentalsAt("2025-01-15"))
const fundMs = best(10, (r) => sim.fundamentalsAt(`2026-08-${String(10 + r).padStart(2, "0")}`))
report("fundamentals of one date, first in its quarter", fundColdMs, fundBase)
report("fundamentals of one date", fundMs, fundBase)

function epochDayOf(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / DAY_MS
}
