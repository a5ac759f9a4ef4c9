/**
 * Replays real daily bars for some tickers over another source: from a start
 * date, the k-th session (trading days for equities, calendar days for
 * crypto) takes the k-th bar of the ticker's file; before the start and after
 * the file runs out, the base source moves the ticker on from the last close
 * it had. Minute paths, fundamentals and news come from the base source, the
 * paths built on the replayed bars.
 */
import { addTradingDays, isTradingDay, tradingDaysBetween } from "../calendar.js"
import { epochDay } from "../indicators/days.js"
import type { NewsMention } from "../indicators/news.js"
import type { DayBars, FundamentalColumns, IntradaySession, SessionKind } from "../sim/index.js"
import type { SimLevels } from "../sim/levels.js"
import type { ParsedBar } from "./csvBars.js"
import type { MarketSource } from "./MarketSource.js"

export interface ReplayTape {
  /** slot of the ticker in the source */
  readonly slot: number
  readonly crypto: boolean
  readonly bars: ReadonlyArray<ParsedBar>
}

export class ReplaySource implements MarketSource {
  readonly size: number
  readonly anchorDay: number
  readonly params: { readonly anchorPrice: Float64Array }
  private readonly startDay: number

  constructor(
    readonly base: MarketSource,
    private readonly tapes: ReadonlyArray<ReplayTape>,
    /** the session on which each tape's first bar is replayed */
    private readonly start: string
  ) {
    this.size = base.size
    this.anchorDay = base.anchorDay
    this.params = base.params
    this.startDay = epochDay(start)
    this.bySlot = new Map(tapes.map((t) => [t.slot, t]))
  }

  private readonly bySlot: ReadonlyMap<number, ReplayTape>

  /** The tape bar replayed on `date`, if any. */
  barOn(tape: ReplayTape, date: string): ParsedBar | undefined {
    const day = epochDay(date)
    if (day < this.startDay) return undefined
    if (tape.crypto) return tape.bars[day - this.startDay]
    if (!isTradingDay(date)) return undefined
    const first = isTradingDay(this.start) ? this.start : addTradingDays(this.start, 1)
    return tape.bars[tradingDaysBetween(first, date)]
  }

  realBar(slot: number, date: string): boolean {
    const tape = this.bySlot.get(slot)
    return tape !== undefined && this.barOn(tape, date) !== undefined
  }

  closesAt(date: string): Float64Array {
    return this.base.closesAt(date)
  }

  get levels(): SimLevels {
    return this.base.levels
  }

  generateDay(
    date: string,
    prevClose: Float64Array,
    out?: DayBars,
    closes?: Float64Array,
    slots?: Int32Array
  ): DayBars {
    const bars = this.base.generateDay(date, prevClose, out, closes, slots)
    for (const tape of this.tapes) {
      if (slots !== undefined && !slots.includes(tape.slot)) continue
      const b = this.barOn(tape, date)
      if (b === undefined) continue
      const i = tape.slot
      bars.traded[i] = 1
      bars.open[i] = b.open
      bars.high[i] = b.high
      bars.low[i] = b.low
      bars.close[i] = b.close
      bars.volume[i] = b.volume
    }
    return bars
  }

  intradaySession(bars: DayBars, kind: SessionKind): IntradaySession {
    return this.base.intradaySession(bars, kind)
  }

  fundamentalsAt(date: string, out?: FundamentalColumns): FundamentalColumns {
    return this.base.fundamentalsAt(date, out)
  }

  newsColumnsAt(epochMs: number, volumeOut: Float64Array, sentimentOut: Float64Array): number {
    return this.base.newsColumnsAt(epochMs, volumeOut, sentimentOut)
  }

  tickerFundamentalsAt(slot: number, date: string, out: FundamentalColumns, at?: number): FundamentalColumns {
    return this.base.tickerFundamentalsAt(slot, date, out, at)
  }

  slotsFundamentalsAt(slots: ReadonlyArray<number>, date: string, out: FundamentalColumns): FundamentalColumns {
    return this.base.slotsFundamentalsAt(slots, date, out)
  }

  mentions(slot: number, fromMs: number, toMs: number): Array<NewsMention> {
    return this.base.mentions(slot, fromMs, toMs)
  }

  tickerNewsColumnsAt(
    slot: number,
    epochMs: number,
    volumeOut: Float64Array,
    sentimentOut: Float64Array,
    at?: number
  ): number {
    return this.base.tickerNewsColumnsAt(slot, epochMs, volumeOut, sentimentOut, at)
  }
}
