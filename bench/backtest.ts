/**
 * Backtests (issue 17, item 3): the walk behind `POST /v2/scan/backtest` on
 * the full market over the whole daily history the service holds, against
 * the as-of route in the same run — one as-of scan per rebalance day
 * (`snapshotAsOf`, cold, and the compiled query over it, the top `limit` in
 * the scan's order, exits from the series), measured over a sample of
 * rebalance days and scaled to the run's count.
 *
 * - weekly over the whole market (`rsi_14 < 30`, every match, 5-day hold);
 * - daily over `top_100` (`rsi_14 < 50`, the top 10 by `relative_volume`,
 *   1-day hold).
 *
 * The goals are for 20 years (weekly whole market ≤ 3 s, daily
 * top_100 ≤ 5 s): with `--grid-dir` they are measured over the twenty
 * years; without, over the window's history, also given per year of history
 * and scaled to 20 years.
 *
 *   npm run bench:backtest [-- --history-days=260] [-- --grid-dir=/tmp/deepgrid]
 */

import { systemMembership } from "../src/api/universes/resolve.js"
import { walkStretchesOf } from "../src/market/engine/deepWalk.js"
import { MarketData } from "../src/market/engine/MarketData.js"
import { walkHelperReady, walkSharing } from "../src/market/history/walkHelper.js"
import { DAY_MS, epochDay, isoDate } from "../src/market/indicators/days.js"
import { loadTickers } from "../src/market/tickers/index.js"
import type { CompiledQuery } from "../src/query/index.js"
import {
  type BacktestPeriod,
  backtestColumns,
  backtestStretches,
  exitTail,
  type Pick,
  screenDay
} from "../src/research/backtest/run.js"
import { type Every, exitDay, rebalanceDays } from "../src/research/backtest/schedule.js"
import { summarize } from "../src/research/backtest/stats.js"
import { compileOn } from "../test/support/compileOn.js"
import { adoptGridFromArgs } from "./support/deepGrid.js"
import { timed } from "./support/stats.js"

const arg = (name: string, fallback: number) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`))
  return hit === undefined ? fallback : Number(hit.split("=")[1])
}
const HISTORY_DAYS = arg("history-days", 260)
const NOW = Date.UTC(2026, 10, 20, 18, 30) // a Friday, 13:30 New York
const TODAY = Math.floor(NOW / DAY_MS)
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`)

const tickers = loadTickers()
console.log(`market: ${tickers.length} tickers, HISTORY_DAYS=${HISTORY_DAYS}`)
const built = timed(() => MarketData.build({ seed: 20260526, tickers, historyDays: HISTORY_DAYS, now: NOW }))
const md = built.value
console.log(`built in ${fmt(built.ms)}`)

const compile = compileOn(md)

/**
 * `--grid-dir=D`: the backtests reach back before the window, as `POST /v2/scan/backtest` does
 * (`walkStretchesOf`: a stretch of years at a time over the whole market's grid of states, built into
 * D unless it is there — `bench:deep-history --dir=D` makes the same one): both from 2004-01-02 to
 * the window (~20 years).
 */
const gridDir = adoptGridFromArgs(md, 20260526)
// the service starts the walk helper once its market is ready (App.ts); so does the bench
await walkHelperReady()

let end = 0
for (const s of md.series) if (s.length > 0) end = Math.max(end, s.days[s.length - 1]!)
const fromDay = gridDir === undefined ? md.earliestDay + 14 : epochDay("2004-01-02")
const years = (end - fromDay) / 365.25
console.log(`history: ${isoDate(fromDay)} to ${isoDate(end)} (${years.toFixed(2)} years)`)
const spy = md.index.get("SPY")!
const top100 = (day: number) => new Set(systemMembership(md, "top_100", day).tickers.map((t) => md.index.get(t)!))

interface Case {
  readonly name: string
  readonly q: CompiledQuery
  readonly every: Every
  readonly hold: number
  readonly pick: Pick
  readonly scope: (day: number) => ReadonlySet<number> | undefined
  /** rebalances in 20 years */
  readonly perTwentyYears: number
  readonly goalMs: number
}

const cases: ReadonlyArray<Case> = [
  {
    name: "weekly, whole market, rsi_14 < 30, every match, hold 5d",
    q: compile("rsi_14 < 30"),
    every: "1w",
    hold: 5,
    pick: { order: "day_change_pct", desc: true, limit: undefined },
    scope: () => undefined,
    perTwentyYears: 20 * 52,
    goalMs: 3000
  },
  {
    name: "daily, top_100, rsi_14 < 50, top 10 by relative_volume, hold 1d",
    q: compile("rsi_14 < 50"),
    every: "1d",
    hold: 1,
    pick: { order: "relative_volume", desc: true, limit: 10 },
    scope: top100,
    perTwentyYears: 20 * 252,
    goalMs: 5000
  }
]

/** The as-of route for one rebalance: the day's snapshot (cold) and the screen: the slots bought and their prices. */
const asOfPicks = (c: Case, day: number) => {
  const snap = md.snapshotAsOf(isoDate(day))
  const scope = c.scope(day)
  const rows =
    scope === undefined
      ? undefined
      : Int32Array.from(
          [...scope].flatMap((slot) => snap.index.get(md.tickers[slot]!.ticker) ?? []),
          (r) => r
        ).sort()
  const price = snap.columns.get("price") as { values: Float64Array; valid: Uint8Array }
  return Array.from(screenDay(c.q, snap, rows, c.pick))
    .filter((r) => price.valid[r] === 1 && price.values[r]! > 0)
    .map((r) => ({ slot: md.index.get(snap.tickers[r]!)!, price: price.values[r]! }))
}

/** A ticker's close on or before `day` off its own series (the window's, or its history before it). */
const closeOf = (slot: number, day: number): number => {
  const window = md.series[slot]!
  const s = window.length > 0 && day >= window.days[0]! ? window : md.deepOf(slot)?.series
  const j = s === undefined ? -1 : s.indexAtOrBefore(day)
  return j < 0 ? Number.NaN : s!.close[j]!
}

const SAMPLE = 6
const table: Array<string> = []
for (const c of cases) {
  // with the grid: both from 2004 to the window, the walk a stretch of years at a time (as the API's)
  const start = fromDay
  const last = gridDir === undefined ? TODAY - 1 : md.wholeMarketFrom - 1
  const days = rebalanceDays(start, last, c.every).filter((d) => exitDay(d, c.hold) <= end)
  const exits = days.map((d) => exitDay(d, c.hold))
  const walked = new Set<number>()
  for (const d of days) for (const slot of c.scope(d) ?? md.index.values()) walked.add(slot)
  const slots = [...walked].sort((a, b) => a - b)
  const tail = exitTail(days, exits)
  const walkAll = () => {
    const periods: Array<BacktestPeriod> = []
    // without the grid: the window's history alone, one stretch over the market
    const stretches =
      gridDir === undefined
        ? [{ from: start, to: last, reader: () => md }]
        : walkStretchesOf(md, [...slots, spy], start, last, tail, backtestColumns(c.q, c.pick.order))
    const spec = { slots, q: c.q, pick: c.pick, days, exits, scope: c.scope, benchmark: spy }
    for (const p of backtestStretches(stretches, spec)) if (p !== undefined) periods.push(p)
    return { periods, stretches: stretches.length }
  }
  // walked by this thread alone (the walk helper off), then as the service walks it
  walkSharing.enabled = false
  const alone = timed(walkAll)
  walkSharing.enabled = true
  const run = timed(walkAll)
  if (JSON.stringify(alone.value.periods) !== JSON.stringify(run.value.periods)) {
    throw new Error(`${c.name}: the walk shared with the helper and the walk alone disagree`)
  }
  const summary = summarize(run.value.periods)
  // the as-of route over a sample of the same rebalances, spread over the range (checked equal)
  const picks = Array.from({ length: SAMPLE }, (_, i) => Math.floor(((i + 0.5) * days.length) / SAMPLE))
  const baseline = timed(() => picks.map((i) => asOfPicks(c, days[i]!)))
  picks.forEach((i, k) => {
    const bought = baseline.value[k]!
    const a =
      bought.length === 0
        ? null
        : bought.reduce((sum, b) => sum + closeOf(b.slot, exits[i]!) / b.price - 1, 0) / bought.length
    const b = run.value.periods[i]!.return
    if ((a === null) !== (b === null) || (a !== null && b !== null && Math.abs(a - b) > 1e-9)) {
      throw new Error(`${c.name}: the walk and the as-of route disagree on ${isoDate(days[i]!)}: ${b} vs ${a}`)
    }
  })
  const perRebalance = baseline.ms / SAMPLE
  const baselineMs = perRebalance * days.length
  const perYear = run.ms / ((days[days.length - 1]! - days[0]!) / 365.25 || years)
  const twenty = perYear * 20
  console.log(
    `${c.name}: ${days.length} rebalances over ${slots.length} tickers (${run.value.stretches} stretches): ${fmt(run.ms)} wall (${fmt(run.cpuMs)} CPU; one thread alone ${fmt(alone.ms)}), ` +
      `${fmt(perYear)} per year of history → ${fmt(twenty)} for 20 years (goal ${fmt(c.goalMs)}); ` +
      `as-of route ${fmt(perRebalance)} per rebalance → ${fmt(baselineMs)} (× ${(run.ms / baselineMs).toFixed(3)}), ` +
      `${fmt(perRebalance * c.perTwentyYears)} for 20 years; mean_count ${summary.mean_count?.toFixed(1)}, ` +
      `mean_return ${summary.mean_return?.toFixed(5)}, RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`
  )
  table.push(
    `| ${c.name} | ${days.length} | ${fmt(run.ms)} | ${fmt(baselineMs)} | ${(run.ms / baselineMs).toFixed(3)} | ${fmt(perYear)} | ${fmt(twenty)} | ${fmt(c.goalMs)} |`
  )
}
console.log(
  "\n| Backtest | Rebalances | Walk | As-of route, same rebalances | Ratio | Walk per year of history | Scaled to 20 years | Goal (20 years) |\n|---|---|---|---|---|---|---|---|"
)
for (const row of table) console.log(row)
