/**
 * The daily bars of some tickers over a range of days, in day order: the one definition of a
 * ticker's history, used for the whole market at start (`MarketData.generateSeries`), for one
 * ticker's years before the window (`tickerBars.ts`), and for any group of tickers in between.
 * Whatever the group and the range, a ticker's bar of a day comes out the same, bit for bit.
 *
 * - Simulated bars follow the seekable levels (`sim/levels.ts`): the close of day d is
 *   `anchorPrice · e^S(d)` times the ticker's offset, the open and the wicks come from the
 *   close before it; prices rounded to the tick, volumes to whole units.
 * - Real bars (imported, or a replay's `realBar`) replace the simulated bar of their day, and the
 *   simulation resumes from a real close: the offset becomes that close over the simulated close
 *   of its day. Between an import's first and last day, a day it has no bar for has no bar.
 * - A ticker has simulated bars from its first day (`origin`: 2003 or its listing year) only;
 *   imported bars before the range are laid first, as they are.
 *
 * A generator: it yields after each stretch of 64 days (the levels' checkpoint grid), so a caller
 * can let other work run.
 */

import { tickRound } from "../engine/specs.js"
import { epochDay, isoDate } from "../indicators/days.js"
import type { DayBars } from "../sim/index.js"
import { LEVEL_EVERY } from "../sim/levels.js"
import type { ParsedBar } from "../sources/csvBars.js"
import type { MarketSource } from "../sources/MarketSource.js"

export interface BarsSpec {
  readonly source: MarketSource
  /** the tickers generated, ascending slots */
  readonly slots: Int32Array
  /** per slot: the first and last day of its range, and the first day it may have a simulated bar */
  readonly fromDay: (i: number) => number
  readonly toDay: (i: number) => number
  readonly origin: (i: number) => number
  readonly crypto: (i: number) => boolean
  /** per slot: its imported bars, dates ascending */
  readonly imported: (i: number) => ReadonlyArray<ParsedBar> | undefined
  /** per slot (market size): the factor simulated closes carry (`1` unless real bars came first); written as real bars are laid */
  readonly offset: Float64Array
  /** receives each bar, in day order per ticker */
  readonly onBar: (
    i: number,
    day: number,
    open: number,
    high: number,
    low: number,
    close: number,
    volume: number
  ) => void
  /** after each stretch: days done, days in all */
  readonly onProgress?: ((done: number, total: number) => void) | undefined
}

interface Pending {
  readonly bars: ReadonlyArray<ParsedBar>
  readonly days: Int32Array
  next: number
}

export function* generateBars(spec: BarsSpec): Generator<void, void> {
  const { source, slots, offset, onBar } = spec
  const n = slots.length
  if (n === 0) return
  const anchorPrice = source.params.anchorPrice
  const size = source.size
  const subset = n === size ? undefined : slots
  const lo = Int32Array.from(slots, spec.fromDay)
  const hi = Int32Array.from(slots, spec.toDay)
  const origin = Int32Array.from(slots, spec.origin)
  const crypto = Uint8Array.from(slots, (i) => (spec.crypto(i) ? 1 : 0))
  const pending: Array<Pending | undefined> = new Array(n)
  let first = Number.POSITIVE_INFINITY
  let last = Number.NEGATIVE_INFINITY
  for (let k = 0; k < n; k++) {
    const i = slots[k]
    first = Math.min(first, lo[k])
    last = Math.max(last, hi[k])
    const bars = spec.imported(i)
    if (bars === undefined || bars.length === 0) continue
    const days = Int32Array.from(bars, (b) => epochDay(b.date))
    let next = 0
    // imported history before the range: laid as it is; the simulation resumes from its close
    for (; next < bars.length && days[next] < lo[k]; next++) {
      const b = bars[next]
      onBar(i, days[next], b.open, b.high, b.low, b.close, b.volume)
    }
    if (next > 0) {
      const level = source.levels.at(Int32Array.of(i), days[next - 1])[0]
      offset[i] = bars[next - 1].close / (anchorPrice[i] * Math.exp(level))
    }
    pending[k] = { bars, days, next }
  }
  if (first > last) return
  const prevClose = new Float64Array(size)
  const closes = new Float64Array(size)
  let dayBars: DayBars | undefined
  let started = false
  const visit = (d: number, sPrev: Float64Array, sCur: Float64Array) => {
    for (let k = 0; k < n; k++) {
      const i = slots[k]
      prevClose[i] = started ? closes[i] : anchorPrice[i] * Math.exp(sPrev[k]) * offset[i]
      closes[i] = anchorPrice[i] * Math.exp(sCur[k]) * offset[i]
    }
    started = true
    dayBars = source.generateDay(isoDate(d), prevClose, dayBars, closes, subset)
    const { traded, open, high, low, close, volume } = dayBars
    for (let k = 0; k < n; k++) {
      if (d < lo[k] || d > hi[k]) continue
      const i = slots[k]
      const imp = pending[k]
      if (imp !== undefined && imp.next < imp.bars.length && d >= imp.days[0]) {
        if (imp.days[imp.next] === d) {
          const b = imp.bars[imp.next++]
          onBar(i, d, b.open, b.high, b.low, b.close, b.volume)
          offset[i] = b.close / (anchorPrice[i] * Math.exp(sCur[k]))
          closes[i] = b.close
          continue
        }
        if (d <= imp.days[imp.bars.length - 1]) continue // a day the imported file has no bar for
      }
      if (traded[i] !== 1 || d < origin[k]) continue
      if (source.realBar?.(i, dayBars.date) === true) {
        onBar(i, d, open[i], high[i], low[i], close[i], volume[i])
        offset[i] = close[i] / (anchorPrice[i] * Math.exp(sCur[k]))
        closes[i] = close[i]
        continue
      }
      const c = crypto[k] === 1
      onBar(
        i,
        d,
        tickRound(open[i], c),
        tickRound(high[i], c),
        tickRound(low[i], c),
        tickRound(close[i], c),
        Math.round(volume[i])
      )
    }
  }
  // the levels' checkpoints first, one at a time; then stretches on their 64-day grid (each walks
  // from its own checkpoint), yielding between
  yield* source.levels.prepare(slots, first, last)
  const anchor = source.anchorDay
  for (let from = first; from <= last; ) {
    // at most half a grid step at a time: a stretch of the whole market is ~0.3 s of CPU per 64 days
    const gridEnd = anchor + LEVEL_EVERY * Math.floor((from - anchor + LEVEL_EVERY) / LEVEL_EVERY)
    const to = Math.min(last, gridEnd, from + LEVEL_EVERY / 2 - 1)
    source.levels.walk(slots, from, to, visit)
    spec.onProgress?.(to - first + 1, last - first + 1)
    yield
    from = to + 1
  }
}
