/**
 * What a live feed pushes into the market (`Market.push`): completed daily
 * bars and trades. The market's ingest is one stream — these events merged
 * with the Clock's refresh ticks — applied in order, one at a time:
 *
 * - `Bars`: completed days, by ticker. The same path as `POST /admin/import`:
 *   checked (tracked tickers, days before the current session; all or
 *   nothing), stored, laid over the history, published at once.
 * - `Quotes`: trades of the tickers' current sessions (`engine/quotes.ts`):
 *   taken into each ticker's session bar at once, shown by the next refresh
 *   tick (the refresh cadence stays the Clock's); a session's bar made of
 *   quotes is stored as an imported bar once the next session began.
 * - `Fundamentals`: some fields of some tickers' fundamentals and vendor
 *   fields, in force from each ticker's next row (its current session while
 *   open) until the feed replaces them (`engine/feedInputs.ts`).
 * - `News`: mentions, added to the source's own: the news columns and the
 *   news scan count both. Published after the ticker's last completed close.
 *
 * Fundamentals and news are checked (all or nothing), stored, laid over the
 * market's source (`sources/feedSource.ts`) and shown by the next refresh
 * tick; processes following ticks read them back before their next tick.
 *
 * An adapter for a vendor's stream (a WebSocket of trades, an end-of-day bar
 * file) turns its messages into these and pushes them; `push` waits while
 * the ingest is behind by `FEED_QUEUE` events, so a fast feed is slowed, not
 * dropped.
 */
import { Data } from "effect"
import type { FundamentalsUpdate, NewsItem } from "../engine/feedInputs.js"
import type { Quote } from "../engine/quotes.js"
import type { ParsedBar } from "../sources/csvBars.js"

export type MarketEvent = Data.TaggedEnum<{
  /** completed daily bars, by canonical ticker, dates ascending */
  Bars: { readonly byTicker: ReadonlyMap<string, ReadonlyArray<ParsedBar>> }
  /** trades of the tickers' current sessions */
  Quotes: { readonly quotes: ReadonlyArray<Quote> }
  /** fundamentals and vendor fields, ticker by ticker: only the fields given change */
  Fundamentals: { readonly updates: ReadonlyArray<FundamentalsUpdate> }
  /** news mentions */
  News: { readonly mentions: ReadonlyArray<NewsItem> }
}>

export const MarketEvent = Data.taggedEnum<MarketEvent>()

/** events pushed and not yet applied, at most: `push` waits beyond it */
export const FEED_QUEUE = 1024
