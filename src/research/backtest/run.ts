/**
 * A screen's backtest over the daily history, in one walk: the rows the
 * rebalance days read (each walked ticker's as-of row of each rebalance day —
 * its latest daily row on or before it, at most 14 days older, the as-of
 * scans' rows) are kept from one `DailyWalk` that previews only those bars
 * (`KeptRows` with `barsAsOf`), and only the columns `q` and the order read,
 * and `price`. Then, day by day, the kept values are laid out as that day's
 * snapshot (`DaySnapshot`), `q` evaluated within the universe's rows of that
 * day (`screenDay`), the top `limit` taken in the scan's order, and each held
 * ticker's return measured to its close on the exit day (periods.ts).
 *
 * A generator: it yields `undefined` every few hundred walked bars (so a
 * caller can let other work run) and each period as it is computed.
 */
import { BarMatches, rowLocal } from "../../alerts/dryRun/barMatches.js"
import { DaySnapshot, STRING_COLUMN_NAMES } from "../../alerts/dryRun/daySnapshot.js"
import type { WalkStretch } from "../../market/engine/deepWalk.js"
import type { MarketReader } from "../../market/engine/MarketData.js"
import { stateInstant } from "../../market/history/dailyWalk.js"
import { barsAsOf, KeptRows } from "../../market/history/keptRows.js"
import type { Snapshot } from "../../market/snapshot.js"
import { type CompiledQuery, rowsOfBits } from "../../query/index.js"
import { pageOf } from "../../query/order.js"
import { holdingReturn, periodReturn } from "./periods.js"

/** Which of a day's matches are bought: all of them, or the first `limit` in the scan's order. */
export interface Pick {
  readonly order: string
  readonly desc: boolean
  /** undefined: every match */
  readonly limit: number | undefined
}

export interface BacktestSpec {
  /** market slots walked (those that may be held, and those `q` names), ascending */
  readonly slots: ReadonlyArray<number>
  readonly q: CompiledQuery
  readonly pick: Pick
  /** rebalance days and their exit days (epoch days, ascending) */
  readonly days: ReadonlyArray<number>
  readonly exits: ReadonlyArray<number>
  /** the slots in the universe on `day` (undefined: every walked slot) */
  readonly scope: (day: number) => ReadonlySet<number> | undefined
  /** the benchmark's market slot (undefined: none) */
  readonly benchmark: number | undefined
  /**
   * how a day's purchases are found: by laying out each rebalance day's rows as a snapshot
   * (`DaySnapshot`, what a ranked or cross-ticker `q` or a `limit` needs), or — the default for every
   * match of a row-local `q` — off each kept bar's own evaluation (`BarMatches`); tests compare the two
   */
  readonly layout?: "days" | "bars" | undefined
}

export interface BacktestPeriod {
  readonly day: number
  readonly exitDay: number
  readonly count: number
  readonly return: number | null
  readonly benchmark_return: number | null
}

/**
 * The one evaluation of a backtest: the rows of `snapshot` (one day's rows) bought that day — `q`
 * over the universe's rows (`rows`; undefined: every row), all matches or the first `limit` in the
 * scan's (order value, ticker) order. A cross-sectional function of `q` (rank, pct_rank, zscore)
 * takes its scope here: the universe's rows of that day.
 */
export const screenDay = (q: CompiledQuery, snapshot: Snapshot, rows: Int32Array | undefined, pick: Pick) => {
  // ranks (PCT_RANK, RANK, ZSCORE) are taken among the day's universe rows, as the as-of scan takes them
  const matched = q.matchBits(snapshot, rows, rows)
  if (pick.limit === undefined) {
    const out = new Int32Array(matched.count)
    rowsOfBits(matched.bits, out)
    return out
  }
  return Int32Array.from(pageOf(snapshot, matched, pick.order, pick.desc, pick.limit, undefined).rows)
}

/** The columns a backtest keeps: `price`, those `q` reads and the order column (numeric and boolean ones). */
export const backtestColumns = (q: CompiledQuery, order: string): Array<string> =>
  [...new Set(["price", order, ...q.columns])].filter((n) => !STRING_COLUMN_NAMES.has(n)).sort()

/** A ticker's last close on or before `day` (NaN: none). */
export const closeOnOrBefore = (md: MarketReader, slot: number, day: number): number => {
  const s = md.series[slot]!
  const j = s.indexAtOrBefore(day)
  return j < 0 ? Number.NaN : s.close[j]!
}

export function* backtestPeriods(md: MarketReader, spec: BacktestSpec): Generator<BacktestPeriod | undefined, void> {
  const { slots, days, exits } = spec
  const n = slots.length
  // a ticker's row is read on the days it is in the universe (a ticker q names, on every day): the
  // others' bars are only committed (a top_100 backtest walks ~450 tickers, ~100 of them in it a day)
  const named = new Set<number>()
  for (const t of spec.q.tickers) {
    const slot = md.index.get(t)
    if (slot !== undefined) named.add(slot)
  }
  const scopes = days.map((day) => spec.scope(day))
  // every row read every day: no universe, or none that leaves a walked ticker out
  const wanted = scopes.every((scope) => scope === undefined)
    ? undefined
    : (slot: number, d: number) => named.has(slot) || (scopes[d]?.has(slot) ?? true)
  const rows = new KeptRows(md, slots, backtestColumns(spec.q, spec.pick.order), barsAsOf(days, wanted))
  for (const _ of rows.walk()) yield undefined
  const b = spec.benchmark
  const period = (d: number, entries: ArrayLike<number>, exitCloses: ArrayLike<number>): BacktestPeriod => {
    const held = periodReturn(entries, exitCloses)
    const benchmark =
      b === undefined ? undefined : holdingReturn(closeOnOrBefore(md, b, days[d]!), closeOnOrBefore(md, b, exits[d]!))
    return {
      day: days[d]!,
      exitDay: exits[d]!,
      count: held.count,
      return: held.return,
      benchmark_return: benchmark ?? null
    }
  }

  if (spec.layout !== "days" && spec.pick.limit === undefined && rowLocal(spec.q) && days.length > 0) {
    // every match bought: q evaluated once over every kept bar, each day's matches listed from its bits
    const byBar = new BarMatches(md, slots, rows, spec.q, undefined, days[0]!, days[days.length - 1]!)
    yield undefined
    const price = rows.columns.find((c) => c.name === "price")!
    const entries: Array<number> = []
    const exitCloses: Array<number> = []
    for (let d = 0; d < days.length; d++) {
      const exit = exits[d]!
      entries.length = 0
      exitCloses.length = 0
      byBar.eachMatch(days[d]!, scopes[d], (slot, p) => {
        entries.push(price.valid[p] === 1 ? price.values[p]! : Number.NaN)
        // the exit's close: the last bar on or before the exit day, searched from the row's bar on
        const s = md.series[slot]!
        const j = rows.barAt(p)
        exitCloses.push(s.close[s.indexAtOrBefore(exit, j, j + exit - s.days[j]!)]!)
      })
      yield period(d, entries, exitCloses)
    }
    return
  }

  const layout = new DaySnapshot(md, slots, rows.columns)
  const positions = new Int32Array(n)
  const bars = new Int32Array(n)
  for (let d = 0; d < days.length; d++) {
    const day = days[d]!
    const exit = exits[d]!
    rows.on(day, positions, bars)
    const snapshot = layout.at(stateInstant(true, day), positions, [...spec.q.columns, spec.pick.order])
    const bought = layout.slotsOf(screenDay(spec.q, snapshot, layout.rowsIn(scopes[d]), spec.pick))
    const entries = new Float64Array(bought.length)
    const exitCloses = new Float64Array(bought.length)
    for (let i = 0; i < bought.length; i++) {
      entries[i] = layout.price(bought[i]!)
      exitCloses[i] = closeOnOrBefore(md, bought[i]!, exit)
    }
    yield period(d, entries, exitCloses)
  }
}

/** The most calendar days a rebalance's exit comes after it: the bars a stretch of the walk reads past its last day. */
export const exitTail = (days: ReadonlyArray<number>, exits: ReadonlyArray<number>): number =>
  days.reduce((most, d, i) => Math.max(most, exits[i]! - d), 0)

/**
 * A backtest over stretches of its days (`walkStretchesOf`: the whole market's twenty years a stretch
 * of about a year at a time): each stretch's rebalance days walked over its own reader, in order.
 */
export function* backtestStretches(
  stretches: ReadonlyArray<WalkStretch>,
  spec: BacktestSpec
): Generator<BacktestPeriod | undefined, void> {
  // the stretches ascend and the days too: each stretch's days follow the last one's
  let a = 0
  for (const { from, to, reader } of stretches) {
    while (a < spec.days.length && spec.days[a]! < from) a++
    let b = a
    while (b < spec.days.length && spec.days[b]! <= to) b++
    if (a === b) continue
    yield undefined
    yield* backtestPeriods(reader(), { ...spec, days: spec.days.slice(a, b), exits: spec.exits.slice(a, b) })
    a = b
  }
}
