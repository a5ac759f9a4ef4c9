/**
 * A compact, JSON-safe checkpoint of a `DailyState`: the hot block
 * (recursive values and what `preview` reads), the sliding-window
 * aggregates, and the retained tail of the bar rings (at most `yearDays`
 * closes/highs/lows, 51 volumes and 60 log returns): about 15 KB of JSON for
 * an equity with a year of history. Restoring gives a state that continues
 * bit-for-bit like the original, so history can be rebuilt from a checkpoint
 * plus the bars after it. NaN ("not defined yet") is stored as null.
 *
 * Where the bars themselves are kept, `recursiveScalars` (25 doubles) plus
 * `restoreFromBars` (rebuild.ts) do the same without storing the rings.
 *
 * Version 2: the hot block starts with the recursive scalars and the
 * Wilder/MACD/ADX seed sums live in their averages' slots.
 */
import type { IndicatorConfig } from "./config.js"
import { DailyState, HOT_COUNT } from "./state.js"

export interface IndicatorCheckpoint {
  readonly version: 2
  readonly config: IndicatorConfig
  readonly count: number
  /** the `preview` block (recursive values and window aggregates), see `H` */
  readonly hot: ReadonlyArray<number | null>
  readonly windows: ReadonlyArray<ReadonlyArray<number | null>>
  readonly closes: ReadonlyArray<number>
  readonly highs: ReadonlyArray<number>
  readonly lows: ReadonlyArray<number>
  readonly volumes: ReadonlyArray<number>
  readonly logReturns: ReadonlyArray<number>
}

const toJson = (x: number): number | null => (Number.isNaN(x) ? null : x)
const fromJson = (x: number | null): number => (x === null ? Number.NaN : x)

export const checkpoint = (st: DailyState): IndicatorCheckpoint => ({
  version: 2,
  config: { ...st.config },
  count: st.count,
  hot: Array.from(st.hot, toJson),
  windows: st.windows().map((w) => w.save().map(toJson)),
  closes: st.closes.toArray(),
  highs: st.highs.toArray(),
  lows: st.lows.toArray(),
  volumes: st.volumes.toArray(),
  logReturns: st.logReturns.toArray()
})

export const restore = (cp: IndicatorCheckpoint): DailyState => {
  if (cp.version !== 2) throw new RangeError(`unsupported indicator checkpoint version ${String(cp.version)}`)
  const st = new DailyState(cp.config)
  if (cp.hot.length !== HOT_COUNT) throw new RangeError("indicator checkpoint: wrong hot-block size")
  const windows = st.windows()
  if (cp.windows.length !== windows.length) throw new RangeError("indicator checkpoint: wrong window count")
  st.count = cp.count
  cp.hot.forEach((x, i) => {
    st.hot[i] = fromJson(x)
  })
  st.closes.load(cp.closes, cp.count)
  st.highs.load(cp.highs, cp.count)
  st.lows.load(cp.lows, cp.count)
  st.volumes.load(cp.volumes, cp.count)
  st.logReturns.load(cp.logReturns, Math.max(0, cp.count - 1))
  // close x volume, exactly as `commit` pushed them
  const dollars = Math.min(cp.count, st.dollarVolumes.capacity)
  st.dollarVolumes.count = cp.count - dollars
  for (let b = dollars - 1; b >= 0; b--) st.dollarVolumes.push(st.closes.at(b) * st.volumes.at(b))
  // after the rings: the moment windows rebuild from them
  windows.forEach((w, i) => {
    w.load(cp.windows[i].map(fromJson))
  })
  return st
}
