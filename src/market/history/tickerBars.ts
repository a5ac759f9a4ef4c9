/**
 * One ticker's daily bars over any range of days, generated alone: the same bars, bit for bit,
 * that the whole market's history holds for those days (`MarketData.generateSeries`, tested
 * equal), so a read years before the history kept in memory answers from the same market.
 *
 * Simulated bars follow the seekable levels (`sim/levels.ts`) times the ticker's offset; real
 * bars (imported, or a replay's) replace the simulated ones on their days, and the simulation
 * resumes from a real bar's close (the offset becomes that close over the simulated close of its
 * day). Imported bars before `fromDay` are laid as they are, first.
 */

import { tickRound } from "../engine/specs.js"
import { epochDay, isoDate } from "../indicators/days.js"
import type { DayBars } from "../sim/index.js"
import type { ParsedBar } from "../sources/csvBars.js"
import type { MarketSource } from "../sources/MarketSource.js"
import { BarSeries } from "./barSeries.js"

export interface TickerBarsOptions {
  readonly source: MarketSource
  readonly slot: number
  readonly crypto: boolean
  /** the ticker's imported bars (dates ascending), if any */
  readonly imported: ReadonlyArray<ParsedBar> | undefined
  /** first and last epoch day of the simulated days generated (inclusive) */
  readonly fromDay: number
  readonly toDay: number
}

export const tickerBars = (o: TickerBarsOptions): BarSeries => {
  const { source, slot: i, crypto, imported = [] } = o
  const anchorPrice = source.params.anchorPrice[i]
  const slots = Int32Array.of(i)
  const series = new BarSeries(Math.ceil((o.toDay - o.fromDay + 1) * (crypto ? 1 : 0.72)) + 8 + imported.length)
  const days = Int32Array.from(imported, (b) => epochDay(b.date))
  let offset = 1
  let next = 0
  while (next < imported.length && days[next] < o.fromDay) {
    const b = imported[next++]
    series.push(days[next - 1], b.open, b.high, b.low, b.close, b.volume)
  }
  if (next > 0) {
    const level = source.levels.at(slots, days[next - 1])[0]
    offset = imported[next - 1].close / (anchorPrice * Math.exp(level))
  }
  const prevClose = new Float64Array(source.size)
  const closes = new Float64Array(source.size)
  let dayBars: DayBars | undefined
  let started = false
  source.levels.walk(slots, o.fromDay, o.toDay, (d, sPrev, sCur) => {
    prevClose[i] = started ? closes[i] : anchorPrice * Math.exp(sPrev[0]) * offset
    closes[i] = anchorPrice * Math.exp(sCur[0]) * offset
    started = true
    const simulated = anchorPrice * Math.exp(sCur[0])
    if (next < imported.length && d >= days[0]) {
      if (days[next] === d) {
        const b = imported[next++]
        series.push(d, b.open, b.high, b.low, b.close, b.volume)
        offset = b.close / simulated
        closes[i] = b.close
        return
      }
      if (d <= days[imported.length - 1]) return // a day the imported file has no bar for
    }
    dayBars = source.generateDay(isoDate(d), prevClose, dayBars, closes, slots)
    if (dayBars.traded[i] !== 1) return
    const { open, high, low, close, volume } = dayBars
    if (source.realBar?.(i, dayBars.date) === true) {
      series.push(d, open[i], high[i], low[i], close[i], volume[i])
      offset = close[i] / simulated
      closes[i] = close[i]
      return
    }
    series.push(
      d,
      tickRound(open[i], crypto),
      tickRound(high[i], crypto),
      tickRound(low[i], crypto),
      tickRound(close[i], crypto),
      Math.round(volume[i])
    )
  })
  series.compact()
  return series
}
