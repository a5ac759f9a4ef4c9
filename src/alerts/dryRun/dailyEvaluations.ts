/**
 * A rule's past evaluations at `1d`: one per day of the range on which a
 * ticker in scope then has a daily bar (NYSE trading days, and every day
 * while the scope holds crypto), each on the as-of rows of that day — a
 * ticker's latest daily row on or before it, at most `CARRY_FORWARD_DAYS`
 * older (the rule of `MarketData.snapshotAsOf` and the as-of scans).
 *
 * The rows come from one `DailyWalk` over the walked tickers (the scope's
 * members over the range, and the tickers `q` names), which previews each
 * bar once; only the columns the conditions read are kept (and `price`, for
 * the forward returns). Then, day by day, the kept values are laid out as a
 * snapshot of that day and `q` (and `clear_q`) evaluated over it by the
 * compiled query, exactly as a live tick evaluates them.
 *
 * A generator: it yields `undefined` every few thousand bars (so a caller
 * can let other work run) and each evaluation as it is made.
 */

import { INPUT_COLUMNS } from "../../market/engine/inputs.js"
import { CARRY_FORWARD_DAYS, type MarketData } from "../../market/engine/MarketData.js"
import { DailyWalk, stateInstant, type WalkInputs } from "../../market/history/dailyWalk.js"
import type { Column } from "../../market/snapshot.js"
import type { CompiledQuery } from "../../query/index.js"
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
}

/** The computed columns the conditions read, and `price`. */
export const keptColumns = (q: CompiledQuery, clear: CompiledQuery | undefined): Array<string> => {
  const names = new Set(["price", ...q.columns, ...(clear?.columns ?? [])])
  return [...names].filter((n) => !STRING_COLUMN_NAMES.has(n)).sort()
}

const NEWS_COLUMNS: ReadonlySet<string> = new Set(["news_volume", "news_volume_weighted_sentiment"])

/** The inputs the kept columns need: news only for the news columns (no other column reads it). */
const inputsFor = (columns: ReadonlyArray<string>): WalkInputs =>
  columns.some((c) => NEWS_COLUMNS.has(c)) ? "all" : columns.some((c) => INPUT_COLUMNS.has(c)) ? "fundamentals" : "none"

export function* dailyEvaluations(md: MarketData, spec: DailySpec): Generator<Evaluation | undefined, void> {
  const { slots, fromDay, toDay } = spec
  const n = slots.length
  const lo = fromDay - CARRY_FORWARD_DAYS
  const first = new Int32Array(n)
  const offset = new Int32Array(n + 1)
  const seen = new Uint8Array(Math.max(0, toDay - fromDay + 1))
  for (let k = 0; k < n; k++) {
    const s = md.series[slots[k]!]!
    const a = s.indexAtOrAfter(lo)
    const b = s.indexAtOrBefore(toDay)
    first[k] = a
    offset[k + 1] = offset[k]! + Math.max(0, b - a + 1)
    for (let j = Math.max(a, 0); j <= b; j++) {
      const d = s.days[j]! - fromDay
      if (d >= 0 && seen[d] === 0 && (spec.scope(s.days[j]!)?.has(slots[k]!) ?? true)) seen[d] = 1
    }
  }
  const total = offset[n]!
  const names = keptColumns(spec.q, spec.clear)
  const kept = names.map((name) => ({ name, values: new Float64Array(total), valid: new Uint8Array(total) }))
  const walk = new DailyWalk(md, {
    slots,
    start: (_, s) => s.indexAtOrAfter(lo),
    fresh: false,
    toDay,
    inputs: inputsFor(names),
    columns: names
  })
  const sources = kept.map((c) => walk.row.get(c.name) as Extract<Column, { kind: "numeric" | "boolean" }>)
  const run = walk.run((k, j) => {
    const p = offset[k]! + (j - first[k]!)
    for (let c = 0; c < kept.length; c++) {
      const src = sources[c]!
      const dst = kept[c]!
      dst.valid[p] = src.valid[0]!
      dst.values[p] = src.values[0]!
    }
  })
  for (let step = run.next(); !step.done; step = run.next()) yield undefined

  // day by day: each walked ticker's latest kept bar on or before the day, within the carry-forward
  const at = Int32Array.from(first, (a) => a - 1)
  const layout = new DaySnapshot(md, slots, kept)
  const bars = new Int32Array(n).fill(-1)
  for (let day = fromDay; day <= toDay; day++) {
    if (seen[day - fromDay] !== 1) continue
    const positions = new Int32Array(n).fill(-1)
    for (let k = 0; k < n; k++) {
      const s = md.series[slots[k]!]!
      const last = first[k]! + (offset[k + 1]! - offset[k]!) - 1
      let j = at[k]!
      while (j + 1 <= last && s.days[j + 1]! <= day) j++
      at[k] = j
      if (j >= first[k]! && day - s.days[j]! <= CARRY_FORWARD_DAYS) {
        positions[k] = offset[k]! + (j - first[k]!)
        bars[k] = j
      } else bars[k] = -1
    }
    yield layout.evaluate(dayInstant(day), positions, bars.slice(), spec.q, spec.clear, spec.scope(day))
  }
}

/** The instant of a day's evaluation: the end of the UTC day (after every daily close of it). */
export const dayInstant = (day: number): number => stateInstant(true, day)
