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
 *
 * An adapter for a vendor's stream (a WebSocket of trades, an end-of-day bar
 * file) turns its messages into these and pushes them; `push` waits while
 * the ingest is behind by `FEED_QUEUE` events, so a fast feed is slowed, not
 * dropped. Fundamentals and news still come from the market's source (the
 * simulator): their events are the next to add here.
 */
import { Data } from "effect"
import type { Quote } from "../engine/quotes.js"
import type { ParsedBar } from "../sources/csvBars.js"

export type MarketEvent = Data.TaggedEnum<{
  /** completed daily bars, by canonical ticker, dates ascending */
  Bars: { readonly byTicker: ReadonlyMap<string, ReadonlyArray<ParsedBar>> }
  /** trades of the tickers' current sessions */
  Quotes: { readonly quotes: ReadonlyArray<Quote> }
}>

export const MarketEvent = Data.taggedEnum<MarketEvent>()

/** events pushed and not yet applied, at most: `push` waits beyond it */
export const FEED_QUEUE = 1024
