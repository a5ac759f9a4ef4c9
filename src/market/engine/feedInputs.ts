/**
 * A live feed's fundamentals and news (`ingest/events.ts`), checked and laid
 * over the market's source (`sources/feedSource.ts`). Neither rewrites a
 * completed day: fundamentals take effect on the day after the ticker's last
 * completed session (its current session while it is open, else the next),
 * and a mention is taken only when it is newer than that session's close.
 */
import { epochDay, isoDate } from "../indicators/days.js"
import type { FeedMention, FeedValues, FundamentalsEntry } from "../sources/feedSource.js"
import type { MarketCore } from "./core.js"

/** One ticker's fundamentals as a feed sends them: the fields it gives (null: unknown from now on). */
export interface FundamentalsUpdate {
  readonly ticker: string
  readonly sharesOutstanding?: number | null
  readonly eps?: number | null
  readonly forwardEps?: number | null
  readonly bookValuePerShare?: number | null
  readonly salesPerShare?: number | null
  readonly dividendPerShare?: number | null
  readonly beta?: number | null
  readonly sharesShort?: number | null
  /** fractions of shares outstanding, 0–1 */
  readonly institutionalOwnership?: number | null
  readonly insiderOwnership?: number | null
  readonly analystTargetPrice?: number | null
  /** the next earnings report, YYYY-MM-DD */
  readonly nextEarningsDate?: string | null
}

/** One news mention as a feed sends it. */
export interface NewsItem {
  readonly ticker: string
  /** epoch milliseconds of publication */
  readonly at: number
  /** 0–1 */
  readonly relevance: number
  /** -1 (negative) to 1 (positive) */
  readonly sentiment: number
}

/** Why a feed's fundamentals or news were turned away (all of the event: nothing applied). */
export class FeedInputRejected extends Error {}

/** the numeric fields, with the values each may take */
const RANGES: ReadonlyArray<readonly [Exclude<keyof FundamentalsUpdate, "ticker" | "nextEarningsDate">, string]> = [
  ["sharesOutstanding", "positive"],
  ["eps", "any"],
  ["forwardEps", "any"],
  ["bookValuePerShare", "any"],
  ["salesPerShare", "nonNegative"],
  ["dividendPerShare", "nonNegative"],
  ["beta", "any"],
  ["sharesShort", "nonNegative"],
  ["institutionalOwnership", "fraction"],
  ["insiderOwnership", "fraction"],
  ["analystTargetPrice", "positive"]
]
const KNOWN = new Set<string>(["ticker", "nextEarningsDate", ...RANGES.map(([k]) => k)])
const WORDS: Record<string, string> = {
  positive: "a finite number above 0",
  nonNegative: "a finite number at least 0",
  fraction: "a fraction from 0 to 1",
  any: "a finite number"
}
const fits = (kind: string, x: number): boolean =>
  Number.isFinite(x) &&
  (kind === "positive" ? x > 0 : kind === "nonNegative" ? x >= 0 : kind === "fraction" ? x >= 0 && x <= 1 : true)

const DATE = /^\d{4}-\d{2}-\d{2}$/

const slotOf = (core: MarketCore, ticker: unknown, where: string): number => {
  const slot = typeof ticker === "string" ? core.index.get(ticker) : undefined
  if (slot === undefined) throw new FeedInputRejected(`${where}: ${JSON.stringify(ticker)} is not a tracked ticker`)
  return slot
}

/** The first day a feed's fundamentals pushed at `now` take effect for ticker `i`: after its last completed session. */
export const feedFromDay = (core: MarketCore, i: number, now: number): number =>
  core.lastCompleteDay(core.isCrypto[i] === 1, now) + 1

/** Checks a feed's fundamentals (all or nothing) and gives them as entries in force from each ticker's next row. */
export const fundamentalsEntries = (
  core: MarketCore,
  updates: ReadonlyArray<FundamentalsUpdate>,
  now: number
): Array<FundamentalsEntry> => {
  if (updates.length === 0) throw new FeedInputRejected("no fundamentals given")
  return updates.map((u, k) => {
    const where = `update ${k + 1}`
    const i = slotOf(core, u?.ticker, where)
    const values: { -readonly [K in keyof FeedValues]: number | null } = {}
    for (const key of Object.keys(u)) {
      if (!KNOWN.has(key)) throw new FeedInputRejected(`${where} (${u.ticker}): unknown field ${JSON.stringify(key)}`)
    }
    for (const [key, kind] of RANGES) {
      const v = u[key]
      if (v === undefined) continue
      if (v !== null && !(typeof v === "number" && fits(kind, v))) {
        throw new FeedInputRejected(`${where} (${u.ticker}): ${key} must be ${WORDS[kind]} or null (got ${v})`)
      }
      values[key] = v
    }
    const date = u.nextEarningsDate
    if (date !== undefined) {
      const day = typeof date === "string" && DATE.test(date) ? epochDay(date) : Number.NaN
      const real = Number.isFinite(day) && isoDate(day) === date
      if (date !== null && !(real && date >= "2003-01-01" && date <= "2100-12-31")) {
        throw new FeedInputRejected(
          `${where} (${u.ticker}): nextEarningsDate must be a date YYYY-MM-DD or null (got ${JSON.stringify(date)})`
        )
      }
      values.nextEarningsDay = date === null ? null : day
    }
    if (Object.keys(values).length === 0) throw new FeedInputRejected(`${where} (${u.ticker}): no field given`)
    return { ticker: u.ticker, fromDay: feedFromDay(core, i, now), values }
  })
}

/**
 * Checks a feed's news (all or nothing): tracked tickers, relevance 0–1, sentiment -1–1, published
 * not after `now` and after the close of the ticker's last completed session (the rows of
 * completed days keep their news columns).
 */
export const newsMentions = (
  core: MarketCore,
  items: ReadonlyArray<NewsItem>,
  now: number
): Array<Omit<FeedMention, "seq">> => {
  if (items.length === 0) throw new FeedInputRejected("no mentions given")
  return items.map((m, k) => {
    const where = `mention ${k + 1}`
    const i = slotOf(core, m?.ticker, where)
    const { at, relevance, sentiment } = m
    if (!(typeof relevance === "number" && relevance >= 0 && relevance <= 1)) {
      throw new FeedInputRejected(`${where} (${m.ticker}): relevance must be a number from 0 to 1 (got ${relevance})`)
    }
    if (!(typeof sentiment === "number" && sentiment >= -1 && sentiment <= 1)) {
      throw new FeedInputRejected(`${where} (${m.ticker}): sentiment must be a number from -1 to 1 (got ${sentiment})`)
    }
    if (!(typeof at === "number" && Number.isInteger(at))) {
      throw new FeedInputRejected(`${where} (${m.ticker}): at must be epoch milliseconds (got ${at})`)
    }
    if (at > now) {
      throw new FeedInputRejected(
        `${where} (${m.ticker}): published ${new Date(at).toISOString()}, after now (${new Date(now).toISOString()})`
      )
    }
    const closed = core.stateInstant(i, core.lastCompleteDay(core.isCrypto[i] === 1, now))
    if (at <= closed) {
      throw new FeedInputRejected(
        `${where} (${m.ticker}): published ${new Date(at).toISOString()}, not after its last completed session's close (${new Date(closed).toISOString()}): completed days keep their news`
      )
    }
    return { ticker: m.ticker, at, relevance, sentiment }
  })
}

/** Lays stored fundamentals over the market (the next refresh shows them). */
export const applyFundamentals = (core: MarketCore, entries: ReadonlyArray<FundamentalsEntry>): void => {
  core.feed.addFundamentals(entries)
  core.fundamentalsCache.clear()
}

/** Lays stored mentions over the market (the next refresh shows them). */
export const applyMentions = (core: MarketCore, mentions: ReadonlyArray<FeedMention>): void => {
  core.feed.addMentions(mentions)
}

/** What the feed told of `tickers`, read back from the store, replacing what the market held of them (a follower). */
export const reloadFeed = (
  core: MarketCore,
  tickers: ReadonlyArray<string>,
  stored: { readonly fundamentals: ReadonlyArray<FundamentalsEntry>; readonly mentions: ReadonlyArray<FeedMention> }
): void => {
  core.feed.forget(tickers)
  applyFundamentals(core, stored.fundamentals)
  applyMentions(core, stored.mentions)
}
