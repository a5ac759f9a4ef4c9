/**
 * The whole market's history before the window (issue 17, item 2), on the full 13,047-ticker market
 * with the default 260-day window:
 *
 * - building the grid of states from 2003 (what `DEEP_HISTORY` runs in a worker thread once per
 *   market; here on this thread, so its CPU time is the figure), and the file's size;
 * - as-of snapshots of every ticker (the input of an as-of scan) for dates drawn uniformly over
 *   2003 to the window: cold (first read of a date) p50/p99, warm (cached) p50 — against cold
 *   snapshots of dates drawn inside the window, in the same run (the baseline);
 * - resident memory after the load, after the build, and after `--scans` (default 200) random
 *   as-of snapshots.
 *
 *   npm run bench:deep-history [-- --scans=1000] [--dir=/tmp/grid (kept: built once, read again by the next run)]
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { MarketData } from "../src/market/engine/MarketData.js"
import { HISTORY_START_DAY } from "../src/market/history/coverage.js"
import { deepGridKey, openDeepGridFile, writeDeepGridFile } from "../src/market/history/deepGridFile.js"
import { isoDate } from "../src/market/indicators/days.js"
import { loadTickers } from "../src/market/tickers/index.js"

const NOW = Date.UTC(2026, 10, 20, 18, 30) // a Friday, 13:30 New York
const scans = Number(process.argv.find((a) => a.startsWith("--scans="))?.slice(8) ?? 200)
/** `--dir=D`: keep the grid in D and read it from there on the next run (no build when it is there) */
const keepDir = process.argv.find((a) => a.startsWith("--dir="))?.slice(6)
const quantile = (xs: Array<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}
const fmt = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 0)} ms`
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
let rng = 4242
const random = () => {
  rng = (rng * 1103515245 + 12345) & 0x7fffffff
  return rng / 0x7fffffff
}

const tickers = loadTickers()
let t0 = performance.now()
const md = MarketData.build({ seed: 20260526, tickers, historyDays: 260, now: NOW })
console.log(
  `market: ${tickers.length} tickers, loaded in ${(performance.now() - t0) / 1000} s; rss ${mb(process.memoryUsage().rss)}`
)

const dir = keepDir ?? mkdtempSync(join(tmpdir(), "vigil-deep-bench-"))
mkdirSync(dir, { recursive: true })
try {
  const spec = md.deepGridSpec()
  const key = deepGridKey(20260526, spec)
  t0 = performance.now()
  const c0 = cpu()
  const kept = openDeepGridFile(dir, key)
  if (kept === undefined) {
    const walk = writeDeepGridFile(dir, key, spec)
    while (!walk.next().done) {}
  } else {
    kept.close()
    console.log(`grid kept in ${dir}: not built again (the figures below are of the reads)`)
  }
  const buildMs = performance.now() - t0
  const buildCpu = cpu() - c0
  const file = openDeepGridFile(dir, key)!
  md.adoptDeepGrid(file)
  const bytes = statSync(join(dir, `deep-grid-${key}.bin`)).size
  const barBytes = file.bars === undefined ? 0 : statSync(join(dir, `deep-grid-${key}.bars`)).size
  console.log(
    `grid build: ${(buildMs / 1000).toFixed(1)} s wall, ${(buildCpu / 1000).toFixed(1)} s cpu; ${file.meta.days} grid days to ${isoDate(file.meta.toDay)}, file ${mb(bytes)}, bars ${file.bars === undefined ? "not kept" : mb(barBytes)}, ${file.meta.memberships.length} monthly memberships; rss ${mb(process.memoryUsage().rss)}`
  )

  const from = HISTORY_START_DAY
  const to = md.wholeMarketFrom - 1
  const windowFrom = md.wholeMarketFrom
  const windowTo = Math.floor(md.latest.asOf / 86_400_000) - 1
  const cold = (lo: number, hi: number, n: number) => {
    const ms: Array<number> = []
    let rows = 0
    for (let k = 0; k < n; k++) {
      const date = isoDate(lo + Math.floor(random() * (hi - lo + 1)))
      const t = performance.now()
      rows += md.snapshotAsOf(date).size
      ms.push(performance.now() - t)
    }
    return { ms, rows: rows / n }
  }
  // one untimed read first: the price levels' checkpoints back to 2003 are made on the first deep read
  md.snapshotAsOf("2005-05-05")
  const deep = cold(from, to, 30)
  const window = cold(windowFrom, windowTo, 30)
  const warmDate = isoDate(from + 2000)
  md.snapshotAsOf(warmDate)
  const warm: Array<number> = []
  for (let k = 0; k < 50; k++) {
    const t = performance.now()
    md.snapshotAsOf(warmDate)
    warm.push(performance.now() - t)
  }
  console.log(
    `as-of snapshot, ${isoDate(from)}..${isoDate(to)} (deep): cold p50 ${fmt(quantile(deep.ms, 0.5))}, p99 ${fmt(quantile(deep.ms, 0.99))} (${deep.rows.toFixed(0)} rows on average; goal p50 <= 350 ms, p99 <= 1 s); warm p50 ${fmt(quantile(warm, 0.5))} (goal <= 10 ms)`
  )
  console.log(
    `baseline, in the window ${isoDate(windowFrom)}..${isoDate(windowTo)}: cold p50 ${fmt(quantile(window.ms, 0.5))}, p99 ${fmt(quantile(window.ms, 0.99))} (${window.rows.toFixed(0)} rows); deep / window p50 × ${(quantile(deep.ms, 0.5) / quantile(window.ms, 0.5)).toFixed(2)}`
  )
  t0 = performance.now()
  const load = cold(from, to, scans)
  console.log(
    `${scans} random deep as-of snapshots: ${((performance.now() - t0) / 1000).toFixed(1)} s, p50 ${fmt(quantile(load.ms, 0.5))}; rss after ${mb(process.memoryUsage().rss)}, heap ${mb(process.memoryUsage().heapUsed)}`
  )
  file.close()
} finally {
  if (keepDir === undefined) rmSync(dir, { recursive: true, force: true })
}
