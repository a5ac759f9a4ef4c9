/**
 * Dry-runs (issue 16, item 6): the history readers and the replay behind
 * `POST /v2/webhooks/dry-run`, on the full market (one year of daily
 * history, the minute history of the last sessions).
 *
 * - one year at `1d` over the whole market, over `top_100`, and pinned to one
 *   ticker (`rsi_14 < 30`, `fire_on: both`, `cooldown: 1d`), each against the
 *   as-of route in the same run: one `snapshotAsOf` per day and the compiled
 *   query over it (measured over a sample of days, scaled to the year's);
 * - five sessions at `1m` for a `top_100`-scoped q (the minute tier's
 *   members), realtime cadence;
 * - with `--grid-dir=D`, `1d` over the whole market before the window: the
 *   year before it, and 2004 to it (issue 17 item 4: one year ≤ 1 s, twenty
 *   ≤ 10 s).
 *
 * The whole market's year is walked twice: by this thread alone, then shared with
 * the walk helper's thread (`walkHelper.ts`), as the service walks it.
 *
 *   npm run bench:dry-run [-- --grid-dir=/tmp/deepgrid]
 */

import { dailyEvaluations, dailyStretches, keptColumns } from "../src/alerts/dryRun/dailyEvaluations.js"
import { minuteEvaluations } from "../src/alerts/dryRun/minuteEvaluations.js"
import { type Evaluation, FORWARD_DAYS, forwardReturns, Replay } from "../src/alerts/dryRun/replay.js"
import { DEFAULT_FIRING } from "../src/alerts/firing/options.js"
import { minuteTier } from "../src/api/signals/history.js"
import { systemMembership } from "../src/api/universes/resolve.js"
import { walkStretchesOf } from "../src/market/engine/deepWalk.js"
import { MarketData } from "../src/market/engine/MarketData.js"
import { walkHelperReady, walkSharing } from "../src/market/history/walkHelper.js"
import { DAY_MS, epochDay, isoDate } from "../src/market/indicators/days.js"
import { loadTickers } from "../src/market/tickers/index.js"
import type { CompiledQuery } from "../src/query/index.js"
import type { FiringOptions } from "../src/store/webhooks.js"
import { compileOn } from "../test/support/compileOn.js"
import { adoptGridFromArgs } from "./support/deepGrid.js"
import { timed } from "./support/stats.js"

const NOW = Date.UTC(2026, 10, 20, 18, 30) // a Friday, 13:30 New York
const TODAY = Math.floor(NOW / DAY_MS)
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`)

const tickers = loadTickers()
console.log(`market: ${tickers.length} tickers, HISTORY_DAYS=260`)
const built = timed(() => MarketData.build({ seed: 20260526, tickers, historyDays: 260, now: NOW }))
const md = built.value
console.log(`built in ${fmt(built.ms)}`)

const compile = compileOn(md)
const options: FiringOptions = { ...DEFAULT_FIRING, fireOn: "both", cooldownMs: DAY_MS }

const replayAll = (gen: Generator<Evaluation | undefined, void>) => {
  const r = new Replay(options)
  for (let s = gen.next(); !s.done; s = gen.next()) if (s.value !== undefined) r.step(s.value)
  const fr = forwardReturns(r.signals)
  return { evaluations: r.evaluations, events: r.eventCount, signals: fr["5d"].n }
}

const q = compile("rsi_14 < 30")
const toDay = TODAY - 1
const fromDay = toDay - 364
const all = [...Array(md.size).keys()]
const top100 = (day: number) => new Set(systemMembership(md, "top_100", day).tickers.map((t) => md.index.get(t)!))
const top100Union = new Set<number>()
for (let d = fromDay; d <= toDay; d++) for (const s of top100(d)) top100Union.add(s)

// the as-of route: one snapshot per day, the compiled query over it (a sample of days, cold)
const SAMPLE_DAYS = 8
const asOf = timed(() => {
  let n = 0
  for (let k = 0; k < SAMPLE_DAYS; k++) n += q.evaluate(md.snapshotAsOf(isoDate(fromDay + 3 + k * 41))).length
  return n
})
const perDay = asOf.ms / SAMPLE_DAYS
const yearDays = 365
console.log(
  `as-of route: ${fmt(perDay)} per day (${SAMPLE_DAYS} cold days) → ${fmt(perDay * yearDays)} for ${yearDays} days`
)

const rows: Array<[string, string, string, string]> = []
const scopes: Array<{
  name: string
  slots: Array<number>
  scope: (day: number) => ReadonlySet<number> | undefined
  q?: CompiledQuery
}> = [
  { name: "whole market", slots: all, scope: () => undefined },
  {
    name: "whole market, with a fundamental (pe_ratio < 15 AND rsi_14 < 30)",
    slots: all,
    scope: () => undefined,
    q: compile("pe_ratio < 15 AND rsi_14 < 30")
  },
  { name: "top_100", slots: [...top100Union].sort((a, b) => a - b), scope: (d: number) => top100(d) },
  { name: "one ticker (AAPL)", slots: [md.index.get("AAPL")!], scope: () => undefined }
]
// the service starts the walk helper once its market is ready (App.ts); so does the bench
await walkHelperReady()
for (const s of scopes) {
  // the whole market walked by this thread alone too (the walk helper off): the helper's share in the same run
  for (const alone of s.slots === all && s.q === undefined ? [true, false] : [false]) {
    walkSharing.enabled = !alone
    const run = timed(() =>
      replayAll(dailyEvaluations(md, { slots: s.slots, q: s.q ?? q, clear: undefined, fromDay, toDay, scope: s.scope }))
    )
    walkSharing.enabled = true
    const ratio = (run.ms / (perDay * yearDays)).toFixed(3)
    const name = `${s.name}${alone ? ", one thread alone" : ""}`
    console.log(
      `1d, one year, ${name}: ${fmt(run.ms)} wall, ${fmt(run.cpuMs)} CPU; ${run.value.evaluations} evaluations, ${run.value.events} events, ${run.value.signals} 5d returns; × ${ratio} of the as-of route`
    )
    rows.push([`1d, 365 days, ${name} (${s.slots.length} tickers walked)`, fmt(run.ms), fmt(perDay * yearDays), ratio])
  }
}

// five sessions at 1m, top_100 ∩ the minute tier
const tier = minuteTier(md.latest)
const members = top100(TODAY)
const minuteSlots = [...members].filter((s) => tier.has(md.tickers[s]!.ticker)).sort((a, b) => a - b)
const mq = compile("pct_from_vwap < -0.01 AND relative_volume > 1")
const fromMs = NOW - 7 * DAY_MS // Friday to Friday: five equity sessions (and seven crypto days)
const minute = timed(() =>
  replayAll(
    minuteEvaluations(md, {
      slots: minuteSlots,
      q: mq,
      clear: undefined,
      fromMs,
      toMs: NOW,
      cadence: "realtime",
      scope: () => members
    })
  )
)
console.log(
  `1m, 5 sessions, top_100 (${minuteSlots.length} tickers in the minute tier): ${fmt(minute.ms)} wall, ${fmt(minute.cpuMs)} CPU; ${minute.value.evaluations} evaluations, ${minute.value.events} events`
)
rows.push([`1m, 5 sessions, top_100 (${minuteSlots.length} tickers)`, fmt(minute.ms), "", ""])

// `--grid-dir=D`: 1d over the whole market before the window, as `POST /v2/webhooks/dry-run` reads it
// (`dailyStretches` over `walkStretchesOf`: a stretch of years at a time off the grid of states,
// built into D unless it is there): the year before the window, and 2004 to the window (~20 years)
if (adoptGridFromArgs(md, 20260526) !== undefined) {
  const last = md.wholeMarketFrom - 1
  for (const [name, first, alone] of [
    ["the year before the window", last - 364, true],
    ["the year before the window", last - 364, false],
    ["2004 to the window", epochDay("2004-01-02"), false]
  ] as const) {
    walkSharing.enabled = !alone
    const run = timed(() => {
      const stretches = walkStretchesOf(md, all, first, last, FORWARD_DAYS, keptColumns(q, undefined))
      const out = replayAll(dailyStretches(stretches, { slots: all, q, clear: undefined, scope: () => undefined }))
      return { ...out, stretches: stretches.length }
    })
    walkSharing.enabled = true
    const years = (last - first + 1) / 365.25
    const label = `${name}${alone ? ", one thread alone" : ""}`
    console.log(
      `1d, ${label}, whole market: ${fmt(run.ms)} wall, ${fmt(run.cpuMs)} CPU (${run.value.stretches} stretches, ${fmt(run.ms / years)} a year); ${run.value.evaluations} evaluations, ${run.value.events} events, ${run.value.signals} 5d returns; RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`
    )
    rows.push([`1d, ${label} (${years.toFixed(1)} years), whole market`, fmt(run.ms), "", ""])
  }
}

console.log("\n| Dry-run | Wall | As-of route, same days | Ratio |\n|---|---|---|---|")
for (const r of rows) console.log(`| ${r.join(" | ")} |`)
