/**
 * A live feed's fundamentals and news (`ingest/events.ts` `Fundamentals`,
 * `News`) laid over the market's source: every reader of the source — the
 * live row, as-of rows, series, walks, the flag history — sees them.
 *
 * - Fundamentals hold from the day they take effect (the ticker's session
 *   when they were pushed) until the feed replaces them, field by field; a
 *   field given as null is unknown from then on. Days before keep the
 *   source's values: a feed never rewrites history.
 * - A feed's next earnings date E replaces the source's earnings calendar from
 *   that day on: `days_to_earnings` counts down to E, `earnings_this_week`
 *   holds in E's week, and after that week both are unknown until the feed
 *   sends the next date.
 * - News mentions are added to the source's own: the news columns count both
 *   (`indicators/news.ts`), and the news scan lists both (`newsArchive.ts`).
 */

import { epochDay, weekdayOfDay } from "../indicators/days.js"
import { type NewsMention, newsColumns } from "../indicators/news.js"
import type { DayBars, FundamentalColumns, IntradaySession, SessionKind } from "../sim/index.js"
import type { SimLevels } from "../sim/levels.js"
import type { MarketSource } from "./MarketSource.js"

/** The fields a feed's fundamentals set (each optional in an update; null: unknown). */
export const FEED_FIELDS = [
  "sharesOutstanding",
  "eps",
  "forwardEps",
  "bookValuePerShare",
  "salesPerShare",
  "dividendPerShare",
  "beta",
  "sharesShort",
  "institutionalOwnership",
  "insiderOwnership",
  "analystTargetPrice",
  /** the next earnings report, as an epoch day */
  "nextEarningsDay"
] as const

export type FeedField = (typeof FEED_FIELDS)[number]

/** Some fields of one ticker's fundamentals (null: unknown; absent: unchanged). */
export type FeedValues = { readonly [K in FeedField]?: number | null }

/** A ticker's fundamentals as a feed gave them, in force from `fromDay` (epoch day) on. */
export interface FundamentalsEntry {
  readonly ticker: string
  readonly fromDay: number
  readonly values: FeedValues
}

/** One news mention a feed pushed; `seq` orders the ticker's mentions as they arrived. */
export interface FeedMention extends NewsMention {
  readonly ticker: string
  readonly seq: number
}

/** What the feed told, as the store keeps it (`ports.ts` `FeedInputStore`). */
export interface FeedInputs {
  readonly fundamentals: ReadonlyArray<FundamentalsEntry>
  readonly mentions: ReadonlyArray<FeedMention>
}

interface Step {
  readonly fromDay: number
  /** per field: its value (NaN: unknown), or undefined when this step leaves it */
  readonly values: ReadonlyArray<number | undefined>
}

const NEWS_WINDOW_MS = 24 * 60 * 60 * 1000

export class FeedSource implements MarketSource {
  readonly size: number
  readonly anchorDay: number
  readonly params: { readonly anchorPrice: Float64Array }
  /** the source's own, when it has real bars (absent: the bar loops skip the call) */
  readonly realBar?: (slot: number, date: string) => boolean
  /** per slot: its fundamentals' steps, `fromDay` ascending */
  private readonly steps = new Map<number, Array<Step>>()
  /** per slot: its mentions, by time (then arrival) */
  private readonly news = new Map<number, Array<FeedMention>>()

  constructor(
    readonly base: MarketSource,
    private readonly slotOf: (ticker: string) => number
  ) {
    this.size = base.size
    this.anchorDay = base.anchorDay
    this.params = base.params
    const real = base.realBar
    if (real !== undefined) this.realBar = (slot, date) => real.call(base, slot, date)
  }

  /** What the feed told of fundamentals, as entries (to hand to a worker that rebuilds the source). */
  fundamentalEntries(symbols: ReadonlyArray<string>): Array<FundamentalsEntry> {
    const out: Array<FundamentalsEntry> = []
    for (const [slot, steps] of this.steps) {
      for (const s of steps) {
        const values: { [K in FeedField]?: number | null } = {}
        FEED_FIELDS.forEach((f, k) => {
          const v = s.values[k]
          if (v !== undefined) values[f] = Number.isNaN(v) ? null : v
        })
        out.push({ ticker: symbols[slot]!, fromDay: s.fromDay, values })
      }
    }
    return out
  }

  /** Lays fundamentals over what the feed told before (a later entry of the same day wins field by field). */
  addFundamentals(entries: ReadonlyArray<FundamentalsEntry>): void {
    for (const e of entries) {
      const slot = this.slotOf(e.ticker)
      if (slot < 0) continue
      let steps = this.steps.get(slot)
      if (steps === undefined) this.steps.set(slot, (steps = []))
      const values = FEED_FIELDS.map((f) => {
        const v = e.values[f]
        return v === undefined ? undefined : v === null ? Number.NaN : v
      })
      const at = steps.findIndex((s) => s.fromDay >= e.fromDay)
      if (at >= 0 && steps[at]!.fromDay === e.fromDay) {
        const merged = steps[at]!.values.map((v, k) => values[k] ?? v)
        steps[at] = { fromDay: e.fromDay, values: merged }
      } else {
        steps.splice(at < 0 ? steps.length : at, 0, { fromDay: e.fromDay, values })
      }
    }
  }

  /** Adds mentions (a mention already held, by ticker and `seq`, is not added twice). */
  addMentions(mentions: ReadonlyArray<FeedMention>): void {
    const touched = new Set<Array<FeedMention>>()
    for (const m of mentions) {
      const slot = this.slotOf(m.ticker)
      if (slot < 0) continue
      let list = this.news.get(slot)
      if (list === undefined) this.news.set(slot, (list = []))
      if (list.some((x) => x.seq === m.seq)) continue
      list.push(m)
      touched.add(list)
    }
    for (const list of touched) list.sort((a, b) => a.at - b.at || a.seq - b.seq)
  }

  /** Forgets what the feed told of these tickers (before they are read back from the store). */
  forget(tickers: Iterable<string>): void {
    for (const t of tickers) {
      const slot = this.slotOf(t)
      this.steps.delete(slot)
      this.news.delete(slot)
    }
  }

  /** The feed's mentions of a slot with fromMs < at <= toMs, in time order. */
  feedMentions(slot: number, fromMs: number, toMs: number): Array<FeedMention> {
    const list = this.news.get(slot)
    if (list === undefined) return []
    return list.filter((m) => m.at > fromMs && m.at <= toMs)
  }

  /** The slots the feed told news of. */
  newsSlots(): IterableIterator<number> {
    return this.news.keys()
  }

  /** The feed's fundamentals in force for `slot` on `day`, written over the source's at index `at` of `f`. */
  private lay(slot: number, day: number, f: FundamentalColumns, at: number): void {
    const steps = this.steps.get(slot)
    if (steps === undefined || steps[0]!.fromDay > day) return
    const value: Array<number | undefined> = new Array(FEED_FIELDS.length)
    for (const s of steps) {
      if (s.fromDay > day) break
      s.values.forEach((v, k) => {
        if (v !== undefined) value[k] = v
      })
    }
    const arrays: ReadonlyArray<Float64Array | undefined> = [
      f.sharesOutstanding,
      f.eps,
      f.forwardEps,
      f.bookValuePerShare,
      f.salesPerShare,
      f.dividendPerShare,
      f.beta,
      f.sharesShort,
      f.institutionalOwnership,
      f.insiderOwnership,
      f.analystTargetPrice
    ]
    arrays.forEach((a, k) => {
      const v = value[k]
      if (a !== undefined && v !== undefined) a[at] = v
    })
    const next = value[FEED_FIELDS.length - 1]
    if (next === undefined) return
    // the feed's calendar: E counts down, holds in its week, then is unknown until the next date
    const monday = day - weekdayOfDay(day)
    const known = !Number.isNaN(next) && next >= monday
    f.nextEarningsDay[at] = known && next >= day ? next : Number.NaN
    f.lastEarningsDay[at] = known && next <= day ? next : Number.NaN
    f.earningsDay[at] = known ? next : Number.NaN
  }

  fundamentalsAt(date: string, out?: FundamentalColumns): FundamentalColumns {
    const f = this.base.fundamentalsAt(date, out)
    if (this.steps.size === 0) return f
    const day = epochDay(date)
    for (const slot of this.steps.keys()) this.lay(slot, day, f, slot)
    return f
  }

  tickerFundamentalsAt(slot: number, date: string, out: FundamentalColumns, at = 0): FundamentalColumns {
    const f = this.base.tickerFundamentalsAt(slot, date, out, at)
    if (this.steps.has(slot)) this.lay(slot, epochDay(date), f, at)
    return f
  }

  slotsFundamentalsAt(slots: ReadonlyArray<number>, date: string, out: FundamentalColumns): FundamentalColumns {
    const f = this.base.slotsFundamentalsAt(slots, date, out)
    if (this.steps.size === 0) return f
    const day = epochDay(date)
    for (const slot of slots) if (this.steps.has(slot)) this.lay(slot, day, f, slot)
    return f
  }

  /** A slot's news columns at `tq` from the source's mentions and the feed's together, or undefined without feed news. */
  private newsOf(slot: number, tq: number): { volume: number; sentiment: number } | undefined {
    const feed = this.feedMentions(slot, tq - NEWS_WINDOW_MS, tq)
    if (feed.length === 0) return undefined
    const all: Array<NewsMention> = this.base.mentions(slot, tq - NEWS_WINDOW_MS, tq)
    for (const m of feed) all.push(m)
    const v = newsColumns(all, tq)
    return { volume: v.newsVolume, sentiment: v.newsVolumeWeightedSentiment }
  }

  newsColumnsAt(epochMs: number, volumeOut: Float64Array, sentimentOut: Float64Array): number {
    const tq = this.base.newsColumnsAt(epochMs, volumeOut, sentimentOut)
    for (const slot of this.news.keys()) {
      const v = this.newsOf(slot, tq)
      if (v === undefined) continue
      volumeOut[slot] = v.volume
      sentimentOut[slot] = v.sentiment
    }
    return tq
  }

  tickerNewsColumnsAt(
    slot: number,
    epochMs: number,
    volumeOut: Float64Array,
    sentimentOut: Float64Array,
    at = 0
  ): number {
    const tq = this.base.tickerNewsColumnsAt(slot, epochMs, volumeOut, sentimentOut, at)
    const v = this.news.has(slot) ? this.newsOf(slot, tq) : undefined
    if (v !== undefined) {
      volumeOut[at] = v.volume
      sentimentOut[at] = v.sentiment
    }
    return tq
  }

  mentions(slot: number, fromMs: number, toMs: number): Array<NewsMention> {
    const out = this.base.mentions(slot, fromMs, toMs)
    const feed = this.feedMentions(slot, fromMs, toMs)
    if (feed.length === 0) return out
    for (const m of feed) out.push(m)
    return out.sort((a, b) => a.at - b.at)
  }

  // ---- the rest is the source's
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
    return this.base.generateDay(date, prevClose, out, closes, slots)
  }

  intradaySession(bars: DayBars, kind: SessionKind): IntradaySession {
    return this.base.intradaySession(bars, kind)
  }
}

/** The source under feed overlays (and the overlays' source, when `source` is one). */
export const baseOf = (source: MarketSource): MarketSource => (source instanceof FeedSource ? source.base : source)
