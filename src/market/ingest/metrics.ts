/** The market's metrics: refreshes, the live snapshot, a live feed's events. */
import { Effect, Metric, MetricBoundaries } from "effect"
import type { QuotesOutcome } from "../engine/quotes.js"

export const refreshDuration = Metric.histogram(
  "market_refresh_duration_seconds",
  MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]),
  "Time to apply one market data refresh and build its snapshot"
)
export const refreshesTotal = Metric.counter("market_refreshes_total", {
  description: "Market data refreshes applied",
  incremental: true
})
export const snapshotTickers = Metric.gauge("market_snapshot_tickers", { description: "Tickers in the live snapshot" })

export const feedEventsTotal = Metric.counter("market_feed_events_total", {
  description:
    "Events a live feed pushed, by kind (bars, quotes, fundamentals, news) and outcome (applied, rejected, paused, failed)",
  incremental: true
})
export const feedQuotesTotal = Metric.counter("market_feed_quotes_total", {
  description:
    "Trades a live feed pushed, by outcome (accepted, or why not: untracked, invalid, future, not_trading, outside_session, final)",
  incremental: true
})

export type FeedOutcome = "applied" | "rejected" | "paused" | "failed"

export type FeedKind = "bars" | "quotes" | "fundamentals" | "news"

export const countEvent = (kind: FeedKind, outcome: FeedOutcome) =>
  Metric.update(feedEventsTotal.pipe(Metric.tagged("kind", kind), Metric.tagged("outcome", outcome)), 1)

export const countQuotes = (outcome: QuotesOutcome) =>
  Effect.forEach(
    [["accepted", outcome.accepted] as const, ...Object.entries(outcome.rejected)],
    ([why, n]) => (n > 0 ? Metric.update(feedQuotesTotal.pipe(Metric.tagged("outcome", why)), n) : Effect.void),
    { discard: true }
  )
