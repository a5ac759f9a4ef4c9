/**
 * A rule's past evaluations at `1m`, within the minute history: the walked
 * tickers' rows at every minute of their sessions (`MarketReader.minuteWalk`,
 * the rows the minute-tier series read), and an evaluation at each minute
 * on which the webhook's cadence is due — `realtime` every minute, `hourly`
 * the first minute at or after each hour, `exchange_open` the first at or
 * after each 09:30 New York open — each on every walked ticker's latest
 * minute row at or before it (an equity between sessions keeps its last
 * minute), `q` and `clear_q` evaluated over that snapshot by the compiled
 * query. Only the kept columns are stored (see `dailyEvaluations`).
 */

import type { MarketReader } from "../../market/engine/MarketData.js"
import type { KeptColumn } from "../../market/history/keptRows.js"
import { allocateColumns, bindColumns } from "../../market/indicators/index.js"
import type { Column } from "../../market/snapshot.js"
import type { Cadence } from "../../store/webhooks.js"
import { isDue } from "../cadence.js"
import type { DailySpec } from "./dailyEvaluations.js"
import { keptColumns } from "./dailyEvaluations.js"
import { DaySnapshot } from "./daySnapshot.js"
import type { Evaluation } from "./replay.js"

export interface MinuteSpec extends Omit<DailySpec, "fromDay" | "toDay" | "scope"> {
  /** epoch ms, inclusive */
  readonly fromMs: number
  readonly toMs: number
  readonly cadence: Cadence
  /** the slots in scope at `t` (undefined: every walked slot) */
  readonly scope: (t: number) => ReadonlySet<number> | undefined
}

export function* minuteEvaluations(md: MarketReader, spec: MinuteSpec): Generator<Evaluation | undefined, void> {
  const { slots } = spec
  const n = slots.length
  const names = keptColumns(spec.q, spec.clear)
  const row = allocateColumns(1)
  const sink = bindColumns(row)
  const sources = names.map((name) => row.get(name) as Extract<Column, { kind: "numeric" | "boolean" }>)
  const values: Array<Array<number>> = names.map(() => [])
  const valid: Array<Array<number>> = names.map(() => [])
  const times: Array<number> = []
  const barOf: Array<number> = []
  const offset = new Int32Array(n + 1)
  for (let k = 0; k < n; k++) {
    md.minuteWalk(slots[k]!, spec.fromMs, spec.toMs, sink, (t, j) => {
      times.push(t)
      barOf.push(j)
      for (let c = 0; c < names.length; c++) {
        values[c]!.push(sources[c]!.values[0]!)
        valid[c]!.push(sources[c]!.valid[0]!)
      }
    })
    offset[k + 1] = times.length
    yield undefined
  }
  const kept: Array<KeptColumn> = names.map((name, c) => ({
    name,
    values: Float64Array.from(values[c]!),
    valid: Uint8Array.from(valid[c]!)
  }))
  const instants = [...new Set(times)].sort((a, b) => a - b)
  const layout = new DaySnapshot(md, slots, kept)
  const at = Int32Array.from(offset.subarray(0, n), (o) => o - 1)
  let last: number | undefined = spec.fromMs - 1
  for (const t of instants) {
    if (!isDue(spec.cadence, last, t)) continue
    last = t
    const positions = new Int32Array(n).fill(-1)
    const bars = new Int32Array(n).fill(-1)
    for (let k = 0; k < n; k++) {
      let p = at[k]!
      while (p + 1 < offset[k + 1]! && times[p + 1]! <= t) p++
      at[k] = p
      if (p >= offset[k]!) {
        positions[k] = p
        bars[k] = barOf[p]!
      }
    }
    yield layout.evaluate(t, positions, bars, spec.q, spec.clear, spec.scope(t))
  }
}
