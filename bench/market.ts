/**
 * The market data numbers of issue 3, on the full 13,047-ticker market with
 * the default 260-day window:
 *
 * - the ticker seed read from disk, uncached (goal < 100 ms), against reading
 *   and parsing its JSON alone;
 * - one live refresh (every indicator of every ticker), median, against a
 *   full recomputation of every ticker's indicators from its history in the
 *   same run;
 * - the whole universe's rows as of a past date (the input of an as-of scan),
 *   dates drawn uniformly over the window: cold (first read of a date) and
 *   warm (cached) p50/p99, and the cache size;
 * - one column's daily series for one ticker over the whole window (signal
 *   history), cold p50, against reading the same bars alone;
 * - resident memory after the load.
 *
 *   npm run bench:market
 */
import { readFileSync } from "node:fs"
import { performance } from "node:perf_hooks"
import { AS_OF_CACHE_SIZE, MarketData } from "../src/market/engine/MarketData.js"
import { epochDay, isoDate } from "../src/market/indicators/days.js"
import { commit, configForAssetType, makeState } from "../src/market/indicators/index.js"
import { loadTickers, readTickerSeed, SEED_PATH } from "../src/market/tickers/index.js"

const NOW = Date.UTC(2026, 10, 20, 18, 30) // a Friday, 13:30 New York
const quantile = (xs: Array<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]
}
const fmt = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 1)} ms`
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`

let rng = 12345
const random = () => {
  rng = (rng * 1103515245 + 12345) & 0x7fffffff
  return rng / 0x7fffffff
}

// the ticker seed from disk, uncached (goal < 100 ms), against reading and parsing its JSON alone
const best = (f: () => unknown) => {
  let ms = Number.POSITIVE_INFINITY
  for (let i = 0; i < 5; i++) {
    const t = performance.now()
    f()
    ms = Math.min(ms, performance.now() - t)
  }
  return ms
}
const seedMs = best(() => readTickerSeed())
const parseMs = best(() => JSON.parse(readFileSync(SEED_PATH, "utf8")))
console.log(
  `ticker seed from disk (best of 5): ${fmt(seedMs)} (goal < 100 ms); reading + JSON.parse alone ${fmt(parseMs)} (× ${(seedMs / parseMs).toFixed(2)})`
)

const tickers = loadTickers()
console.log(`market: ${tickers.length} tickers, HISTORY_DAYS=260`)
let t0 = performance.now()
const md = MarketData.build({ seed: 20260526, tickers, historyDays: 260, now: NOW })
const loadMs = performance.now() - t0
console.log(`load (history + indicators + first snapshot): ${fmt(loadMs)}`)

// --- refresh vs full recomputation
const refreshes: Array<number> = []
for (let k = 1; k <= 30; k++) {
  t0 = performance.now()
  md.refresh(NOW + k * 60_000)
  refreshes.push(performance.now() - t0)
}
const refreshP50 = quantile(refreshes, 0.5)
t0 = performance.now()
let commits = 0
for (let i = 0; i < md.size; i++) {
  const s = md.series[i]
  const st = makeState(configForAssetType(tickers[i].asset_type))
  for (let j = 0; j < s.length; j++) {
    commit(st, {
      day: s.days[j],
      open: s.openAt(j),
      high: s.highAt(j),
      low: s.lowAt(j),
      close: s.close[j],
      volume: s.volume[j]
    })
    commits++
  }
}
const fullMs = performance.now() - t0
console.log(
  `refresh p50 ${fmt(refreshP50)} (p99 ${fmt(quantile(refreshes, 0.99))}) vs full recomputation from history ${fmt(fullMs)} (${commits} bars): ratio ${(fullMs / refreshP50).toFixed(0)}x`
)

// --- as-of universe reads
const from = epochDay(md.windowStart)
const to = epochDay("2026-11-19")
const dates = Array.from({ length: 40 }, () => isoDate(from + Math.floor(random() * (to - from + 1))))
const cold: Array<number> = []
const warm: Array<number> = []
const seen = new Set<string>()
for (const date of dates) {
  if (seen.has(date)) continue
  seen.add(date)
  t0 = performance.now()
  md.snapshotAsOf(date)
  cold.push(performance.now() - t0)
  for (let k = 0; k < 5; k++) {
    t0 = performance.now()
    md.snapshotAsOf(date)
    warm.push(performance.now() - t0)
  }
}
console.log(
  `as-of universe: cold p50 ${fmt(quantile(cold, 0.5))} p99 ${fmt(quantile(cold, 0.99))}; warm p50 ${fmt(quantile(warm, 0.5))} p99 ${fmt(quantile(warm, 0.99))}; cache ${md.asOfCacheSize}/${AS_OF_CACHE_SIZE} snapshots`
)

// --- one column's series for one ticker over the window
const sample = Array.from({ length: 200 }, () => tickers[Math.floor(random() * tickers.length)].ticker)
const seriesMs: Array<number> = []
const barsMs: Array<number> = []
for (const ticker of sample) {
  t0 = performance.now()
  md.dailySeries(ticker, "rsi_14", from, to)
  seriesMs.push(performance.now() - t0)
  t0 = performance.now()
  const s = md.series[md.index.get(ticker)!]
  let acc = 0
  for (let j = s.indexAtOrAfter(from); j < s.length && s.days[j] <= to; j++) acc += s.close[j]
  if (acc < 0) console.log(acc)
  barsMs.push(performance.now() - t0)
}
console.log(
  `series (rsi_14, whole window): p50 ${fmt(quantile(seriesMs, 0.5))} p99 ${fmt(quantile(seriesMs, 0.99))}; reading the bars alone p50 ${fmt(quantile(barsMs, 0.5))}`
)

// --- deep history (issue 17): one ticker's twenty years, built on demand, against the window's series
{
  const deepSample = Array.from({ length: 60 }, () => tickers[Math.floor(random() * tickers.length)].ticker)
  const deepCold: Array<number> = []
  const deepWarm: Array<number> = []
  const deepRows: Array<number> = []
  const first = epochDay("2003-01-02")
  // the first deep read extends the price levels' checkpoints back to 2003 (once per process)
  t0 = performance.now()
  md.dailySeries("AAPL", "rsi_14", first, to)
  const firstMs = performance.now() - t0
  let points = 0
  for (const ticker of deepSample) {
    t0 = performance.now()
    points = md.dailySeries(ticker, "rsi_14", first, to).length
    deepCold.push(performance.now() - t0)
    t0 = performance.now()
    md.dailySeries(ticker, "sma_50", first, to)
    deepWarm.push(performance.now() - t0)
    const date = isoDate(first + Math.floor(random() * (from - first)))
    t0 = performance.now()
    md.rowAsOf(ticker, date)
    deepRows.push(performance.now() - t0)
  }
  console.log(
    `deep series (rsi_14, 2003 to today, e.g. ${points} points): cold p50 ${fmt(quantile(deepCold, 0.5))} p99 ${fmt(quantile(deepCold, 0.99))} (goal ≤ 50 ms), warm p50 ${fmt(quantile(deepWarm, 0.5))}; first of the process ${fmt(firstMs)}; a row before the window p50 ${fmt(quantile(deepRows, 0.5))}; window series p50 above: × ${(quantile(deepCold, 0.5) / quantile(seriesMs, 0.5)).toFixed(1)}`
  )
}

global.gc?.()
const usage = process.memoryUsage()
console.log(
  `memory after load: rss ${mb(usage.rss)}, heap used ${mb(usage.heapUsed)}, array buffers ${mb(usage.arrayBuffers)}`
)
