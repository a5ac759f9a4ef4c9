/**
 * Every ticker's daily row as of a date before the window the market keeps in memory, off the
 * whole-market grid of states (`history/deepGrid.ts`): for each ticker the grid's state at the
 * grid day before the date (its recursive scalars and bar count), the bars around it regenerated
 * (`generateBars`: the same bits as its whole history), the state rebuilt from them
 * (`restoreFromBars`), the bars from the grid day to the date committed and the date's bar
 * previewed — the row a walk from the ticker's first bar gives, bit for bit (tested against
 * `rowAsOf`, which makes it that way).
 *
 * The carry-forward rule is `snapshotAsOf`'s: a ticker has a row when its latest bar on or before
 * the date is at most 14 days older. A ticker whose window already holds the date (crypto's starts
 * a few days before equities', an import's older bars) is read off its window, as `rowAsOf` reads it.
 */
import { barAt } from "../history/barSeries.js"
import { BAR_GROUP } from "../history/deepBars.js"
import { type DeepBarsReader, type GroupBars, groupBars } from "../history/deepBarsReader.js"
import type { DeepGridMeta } from "../history/deepGrid.js"
import { deepStateBefore } from "../history/deepTicker.js"
import { generateBars } from "../history/generateBars.js"
import { GRID_LONG_SUM, GRID_SLOT } from "../history/gridStates.js"
import { freshStart, restoredStart, restoreStart, START_SIZE } from "../history/walkStart.js"
import {
  ALL_FAMILIES,
  allocateColumns,
  type BarArrays,
  bindColumns,
  commitDeferred,
  configForAssetType,
  type DailyState,
  finishCommits,
  preview,
  restoreNeeds,
  SC_COUNT
} from "../indicators/index.js"
import { CARRY_FORWARD_DAYS, type DailySnapshot, dailySnapshotOf, type MarketCore } from "./core.js"
import { deepOf, stateBefore } from "./history.js"

/** The whole-market grid a market reads its deep as-of rows from (`DeepHistory` opens it). */
export interface DeepGridReader {
  readonly meta: DeepGridMeta
  /** grid day k's slots of every ticker (`meta.size · GRID_SLOT` doubles) */
  block(k: number): Float64Array
  /** the walk's bars, when kept beside the grid (`deepBars.ts`): read instead of regenerated */
  readonly bars?: DeepBarsReader | undefined
}

/**
 * calendar days of bars read before the grid day: a restore needs a year of bars with the SMA-200 sum
 * the grid keeps (`restoreFromBars`): the 252 sessions before a day since 2003 reach at most 370 days back (2012-11-26: Sandy), crypto's 365 bars 365
 */
export const LOOKBACK_DAYS = 372

/**
 * Calendar days of bars a walk's restores of `families` read before the grid day (`restoreNeeds`):
 * `LOOKBACK_DAYS` for a year of bars, six weeks for the stochastic's 13, three weeks for the last bar
 * (a ticker without a bar that recent is restored off its own history, `deepOf`).
 */
export const lookbackDays = (families: number = ALL_FAMILIES): number => {
  const need = restoreNeeds(YEAR_CONFIG, families)
  return need === YEAR_CONFIG.yearDays ? LOOKBACK_DAYS : need > 1 ? 42 : 21
}

const YEAR_CONFIG = configForAssetType("CS")

/** The grid day a read of `day` starts from: the last one on or before every row's state (14 days back), in the grid. */
export const gridIndexFor = (meta: DeepGridMeta, day: number): number =>
  Math.max(0, Math.min(meta.days - 1, Math.floor((day - CARRY_FORWARD_DAYS - meta.origin) / meta.every)))

export const deepSnapshotAsOf = (core: MarketCore, grid: DeepGridReader, date: string, day: number): DailySnapshot => {
  const meta = grid.meta
  if (meta.size !== core.size) throw new Error(`the deep grid holds ${meta.size} tickers, the market ${core.size}`)
  // each ticker restores at the last grid day at or before its row's bar: k, or the next one when
  // that bar is on or after it (a row carried forward from before it restores at k)
  const k = gridIndexFor(meta, day)
  const kLast = Math.min(meta.days - 1, Math.max(k, Math.floor((day - meta.origin) / meta.every)))
  const from = meta.origin + meta.every * k - LOOKBACK_DAYS
  const blocks = new Map<number, Float64Array>()
  const blockOf = (kt: number) => {
    let b = blocks.get(kt)
    if (b === undefined) blocks.set(kt, (b = grid.block(kt)))
    return b
  }
  const capacity = day - from + 1
  const stored = grid.bars?.covers(from, day) === true ? grid.bars : undefined
  const group = stored?.layout.group ?? BAR_GROUP
  const got = groupBars(group, capacity)
  const { days, open, high, low, close, volume, length } = got

  const wide = allocateColumns(core.size)
  const sink = bindColumns(wide)
  const present = new Uint8Array(core.size)
  const rowDay = new Int32Array(core.size)
  const news = new Map<number, [Float64Array, Float64Array]>()
  const scratch = new Map<string, DailyState>()
  const bar = { day: 0, open: 0, high: 0, low: 0, close: 0, volume: 0 }
  /** the bar at `at`, in the one bar object */
  const barOf = (at: number) => {
    bar.day = days[at]
    bar.open = open[at]
    bar.high = high[at]
    bar.low = low[at]
    bar.close = close[at]
    bar.volume = volume[at]
    return bar
  }
  const offset = new Float64Array(core.size).fill(1)

  for (let first = 0; first < core.size; first += group) {
    const slots = Int32Array.from({ length: Math.min(group, core.size - first) }, (_, t) => first + t)
    length.fill(0)
    if (stored !== undefined) stored.read(first / group, from, day, got)
    else generateInto(core, slots, from, day, offset, got)
    for (let t = 0; t < slots.length; t++) {
      const i = slots[t]
      // a ticker whose window holds its state on the date is read off the window, as `rowAsOf` reads it
      const s = core.series[i]
      const w = s.indexAtOrBefore(day)
      if (w >= 0 && s.days[w] >= core.windowDayOf(i)) {
        if (day - s.days[w] > CARRY_FORWARD_DAYS) continue
        preview(stateBefore(core, i, w), barAt(s, w), core.inputsAt(i, s.days[w], news), sink, i)
        present[i] = 1
        rowDay[i] = s.days[w]
        continue
      }
      const base = t * capacity
      const n = length[t]
      // the latest bar on or before the date, within the carry-forward
      const j = n - 1
      if (j < 0 || day - days[base + j] > CARRY_FORWARD_DAYS) continue
      const bars = {
        days: days.subarray(base, base + n),
        open: open.subarray(base, base + n),
        high: high.subarray(base, base + n),
        low: low.subarray(base, base + n),
        close: close.subarray(base, base + n),
        volume: volume.subarray(base, base + n)
      }
      const key = core.isCrypto[i] === 1 ? "crypto" : "equity"
      const kt = Math.max(k, Math.min(kLast, Math.floor((days[base + j] - meta.origin) / meta.every)))
      const gridDay = meta.origin + meta.every * kt
      const restored = stateAtGridDay(blockOf(kt), i, core.tickers[i].asset_type, bars, n, gridDay, scratch.get(key))
      if (restored === undefined) {
        // too few bars before the grid day to restore from (a sparse import): the ticker's own history
        const d = deepRow(core, i, day, sink, news)
        if (d < 0) continue
        present[i] = 1
        rowDay[i] = d
        continue
      }
      const { state: st, e } = restored
      scratch.set(key, st)
      for (let b = e; b < j; b++) commitDeferred(st, barOf(base + b))
      if (j > e) finishCommits(st)
      preview(st, barOf(base + j), core.inputsAt(i, days[base + j], news), sink, i)
      present[i] = 1
      rowDay[i] = days[base + j]
    }
  }
  return compact(core, wide, present, rowDay, date, day)
}

/**
 * Ticker `i`'s state before the first of its `n` `bars` on or after `gridDay`, off grid block `block`: its
 * recursive scalars and bar count there and the bars before it (`restoreFromBars`, bit for bit with
 * at least a year of them and the SMA-200 sum), or a fresh state when it had none; with `e`, the index of
 * that first bar. Undefined when `bars` hold too few bars before the grid day (a sparse import).
 */
export const stateAtGridDay = (
  block: Float64Array,
  i: number,
  assetType: string,
  bars: BarArrays,
  /** how many of `bars` there are */
  n: number,
  gridDay: number,
  into?: DailyState,
  families?: number
): { readonly state: DailyState; readonly e: number } | undefined => {
  const e = startAtGridDay(block, i, assetType, bars, n, gridDay, recipe, 0, families)
  return e === undefined ? undefined : { state: restoreStart(recipe, 0, assetType, bars, into, families), e }
}

/** the recipe `stateAtGridDay` restores from (used at once: one is enough) */
const recipe = new Float64Array(START_SIZE)

/**
 * `stateAtGridDay` as a recipe (`walkStart.ts`) into `out` at `at`, its bars from the grid day on committed in
 * one deferred run: another thread reading the same bars follows it. Answers `e` (undefined: too few bars).
 */
export const startAtGridDay = (
  block: Float64Array,
  i: number,
  assetType: string,
  bars: BarArrays,
  n: number,
  gridDay: number,
  out: Float64Array,
  outAt: number,
  families?: number
): number | undefined => {
  let e = 0
  while (e < n && bars.days[e]! < gridDay) e++
  const at = i * GRID_SLOT
  const count = block[at + SC_COUNT]
  const restores = count > 0 && e >= Math.min(count, restoreNeeds(configForAssetType(assetType), families))
  if (!restores && !(count === 0 && e === 0)) return undefined
  if (count === 0) freshStart(out, outAt, e, true)
  else {
    const longSum = block.subarray(at + GRID_LONG_SUM, at + GRID_LONG_SUM + 2)
    restoredStart(out, outAt, block.subarray(at, at + SC_COUNT), count, e, longSum, true)
  }
  return e
}

/** The bars of `slots` (a group from `slots[0]`) from `from` to `to`, regenerated (`generateBars`), into `out`. */
const generateInto = (
  core: MarketCore,
  slots: Int32Array,
  from: number,
  to: number,
  offset: Float64Array,
  out: GroupBars
): void => {
  const first = slots[0]
  const { capacity, length, days, open, high, low, close, volume } = out
  const bars = generateBars({
    source: core.sim,
    slots,
    fromDay: () => from,
    toDay: () => to,
    origin: (i) => core.firstDay[i],
    crypto: (i) => core.isCrypto[i] === 1,
    imported: (i) => core.imported.get(core.tickers[i].ticker),
    offset,
    onBar: (i, d, o, h, l, c, v) => {
      if (d < from) return // imported history before the range: laid, not needed
      const t = i - first
      const at = t * capacity + length[t]++
      days[at] = d
      open[at] = o
      high[at] = h
      low[at] = l
      close[at] = c
      volume[at] = v
    }
  })
  while (!bars.next().done) {}
}

/** Ticker `i`'s row as of `day` from its own whole history (`deepOf`), written at row `i`: its day, -1 when none. */
const deepRow = (
  core: MarketCore,
  i: number,
  day: number,
  sink: ReturnType<typeof bindColumns>,
  news: Map<number, [Float64Array, Float64Array]>
): number => {
  const deep = deepOf(core, i)
  const j = deep === undefined ? -1 : deep.series.indexAtOrBefore(day)
  if (deep === undefined || j < 0 || day - deep.series.days[j] > CARRY_FORWARD_DAYS) return -1
  preview(deepStateBefore(deep, j), barAt(deep.series, j), core.inputsAt(i, deep.series.days[j], news), sink, i)
  return deep.series.days[j]
}

/** The rows present, in ticker order, as a snapshot (the columns copied out of the market-wide ones). */
const compact = (
  core: MarketCore,
  wide: ReturnType<typeof allocateColumns>,
  present: Uint8Array,
  rowDay: Int32Array,
  date: string,
  day: number
): DailySnapshot => {
  const rows: Array<number> = []
  for (let i = 0; i < core.size; i++) if (present[i] === 1) rows.push(i)
  const n = rows.length
  const computed = allocateColumns(n)
  for (const [name, col] of computed) {
    const src = wide.get(name)!
    for (let r = 0; r < n; r++) {
      col.values[r] = src.values[rows[r]]
      col.valid[r] = src.valid[rows[r]]
    }
  }
  return dailySnapshotOf(
    core,
    rows,
    computed,
    Int32Array.from(rows, (i) => rowDay[i]),
    date,
    day
  )
}
