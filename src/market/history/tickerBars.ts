/**
 * One ticker's daily bars over any range of days, generated alone (`generateBars.ts`): the same
 * bars, bit for bit, that the whole market's history holds for those days (tested equal), so a
 * read years before the history kept in memory answers from the same market.
 */
import type { ParsedBar } from "../sources/csvBars.js"
import type { MarketSource } from "../sources/MarketSource.js"
import { BarSeries } from "./barSeries.js"
import { generateBars } from "./generateBars.js"

export interface TickerBarsOptions {
  readonly source: MarketSource
  readonly slot: number
  readonly crypto: boolean
  /** the ticker's imported bars (dates ascending), if any */
  readonly imported: ReadonlyArray<ParsedBar> | undefined
  /** first and last epoch day generated (inclusive): simulated bars from `fromDay` on, imported ones before it too */
  readonly fromDay: number
  readonly toDay: number
}

export const tickerBars = (o: TickerBarsOptions): BarSeries => {
  const days = Math.max(0, o.toDay - o.fromDay + 1)
  const series = new BarSeries(Math.ceil(days * (o.crypto ? 1 : 0.72)) + 8 + (o.imported?.length ?? 0))
  const bars = generateBars({
    source: o.source,
    slots: Int32Array.of(o.slot),
    fromDay: () => o.fromDay,
    toDay: () => o.toDay,
    origin: () => o.fromDay,
    crypto: () => o.crypto,
    imported: () => o.imported,
    offset: new Float64Array(o.source.size).fill(1),
    onBar: (_, day, open, high, low, close, volume) => series.push(day, open, high, low, close, volume)
  })
  while (!bars.next().done) {}
  series.compact()
  return series
}
