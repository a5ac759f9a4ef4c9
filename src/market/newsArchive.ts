/**
 * Read access to the simulated news stream, mention by mention (the market
 * engine only reads its two aggregate columns).
 *
 * The stream is a pure function of MARKET_SEED, the tracked tickers and the
 * UTC day (`sim/news.ts`), so this reader runs its own `MarketSimulator` built
 * from the same options as the market's: it returns exactly the mentions that
 * `news_volume` and `news_volume_weighted_sentiment` are computed from, and
 * its day cache never evicts the days the live refresh is using. (A live news
 * feed plugged in as a `MarketSource` would have to offer the same read.)
 *
 * A mention is identified by (ticker, UTC day, index), the index being its
 * position among the ticker's mentions of that day in time order. A live
 * feed's mentions (`sources/feedSource.ts`) follow the simulated ones of
 * their ticker and day, in the order they arrived, so no index moves when
 * more arrive.
 */
import type { MarketReader } from "./engine/MarketData.js"
import { SIM_ANCHOR_DATE, simSpec } from "./engine/specs.js"
import type { DayNews } from "./sim/news.js"
import { MarketSimulator } from "./sim/simulator.js"
import { DAY_MS } from "./sim/tradingDays.js"
import { FeedSource } from "./sources/feedSource.js"
import type { TickerMeta } from "./tickers/index.js"

/** One mention, located. */
export interface LocatedMention {
  /** epoch milliseconds of publication */
  readonly at: number
  /** ticker slot (the market's ticker order) */
  readonly slot: number
  /** UTC epoch day of `at` */
  readonly day: number
  /** position among the ticker's mentions of that day, in time order */
  readonly index: number
  readonly relevance: number
  readonly sentiment: number
}

export type MentionFilter = (at: number, relevance: number, sentiment: number) => boolean

/** Whole days kept in memory (about 0.4 MB each). */
const CACHE_DAYS = 32
/** Up to this many tickers, an uncached day is read ticker by ticker instead of generating every ticker's day. */
const PER_TICKER_MAX = 8

export class NewsArchive {
  private readonly sim: MarketSimulator
  private readonly cache = new Map<number, DayNews>()
  readonly symbols: ReadonlyArray<string>

  constructor(
    seed: number,
    tickers: ReadonlyArray<TickerMeta>,
    /** a live feed's mentions, laid over the simulated ones */
    private readonly feed?: FeedSource
  ) {
    this.sim = new MarketSimulator({ seed, tickers: tickers.map(simSpec), anchorDate: SIM_ANCHOR_DATE })
    this.symbols = tickers.map((t) => t.ticker)
  }

  /** Slot of a canonical ticker, or -1. */
  slotOf(ticker: string): number {
    return this.sim.indexOf(ticker)
  }

  /** Whether reading `day` for every ticker is already paid for. */
  isCached(day: number): boolean {
    return this.cache.has(day)
  }

  /** Every ticker's mentions of one UTC day (kept in a small LRU cache). */
  private wholeDay(day: number): DayNews {
    const hit = this.cache.get(day)
    if (hit !== undefined) {
      this.cache.delete(day)
      this.cache.set(day, hit)
      return hit
    }
    const d = this.sim.dayNews(day)
    if (this.cache.size >= CACHE_DAYS) this.cache.delete(this.cache.keys().next().value as number)
    this.cache.set(day, d)
    return d
  }

  /**
   * The mentions of UTC `day` that pass `keep`, of the given ticker slots
   * (every ticker when `slots` is null), in no particular order.
   */
  dayMentions(day: number, slots: ReadonlyArray<number> | null, keep: MentionFilter): Array<LocatedMention> {
    const out: Array<LocatedMention> = []
    const start = day * DAY_MS
    if (slots !== null && slots.length <= PER_TICKER_MAX && !this.cache.has(day)) {
      for (const slot of slots) {
        // the whole day of one ticker, in time order: the position is the index
        const list = this.sim.mentions(slot, start - 1, start + DAY_MS - 1)
        for (let j = 0; j < list.length; j++) {
          const m = list[j]!
          if (keep(m.at, m.relevance, m.sentiment)) {
            out.push({ at: m.at, slot, day, index: j, relevance: m.relevance, sentiment: m.sentiment })
          }
        }
        this.feedDay(slot, day, list.length, keep, out)
      }
      return out
    }
    const d = this.wholeDay(day)
    const visit = (slot: number) => {
      const first = d.offsets[slot]!
      const end = d.offsets[slot + 1]!
      for (let j = first; j < end; j++) {
        const at = d.at[j]!
        const relevance = d.relevance[j]!
        const sentiment = d.sentiment[j]!
        if (keep(at, relevance, sentiment)) out.push({ at, slot, day, index: j - first, relevance, sentiment })
      }
    }
    if (slots === null) for (let slot = 0; slot < this.symbols.length; slot++) visit(slot)
    else for (const slot of slots) visit(slot)
    if (this.feed !== undefined) {
      const wanted = slots === null ? undefined : new Set(slots)
      for (const slot of this.feed.newsSlots()) {
        if (wanted === undefined || wanted.has(slot)) {
          this.feedDay(slot, day, d.offsets[slot + 1]! - d.offsets[slot]!, keep, out)
        }
      }
    }
    return out
  }

  /** A live feed's mentions of a slot's day that pass `keep`, indexed after the day's `simulated` ones, as they arrived. */
  private feedDay(slot: number, day: number, simulated: number, keep: MentionFilter, out: Array<LocatedMention>): void {
    if (this.feed === undefined) return
    const start = day * DAY_MS
    const list = this.feed.feedMentions(slot, start - 1, start + DAY_MS - 1).sort((a, b) => a.seq - b.seq)
    for (let j = 0; j < list.length; j++) {
      const m = list[j]!
      if (keep(m.at, m.relevance, m.sentiment)) {
        out.push({ at: m.at, slot, day, index: simulated + j, relevance: m.relevance, sentiment: m.sentiment })
      }
    }
  }
}

const archives = new WeakMap<MarketReader, NewsArchive>()

/** The archive of a loaded market (built on first use, about 0.2 s and 7 MB). */
export const newsArchiveOf = (md: MarketReader): NewsArchive => {
  let archive = archives.get(md)
  if (archive === undefined) {
    archive = new NewsArchive(md.options.seed, md.options.tickers, md.sim instanceof FeedSource ? md.sim : undefined)
    archives.set(md, archive)
  }
  return archive
}
