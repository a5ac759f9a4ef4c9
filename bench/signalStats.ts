/**
 * Signal stats and events (issue 5): the flag history behind
 * `GET /v2/signals/{signal}/stats` and `/{ticker}/events`, on the full market
 * with the default 260-day window.
 *
 * - the first build (every flag of every bar of every ticker), wall and CPU
 *   time, against a full recomputation of every ticker's indicator state from
 *   its bars in the same run (commits only: the machine's speed reference);
 * - one daily close (the session's bars added), the incremental sync;
 * - a whole-window stats read of a flag (the handler's `flagDays`), cold and
 *   warm, over all tickers and over `top_100`, against computing the same
 *   counts on demand by rebuilding every row of the window (the baseline);
 * - the on-demand path at its cap: a numeric condition over 31 trading days.
 *
 *   npm run bench:signal-stats
 */
import {
  computedCounts,
  flagDays,
  numericCount,
  STATS_COMPUTED_MAX_DAYS,
  tradingDays
} from "../src/api/signals/stats.js"
import { MarketData, runToEnd } from "../src/market/engine/MarketData.js"
import { FlagHistory } from "../src/market/history/flagHistory.js"
import { epochDay } from "../src/market/indicators/days.js"
import { commit, configForAssetType, makeState } from "../src/market/indicators/index.js"
import { loadTickers } from "../src/market/tickers/index.js"
import { timed } from "./support/stats.js"

const NOW = Date.UTC(2026, 10, 20, 18, 30) // a Friday, 13:30 New York
const quantile = (xs: Array<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]
}
const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`)

const tickers = loadTickers()
console.log(`market: ${tickers.length} tickers, HISTORY_DAYS=260`)
const md = timed(() => MarketData.build({ seed: 20260526, tickers, historyDays: 260, now: NOW })).value

// --- the machine's speed: recompute every ticker's state from its bars (commits only)
const recompute = timed(() => {
  let bars = 0
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
      bars++
    }
  }
  return bars
})
console.log(`baseline: full state recomputation ${fmt(recompute.ms)} (${recompute.value} bars)`)

// --- the first build
const history = new FlagHistory(md.size, md.isCrypto)
const build = timed(() => runToEnd(history.sync(md)))
console.log(
  `flag history build: ${fmt(build.ms)} wall, ${fmt(build.cpuMs)} CPU, ${history.flags.length} flags — ${(build.ms / recompute.ms).toFixed(1)}× the state recomputation; holds ${(history.bytes / 2 ** 20).toFixed(0)} MB`
)

// --- a daily close: Friday's session and the UTC Friday end
md.refresh(Date.UTC(2026, 10, 21, 0, 30))
const close = timed(() => runToEnd(history.sync(md)))
console.log(`daily close sync: ${fmt(close.ms)}`)

// --- whole-window reads
const windowStart = epochDay(md.windowStart)
const top100 = new Set(
  (md.membershipOn(history.counts!.lastDay)?.ranked ?? []).slice(0, 100).map((t) => md.index.get(t)!)
)
const read = (members?: (day: number) => ReadonlySet<number>) =>
  flagDays(history, "above_sma_50", windowStart, undefined, members)
const cold = timed(() => read())
const coldTop = timed(() => read(() => top100))
const warm: Array<number> = []
const warmTop: Array<number> = []
for (let k = 0; k < 200; k++) {
  warm.push(timed(() => read()).ms)
  warmTop.push(timed(() => read(() => top100)).ms)
}
const days = cold.value.days
console.log(
  `whole-window stats read (${days.length} trading days), all tickers: cold ${fmt(cold.ms)}, warm p50 ${fmt(quantile(warm, 0.5))} p99 ${fmt(quantile(warm, 0.99))}`
)
console.log(
  `  top_100: cold ${fmt(coldTop.ms)}, warm p50 ${fmt(quantile(warmTop, 0.5))} p99 ${fmt(quantile(warmTop, 0.99))}`
)

// --- baseline: the same counts rebuilt on demand
const slots = Array.from({ length: md.size }, (_, i) => i)
const onDemand = timed(() =>
  runToEnd(
    computedCounts(md, {
      days,
      slots,
      columns: ["above_sma_50"],
      count: (snapshot, rows) => {
        const col = snapshot.columns.get("above_sma_50")!
        let n = 0
        if (col.kind === "boolean") for (const r of rows) if (col.valid[r] === 1 && col.values[r] === 1) n++
        return n
      }
    })
  )
)
const same = onDemand.value.every(
  (c, k) => c.count === cold.value.counts[k].count && c.total === cold.value.counts[k].total
)
console.log(
  `baseline: the same counts rebuilt on demand ${fmt(onDemand.ms)} (equal: ${same}) — ${(onDemand.ms / quantile(warm, 0.5)).toFixed(0)}× the warm read, ${(onDemand.ms / cold.ms).toFixed(0)}× the cold read`
)

// --- the on-demand path at its cap
const capped = days.slice(days.length - STATS_COMPUTED_MAX_DAYS)
const rsi = timed(() =>
  runToEnd(
    computedCounts(md, {
      days: capped,
      slots,
      columns: ["rsi_14"],
      count: numericCount("rsi_14", { op: ">", value: 70, text: ">70" })
    })
  )
)
console.log(
  `on demand, rsi_14 >70 over ${capped.length} trading days, all tickers: ${fmt(rsi.ms)} (${fmt(rsi.cpuMs)} CPU)`
)
if (!same || tradingDays(windowStart, history.counts!.lastDay).length !== days.length) process.exitCode = 1
