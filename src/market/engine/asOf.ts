/**
 * Reads of the past, from the daily history: every ticker's row as of a date
 * (the universe-wide as-of snapshot, cached), one ticker's row as of a date
 * (before the window from its whole history), and one column's daily or
 * weekly series of one ticker.
 */
import { type BarSeries, barAt } from "../history/barSeries.js"
import { deepStateBefore } from "../history/deepTicker.js"
import { epochDay, isoDate } from "../indicators/days.js"
import {
  allocateColumns,
  bindColumns,
  commit,
  type DailyState,
  NO_INPUTS,
  preview,
  type RowSink
} from "../indicators/index.js"
import type { Column } from "../snapshot.js"
import { CARRY_FORWARD_DAYS, type DailySnapshot, dailySnapshotOf, type MarketCore } from "./core.js"
import { deepSnapshotAsOf } from "./deepAsOf.js"
import { deepOf, stateBefore, wholeMarketFrom } from "./history.js"
import { INPUT_COLUMNS } from "./inputs.js"

export { CARRY_FORWARD_DAYS } from "./core.js"
/** as-of universe snapshots kept in memory (each about 15 MB) */
export const AS_OF_CACHE_SIZE = 8

export type SeriesPoint = { day: number; value: number | boolean | null }

/**
 * Every ticker's daily row as of `date`: for each ticker the latest daily
 * state on or before the date, if it is at most 14 days older. Cached.
 */
export const snapshotAsOf = (core: MarketCore, date: string): DailySnapshot => {
  const day = epochDay(date)
  const cache = core.asOfCache
  const cached = cache.get(day)
  if (cached !== undefined) {
    cache.delete(day)
    cache.set(day, cached)
    return cached
  }
  if (core.deepGrid !== undefined && day < wholeMarketFrom(core)) {
    const deep = deepSnapshotAsOf(core, core.deepGrid, date, day)
    if (cache.size >= AS_OF_CACHE_SIZE) cache.delete(cache.keys().next().value as number)
    cache.set(day, deep)
    return deep
  }
  const rows: Array<number> = []
  const barIndex: Array<number> = []
  for (let i = 0; i < core.size; i++) {
    const s = core.series[i]
    const j = s.indexAtOrBefore(day)
    if (j < 0 || day - s.days[j] > CARRY_FORWARD_DAYS) continue
    rows.push(i)
    barIndex.push(j)
  }
  const n = rows.length
  const computed = allocateColumns(n)
  const sink = bindColumns(computed)
  const news = new Map<number, [Float64Array, Float64Array]>()
  const rowDays = new Int32Array(n)
  for (let r = 0; r < n; r++) {
    const i = rows[r]
    const j = barIndex[r]
    const s = core.series[i]
    rowDays[r] = s.days[j]
    preview(stateBefore(core, i, j), barAt(s, j), core.inputsAt(i, s.days[j], news), sink, r)
  }
  const snapshot = dailySnapshotOf(core, rows, computed, rowDays, date, day)
  if (cache.size >= AS_OF_CACHE_SIZE) cache.delete(cache.keys().next().value as number)
  cache.set(day, snapshot)
  return snapshot
}

/**
 * One ticker's daily row on the latest state on or before `date` (no
 * look-back limit), with the date of that state; undefined when none.
 */
export const rowAsOf = (
  core: MarketCore,
  ticker: string,
  date: string
): { date: string; values: Record<string, number | boolean | null> } | undefined => {
  const i = core.index.get(ticker)
  if (i === undefined) return undefined
  const day = epochDay(date)
  const s = core.series[i]
  const j = s.indexAtOrBefore(day)
  const one = allocateColumns(1)
  if (j < 0 || s.days[j] < core.windowDayOf(i)) {
    // before the window: from the ticker's whole history
    const deep = deepOf(core, i)
    const k = deep === undefined ? -1 : deep.series.indexAtOrBefore(day)
    if (deep === undefined || k < 0) return undefined
    const d = deep.series.days[k]
    preview(deepStateBefore(deep, k), barAt(deep.series, k), core.tickerInputsAt(i, d), bindColumns(one), 0)
    return { date: isoDate(d), values: readRow(one, 0) }
  }
  preview(stateBefore(core, i, j), barAt(s, j), core.tickerInputsAt(i, s.days[j]), bindColumns(one), 0)
  return { date: isoDate(s.days[j]), values: readRow(one, 0) }
}

/**
 * One column's daily values for one ticker over [fromDay, toDay] (epoch
 * days), oldest first: one row per daily bar in the range.
 */
export const dailySeries = (
  core: MarketCore,
  ticker: string,
  column: string,
  fromDay: number,
  toDay: number
): Array<SeriesPoint> => {
  const i = core.index.get(ticker)
  if (i === undefined) return []
  const out: Array<SeriesPoint> = []
  const windowDay = core.windowDayOf(i)
  if (fromDay < windowDay) {
    // the days before the window, from the ticker's whole history
    const deep = deepOf(core, i)
    if (deep !== undefined)
      seriesOf(core, i, deep.series, column, fromDay, Math.min(toDay, windowDay - 1), out, (j) =>
        deepStateBefore(deep, j)
      )
    fromDay = windowDay
  }
  const s = core.series[i]
  return seriesOf(core, i, s, column, Math.max(fromDay, windowDay), toDay, out, (j) =>
    core.checkpoints.stateBefore(i, j, s, core.tickers[i].asset_type)
  )
}

/** `dailySeries` over one series of ticker `i` (the window's or its deep history), appended to `out`. */
const seriesOf = (
  core: MarketCore,
  i: number,
  s: BarSeries,
  column: string,
  fromDay: number,
  toDay: number,
  out: Array<SeriesPoint>,
  stateBeforeBar: (j: number) => DailyState
): Array<SeriesPoint> => {
  const start = s.indexAtOrAfter(fromDay)
  const end = s.indexAtOrBefore(toDay)
  if (start > end) return out
  const needsInputs = INPUT_COLUMNS.has(column)
  const one = allocateColumns(1)
  const col = one.get(column)
  if (col === undefined) return out
  const sink = bindColumns(new Map([[column, col]]))
  const st = stateBeforeBar(start)
  for (let j = start; j <= end; j++) {
    const bar = barAt(s, j)
    preview(st, bar, needsInputs ? core.tickerInputsAt(i, s.days[j]) : NO_INPUTS, sink as RowSink, 0)
    out.push({
      day: s.days[j],
      value: col.valid[0] === 0 ? null : col.kind === "boolean" ? col.values[0] === 1 : col.values[0]
    })
    commit(st, bar)
  }
  return out
}

/** Weekly values: each week's last daily row (weeks run Monday to Sunday), dated by that row's day. */
export const weeklySeries = (
  core: MarketCore,
  ticker: string,
  column: string,
  fromDay: number,
  toDay: number
): Array<SeriesPoint> => {
  const daily = dailySeries(core, ticker, column, fromDay, toDay)
  const out: Array<SeriesPoint> = []
  // epoch day 4 was a Monday: (day - 4) / 7 numbers the weeks
  for (let k = 0; k < daily.length; k++) {
    const week = Math.floor((daily[k].day - 4) / 7)
    const next = daily[k + 1]
    if (next === undefined || Math.floor((next.day - 4) / 7) !== week) out.push(daily[k])
  }
  return out
}

/** Reads row `r` of computed columns as plain values. */
export const readRow = (columns: ReadonlyMap<string, Column>, r: number): Record<string, number | boolean | null> => {
  const out: Record<string, number | boolean | null> = {}
  for (const [name, col] of columns) {
    if (col.kind === "string") continue
    out[name] = col.valid[r] === 0 ? null : col.kind === "boolean" ? col.values[r] === 1 : col.values[r]
  }
  return out
}
