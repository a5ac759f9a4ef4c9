/**
 * The figure of issue 17 item 5 (cross-sectional functions in `q`): what ranked conjuncts cost a tick.
 *
 * 100,000 realtime webhooks in the mix of bench:webhooks — 60% ticker-scoped (`ticker = 'X' AND
 * (<cond>)`), 30% universe-scoped (top_100, top_10 or one of the account's two own universes, over a
 * pool of 2,000 conditions), 10% whole-market — on a synthetic snapshot of the real tickers with every
 * catalog column (sector, industry, exchange and asset type static). 20% of them (every fifth) carry
 * one more conjunct drawn from 1,000 distinct ranked ones: `PCT_RANK(c [, p]) > k`, `RANK(c [, p]) <=
 * k` or `ZSCORE(c [, p]) > k` over 20 popular numeric columns, with or without one of the four
 * partitions. Each tick every price drifts ±0.2% and 1.25% of the tickers re-draw one numeric column.
 *
 * The runner's pair evaluation (`Pairs.evaluate`: every due (predicate, scope) pair, skipped, patched
 * or evaluated in full over its universe's rows, as `tick.ts` runs it) on the same ticks twice: the
 * baseline (the webhooks without their ranked conjuncts) and the ranked set. Printed per tick: both
 * times (wall and CPU), the scope-wide rankings computed (the memo's misses: one per distinct
 * (scope, call) a tick read at many rows), the rows a call was read at without one, and the difference — what the ranks cost a tick; the goal is ≤ 150 ms.
 *
 *   npm run bench:rank
 *   npm run bench:rank -- --webhooks=20000 --ticks=5
 *
 * Each timed evaluation starts from a collected heap (`--expose-gc`, as the npm script runs it): a
 * collection of the other set's garbage is not counted on this one's time. Figures depend on the
 * machine's load: the load average is printed first.
 */
import { loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { CADENCES } from "../src/alerts/cadence.js"
import { ColumnChanges } from "../src/alerts/incremental.js"
import { type Pair, Pairs } from "../src/alerts/pairs.js"
import type { Column, Snapshot } from "../src/market/snapshot.js"
import { loadTickers } from "../src/market/tickers/index.js"
import { rankCounters } from "../src/query/evaluate/rank.js"
import { compareStrings } from "../src/query/semantics.js"
import { benchArgs } from "./support/args.js"
import { conditionMaker, NUMERIC_COLUMNS } from "./support/conditions.js"
import { catalogColumns } from "./support/market.js"
import { quantile, seededRandom } from "./support/stats.js"

/** `--expose-gc` (the npm script's): a full collection before each timed evaluation */
const gc = (globalThis as { gc?: () => void }).gc

const args = benchArgs()
const N_WEBHOOKS = Number(args.get("webhooks") ?? 100_000)
const TICKS = Number(args.get("ticks") ?? 8)
const RANKED_SHARE = 0.2
const DISTINCT_RANKED = 1_000
const GOAL_MS = 150

const rand = seededRandom(17)
const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(rand() * xs.length)]!
const ms = (x: number) => `${x.toFixed(x < 10 ? 1 : 0)} ms`

// ---- the market ------------------------------------------------------------------------------

const tickers = loadTickers()
  .map((t) => t.ticker)
  .sort(compareStrings)
const N = tickers.length
const index = new Map(tickers.map((t, i) => [t, i] as const))
const STATIC: Record<string, ReadonlyArray<string>> = {
  sector: ["Technology", "Energy", "Healthcare", "Financials", "Industrials", "Utilities", "Materials"],
  industry: Array.from({ length: 60 }, (_, i) => `Industry ${i}`),
  exchange: ["NASDAQ", "NYSE", "ARCA", "AMEX"],
  asset_type: ["CS", "ETF", "CRYPTO"]
}
const draw = (name: string) => (name === "price" ? 1 + rand() * 199 : rand() * 100 - 10)

const firstColumns = (): Map<string, Column> =>
  catalogColumns(tickers, rand, (name, i) => STATIC[name]?.[i % STATIC[name]!.length] ?? `${name}-${i % 97}`, draw)

/** the next tick: every price drifts ±0.2%, 1.25% of the tickers re-draw one numeric column */
const nextColumns = (prev: ReadonlyMap<string, Column>): Map<string, Column> => {
  const movers = new Map<number, string>()
  while (movers.size < Math.ceil(N * 0.0125)) movers.set(Math.floor(rand() * N), pick(NUMERIC_COLUMNS))
  const out = new Map(prev)
  for (const name of new Set(["price", ...movers.values()])) {
    const col = prev.get(name)
    if (col === undefined || col.kind !== "numeric") continue
    const values = col.values.slice()
    if (name === "price") for (let i = 0; i < N; i++) values[i] = values[i]! * (1 + (rand() - 0.5) * 0.004)
    for (const [i, c] of movers) if (c === name && col.valid[i] === 1) values[i] = draw(name)
    out.set(name, { kind: "numeric", values, valid: col.valid })
  }
  return out
}

const snapshotAt = (columns: ReadonlyMap<string, Column>, asOf: number): Snapshot => ({
  asOf,
  size: N,
  tickers,
  index,
  columns
})

// ---- the webhooks ------------------------------------------------------------------------------

const condition = conditionMaker(rand)
const ACCOUNTS = Math.max(1, Math.round(N_WEBHOOKS / 100))
const RANKED_COLUMNS = [
  "price",
  "relative_volume",
  "day_change_pct",
  "gap_pct",
  "volume_today",
  "market_cap",
  "pe_ratio",
  "rsi_14",
  ...NUMERIC_COLUMNS
]
  .filter((c, i, all) => NUMERIC_COLUMNS.includes(c) && all.indexOf(c) === i)
  .slice(0, 20)
const PARTITIONS = ["", "sector", "industry", "exchange", "asset_type"]

const rankedConjunct = (): string => {
  const col = pick(RANKED_COLUMNS)
  const by = pick(PARTITIONS)
  const args = by === "" ? col : `${col}, ${by}`
  switch (Math.floor(rand() * 3)) {
    case 0:
      return `PCT_RANK(${args}) > ${(0.5 + Math.floor(rand() * 50) / 100).toFixed(2)}`
    case 1:
      return `RANK(${args}) <= ${1 + Math.floor(rand() * 50)}`
    default:
      return `ZSCORE(${args}) > ${(Math.floor(rand() * 30) / 10).toFixed(1)}`
  }
}

interface Spec {
  readonly accountId: string
  readonly q: string
  readonly universeId: string | null
}

const makeSpecs = (): Array<Spec> => {
  const specs: Array<Spec> = []
  const account = (k: number) => `acc_${k % ACCOUNTS}`
  const nTicker = Math.round(N_WEBHOOKS * 0.6)
  const nUniverse = Math.round(N_WEBHOOKS * 0.3)
  for (let k = 0; k < nTicker; k++)
    specs.push({ accountId: account(k), q: `ticker = '${pick(tickers)}' AND (${condition()})`, universeId: null })
  const pool = Array.from({ length: 2_000 }, condition)
  for (let k = 0; k < nUniverse; k++) {
    const r = rand()
    specs.push({
      accountId: account(k),
      q: pick(pool),
      universeId: r < 0.4 ? "top_100" : r < 0.6 ? "top_10" : `u${k % 2}`
    })
  }
  const whole = new Set<string>()
  while (specs.length + whole.size < N_WEBHOOKS)
    whole.add(`${pick(NUMERIC_COLUMNS)} > ${(80 + rand() * 8).toFixed(2)} AND (${condition()})`)
  let k = 0
  for (const q of whole) specs.push({ accountId: account(k++), q, universeId: null })
  return specs
}

// ---- scopes: the rows of each universe, the same arrays every tick (as ScopeRows keeps them) ------

const scopeRows = (columns: ReadonlyMap<string, Column>): Map<string, Int32Array | undefined> => {
  const cap = columns.get("market_cap")
  const byCap = [...tickers.keys()]
    .filter((i) => cap?.kind === "numeric" && cap.valid[i] === 1)
    .sort((a, b) => (cap as { values: Float64Array }).values[b]! - (cap as { values: Float64Array }).values[a]!)
  const rows = new Map<string, Int32Array | undefined>([
    ["", undefined],
    ["top_100", Int32Array.from(byCap.slice(0, 100)).sort()],
    ["top_10", Int32Array.from(byCap.slice(0, 10)).sort()]
  ])
  for (let a = 0; a < ACCOUNTS; a++) {
    for (const u of ["u0", "u1"]) {
      const own = new Set<number>()
      while (own.size < 25) own.add(Math.floor(rand() * N))
      rows.set(`acc_${a}/${u}`, Int32Array.from(own).sort())
    }
  }
  return rows
}

// ---- the run ------------------------------------------------------------------------------------

const join = (specs: ReadonlyArray<Spec>): { pairs: Pairs; due: Array<Pair> } => {
  const pairs = new Pairs((s) => (index.has(s.toUpperCase()) ? s.toUpperCase() : undefined))
  for (const s of specs) {
    const compiled = pairs.compile(s.q)
    if (compiled === undefined) throw new Error(`does not compile: ${s.q}`)
    pairs.join(compiled, { ...s, cadence: "realtime" })
  }
  return { pairs, due: pairs.due(1 << CADENCES.indexOf("realtime")) }
}

const main = () => {
  console.log(
    `load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}; ${N} tickers; ${N_WEBHOOKS} webhooks`
  )
  const base = makeSpecs()
  const conjuncts = new Set<string>()
  while (conjuncts.size < DISTINCT_RANKED) conjuncts.add(rankedConjunct())
  const pool = [...conjuncts]
  const every = Math.round(1 / RANKED_SHARE)
  const ranked = base.map((s, i) => (i % every === 0 ? { ...s, q: `${s.q} AND ${pick(pool)}` } : s))
  const t0 = performance.now()
  const plain = join(base)
  const withRanks = join(ranked)
  const crossSectional = withRanks.due.filter((p) => p.crossSectional).length
  console.log(
    `joined in ${ms(performance.now() - t0)}: baseline ${plain.due.length} pairs, ranked ${withRanks.due.length} pairs (${crossSectional} cross-sectional, ${ranked.filter((_, i) => i % every === 0).length} webhooks with one of ${pool.length} ranked conjuncts)`
  )

  let columns = firstColumns()
  const scopes = scopeRows(columns)
  const rowIds = { ids: Int32Array.from({ length: N }, (_, i) => i), monotonic: true }
  let previous: Snapshot | undefined
  const rows: Array<{ base: number; baseCpu: number; ranked: number; rankedCpu: number; rankings: number }> = []
  for (let tick = 0; tick <= TICKS; tick++) {
    const snapshot = snapshotAt(columns, 1_000 * (tick + 1))
    const changes = previous === undefined ? undefined : ColumnChanges.between(previous, snapshot)
    const run = (set: { pairs: Pairs; due: Array<Pair> }) => {
      // each set starts from a collected heap: the other set's garbage is not collected on its time
      gc?.()
      const c0 = process.cpuUsage()
      const s0 = performance.now()
      const counts = set.pairs.evaluate(snapshot, set.due, scopes, rowIds, changes)
      const c = process.cpuUsage(c0)
      return { ms: performance.now() - s0, cpuMs: (c.user + c.system) / 1000, counts }
    }
    // alternate which set runs first, so that neither always finds the caches warm
    const r0 = rankCounters.computed
    const s0 = rankCounters.sparseRows
    const [b, r] = tick % 2 === 0 ? [run(plain), run(withRanks)] : (([x, y]) => [y, x])([run(withRanks), run(plain)])
    const rankings = rankCounters.computed - r0
    const sparse = rankCounters.sparseRows - s0
    const label = tick === 0 ? "warm-up" : `tick ${tick}`
    console.log(
      `${label}: baseline ${ms(b!.ms)} (cpu ${ms(b!.cpuMs)}; ${JSON.stringify(b!.counts)}), ranked ${ms(r!.ms)} (cpu ${ms(r!.cpuMs)}; ${JSON.stringify(r!.counts)}), ${rankings} rankings computed, ${sparse} rows ranked alone`
    )
    if (tick > 0) rows.push({ base: b!.ms, baseCpu: b!.cpuMs, ranked: r!.ms, rankedCpu: r!.cpuMs, rankings })
    previous = snapshot
    columns = nextColumns(columns)
  }
  const p50 = (f: (x: (typeof rows)[number]) => number) => quantile(rows.map(f), 0.5)
  const extra = p50((x) => x.ranked - x.base)
  const extraCpu = p50((x) => x.rankedCpu - x.baseCpu)
  console.log(
    `p50 over ${rows.length} ticks: baseline ${ms(p50((x) => x.base))} (cpu ${ms(p50((x) => x.baseCpu))}), ranked ${ms(p50((x) => x.ranked))} (cpu ${ms(p50((x) => x.rankedCpu))}), rankings ${p50((x) => x.rankings)} a tick`
  )
  console.log(
    `ranks cost a tick: ${ms(extra)} wall, ${ms(extraCpu)} cpu (max ${ms(Math.max(...rows.map((x) => x.ranked - x.base)))}) — goal ≤ ${GOAL_MS} ms: ${extra <= GOAL_MS ? "met" : "NOT met"}`
  )
}

main()
