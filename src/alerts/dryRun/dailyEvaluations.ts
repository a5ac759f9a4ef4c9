/**
 * A rule's past evaluations at `1d`: one per day of the range on which a
 * ticker in scope then has a daily bar (NYSE trading days, and every day
 * while the scope holds crypto), each on the as-of rows of that day — a
 * ticker's latest daily row on or before it, at most `CARRY_FORWARD_DAYS`
 * older (the rule of `MarketReader.snapshotAsOf` and the as-of scans).
 *
 * The rows come from one `DailyWalk` over the walked tickers (the scope's
 * members over the range, and the tickers `q` names), which previews each
 * bar once; only the columns the conditions read are kept (and `price`, for
 * the forward returns). Then, day by day, the kept values are laid out as a
 * snapshot of that day and `q` (and `clear_q`) evaluated over it by the
 * compiled query, exactly as a live tick evaluates them — or, when neither
 * condition reads beyond its own row, each condition is evaluated once over
 * every kept bar and a day's matches read off its rows (`BarMatches`).
 *
 * A generator: it yields `undefined` every few thousand bars (so a caller
 * can let other work run) and each evaluation as it is made.
 */

import type { WalkStretch } from "../../market/engine/deepWalk.js"
import { CARRY_FORWARD_DAYS, type MarketReader } from "../../market/engine/MarketData.js"
import { stateInstant } from "../../market/history/dailyWalk.js"
import { barsInRange, KeptRows } from "../../market/history/keptRows.js"
import type { CompiledQuery } from "../../query/index.js"
import { BarMatches, rowLocal } from "./barMatches.js"
import { DaySnapshot, STRING_COLUMN_NAMES } from "./daySnapshot.js"
import type { Evaluation } from "./replay.js"

export interface DailySpec {
  /** market slots walked, ascending */
  readonly slots: ReadonlyArray<number>
  readonly q: CompiledQuery
  readonly clear: CompiledQuery | undefined
  /** epoch days, inclusive */
  readonly fromDay: number
  readonly toDay: number
  /** the slots in scope on `day` (undefined: every walked slot) */
  readonly scope: (day: number) => ReadonlySet<number> | undefined
  /**
   * how a day's matches are found: by laying out each day's rows as a snapshot (`DaySnapshot`, what a
   * ranked or cross-ticker condition needs), or — the default when both conditions are row-local —
   * off each kept bar's own evaluation (`BarMatches`); tests compare the two
   */
  readonly layout?: "days" | "bars" | undefined
}

/** The computed columns the conditions read, and `price`. */
export const keptColumns = (q: CompiledQuery, clear: CompiledQuery | undefined): Array<string> => {
  const names = new Set(["price", ...q.columns, ...(clear?.columns ?? [])])
  return [...names].filter((n) => !STRING_COLUMN_NAMES.has(n)).sort()
}

export function* dailyEvaluations(md: MarketReader, spec: DailySpec): Generator<Evaluation | undefined, void> {
  const { slots, fromDay, toDay } = spec
  const n = slots.length
  const lo = fromDay - CARRY_FORWARD_DAYS
  // the days of the range on which a ticker in scope has a bar
  const span = Math.max(0, toDay - fromDay + 1)
  const seen = new Uint8Array(span)
  // each day's scope asked once (a universe's is a lookup of its memberships)
  const scopes = Array.from({ length: span }, (_, d) => spec.scope(fromDay + d))
  for (let k = 0; k < n; k++) {
    const s = md.series[slots[k]!]!
    const days = s.days
    for (let j = Math.max(s.indexAtOrAfter(fromDay), 0), last = s.indexAtOrBefore(toDay); j <= last; j++) {
      const d = days[j]! - fromDay
      if (seen[d] === 0 && (scopes[d]?.has(slots[k]!) ?? true)) seen[d] = 1
    }
  }
  const rows = new KeptRows(md, slots, keptColumns(spec.q, spec.clear), barsInRange(lo, toDay))
  for (const _ of rows.walk()) yield undefined

  if (spec.layout !== "days" && rowLocal(spec.q) && (spec.clear === undefined || rowLocal(spec.clear))) {
    // each condition evaluated once over every kept bar, each day's matches listed from them
    const byBar = new BarMatches(md, slots, rows, spec.q, spec.clear, fromDay, toDay)
    yield undefined
    for (let day = fromDay; day <= toDay; day++)
      if (seen[day - fromDay] === 1) yield byBar.evaluate(day, dayInstant(day), scopes[day - fromDay])
    return
  }
  const positions = new Int32Array(n)
  const bars = new Int32Array(n)
  const layout = new DaySnapshot(md, slots, rows.columns)
  for (let day = fromDay; day <= toDay; day++) {
    rows.on(day, positions, bars)
    if (seen[day - fromDay] !== 1) continue
    yield layout.evaluate(dayInstant(day), positions, bars.slice(), spec.q, spec.clear, scopes[day - fromDay])
  }
}

/**
 * `dailyEvaluations` over stretches of the range (`walkStretchesOf`: a whole-market twenty years a
 * stretch of about a year at a time), each over its own reader, in order.
 */
export function* dailyStretches(
  stretches: ReadonlyArray<WalkStretch>,
  spec: Omit<DailySpec, "fromDay" | "toDay">
): Generator<Evaluation | undefined, void> {
  for (const { from, to, reader } of stretches) {
    yield undefined
    yield* dailyEvaluations(reader(), { ...spec, fromDay: from, toDay: to })
  }
}

/** The instant of a day's evaluation: the end of the UTC day (after every daily close of it). */
export const dayInstant = (day: number): number => stateInstant(true, day)
