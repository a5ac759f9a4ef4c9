/**
 * One ticker's daily bars as they are (no indicator replayed): the years before the window from
 * its whole history (`deepOf`), then the window's. What a chart draws (the dashboard's ticker
 * page); weekly bars aggregate them Monday–Sunday.
 */
import { type BarSeries, barInto, newBar } from "../history/barSeries.js"
import { weekdayOfDay } from "../indicators/days.js"
import type { MarketCore } from "./core.js"
import { deepOf } from "./history.js"

export interface Bars {
  /** epoch days, ascending */
  readonly days: Array<number>
  readonly open: Array<number>
  readonly high: Array<number>
  readonly low: Array<number>
  readonly close: Array<number>
  readonly volume: Array<number>
}

const emptyBars = (): Bars => ({ days: [], open: [], high: [], low: [], close: [], volume: [] })

const appendRange = (s: BarSeries, fromDay: number, toDay: number, out: Bars) => {
  // read through `barInto`: prices may be kept as int32 ticks (`BarSeries`)
  const bar = newBar()
  for (let j = 0; j < s.length; j++) {
    const day = s.days[j]
    if (day < fromDay) continue
    if (day > toDay) break
    barInto(s, j, bar)
    out.days.push(day)
    out.open.push(bar.open)
    out.high.push(bar.high)
    out.low.push(bar.low)
    out.close.push(bar.close)
    out.volume.push(bar.volume)
  }
}

/** Ticker `ticker`'s completed daily bars over [fromDay, toDay], oldest first (none for an unknown ticker). */
export const dailyBars = (core: MarketCore, ticker: string, fromDay: number, toDay: number): Bars => {
  const out = emptyBars()
  const i = core.index.get(ticker)
  if (i === undefined) return out
  const windowDay = core.windowDayOf(i)
  if (fromDay < windowDay) {
    const deep = deepOf(core, i)
    if (deep !== undefined) appendRange(deep.series, fromDay, Math.min(toDay, windowDay - 1), out)
  }
  appendRange(core.series[i], Math.max(fromDay, windowDay), toDay, out)
  return out
}

/** Daily bars folded into weeks (Monday–Sunday): the first open, the extremes, the last close, the summed volume. */
export const weeklyBars = (daily: Bars): Bars => {
  const out = emptyBars()
  let week = Number.NaN
  for (let j = 0; j < daily.days.length; j++) {
    const day = daily.days[j]!
    const monday = day - weekdayOfDay(day)
    const last = out.days.length - 1
    if (monday !== week) {
      week = monday
      out.days.push(day)
      out.open.push(daily.open[j]!)
      out.high.push(daily.high[j]!)
      out.low.push(daily.low[j]!)
      out.close.push(daily.close[j]!)
      out.volume.push(daily.volume[j]!)
    } else {
      out.days[last] = day
      out.high[last] = Math.max(out.high[last]!, daily.high[j]!)
      out.low[last] = Math.min(out.low[last]!, daily.low[j]!)
      out.close[last] = daily.close[j]!
      out.volume[last] = out.volume[last]! + daily.volume[j]!
    }
  }
  return out
}
