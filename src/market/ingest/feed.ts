/**
 * A live feed's events applied to the market (`events.ts`), and the sessions
 * its trades made stored once they are completed days: the part of the
 * ingest `Market.ts` runs for what the feed pushes, under its lock.
 */
import { Clock, Effect } from "effect"
import type { ImportSummary, MarketData } from "../engine/MarketData.js"
import type { ParsedBar } from "../sources/csvBars.js"
import type { MarketEvent } from "./events.js"
import { countEvent, countQuotes } from "./metrics.js"

export interface FeedTarget<E> {
  /** the loaded market, if it is */
  readonly market: () => MarketData | undefined
  /** the import path: checks (failing `ImportRejected`), stores, lays over the history, publishes */
  readonly importNow: (
    byTicker: ReadonlyMap<string, ReadonlyArray<ParsedBar>>
  ) => Effect.Effect<ImportSummary, E | { readonly _tag: "ImportRejected"; readonly message: string }>
  /** the feed switch (`POST /admin/feed/pause`) */
  readonly paused: Effect.Effect<boolean>
  /** the market follows the store's refresh ticks (a split deployment) */
  readonly following: boolean
}

export const feedApplier = <E extends { readonly _tag: string; readonly message: string }>(target: FeedTarget<E>) => {
  /**
   * The bars a live feed's quotes made of sessions now over, stored and laid over the history
   * as imported bars (`engine/quotes.ts`); a failed store is tried again after the next refresh.
   */
  const storeQuoteBars = Effect.gen(function* () {
    const md = target.market()
    if (md === undefined) return
    const completed = md.completedQuoteBars(yield* Clock.currentTimeMillis)
    if (completed.size === 0) return
    const summary = yield* target.importNow(completed)
    yield* Effect.logInfo("quoted sessions stored").pipe(
      Effect.annotateLogs({ tickers: summary.tickers.length, from: summary.from, to: summary.to })
    )
  }).pipe(Effect.catchAllCause((cause) => Effect.logError("quoted sessions not stored; retried", cause)))

  /** one event of the feed, applied */
  const applyEvent = (event: MarketEvent) =>
    Effect.gen(function* () {
      const kind = event._tag === "Bars" ? "bars" : "quotes"
      // paused: no new market data is applied (the operator contract): the event is dropped, counted
      if (yield* target.paused) return yield* countEvent(kind, "paused")
      if (event._tag === "Bars") {
        const applied = yield* Effect.either(target.importNow(event.byTicker))
        if (applied._tag === "Right") return yield* countEvent(kind, "applied")
        const rejected = applied.left._tag === "ImportRejected"
        yield* countEvent(kind, rejected ? "rejected" : "failed")
        return yield* Effect.logWarning(rejected ? "feed bars rejected" : "feed bars not stored").pipe(
          Effect.annotateLogs({ error: applied.left.message, tickers: [...event.byTicker.keys()].slice(0, 20) })
        )
      }
      const md = target.market()
      if (md === undefined || target.following) {
        // a follower refreshes to its ticks' times, not its Clock: trades are taken by a market on its own Clock
        yield* countEvent(kind, "rejected")
        return yield* Effect.logWarning("feed quotes are taken only by a market refreshing on its own Clock")
      }
      yield* countQuotes(md.applyQuotes(event.quotes, yield* Clock.currentTimeMillis))
      yield* countEvent(kind, "applied")
    })

  return { applyEvent, storeQuoteBars }
}
