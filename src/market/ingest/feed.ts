/**
 * A live feed's events applied to the market (`events.ts`), and the sessions
 * its trades made stored once they are completed days: the part of the
 * ingest `Market.ts` runs for what the feed pushes, under its lock. Bars,
 * fundamentals and news are all or nothing per event: checked, stored, then
 * laid over the market.
 */
import { Clock, Data, Effect } from "effect"
import type { ImportSummary, MarketData } from "../engine/MarketData.js"
import type { FeedInputStore } from "../ports.js"
import type { ParsedBar } from "../sources/csvBars.js"
import type { MarketEvent } from "./events.js"
import { countEvent, countQuotes, type FeedKind } from "./metrics.js"

const KINDS: Record<MarketEvent["_tag"], FeedKind> = {
  Bars: "bars",
  Quotes: "quotes",
  Fundamentals: "fundamentals",
  News: "news"
}

/** a feed's fundamentals or news turned away (the import path's tag: counted and logged alike) */
class Rejected extends Data.TaggedError("ImportRejected")<{ readonly message: string }> {}

export interface FeedTarget<E> {
  /** the loaded market, if it is */
  readonly market: () => MarketData | undefined
  /** the import path: checks (failing `ImportRejected`), stores, lays over the history, publishes */
  readonly importNow: (
    byTicker: ReadonlyMap<string, ReadonlyArray<ParsedBar>>
  ) => Effect.Effect<ImportSummary, E | { readonly _tag: "ImportRejected"; readonly message: string }>
  /** where a feed's fundamentals and news are kept */
  readonly inputs: FeedInputStore
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

  /** checks, stores and lays a feed's fundamentals or news over the market (all or nothing) */
  const inputsNow = (event: Extract<MarketEvent, { readonly _tag: "Fundamentals" | "News" }>) =>
    Effect.gen(function* () {
      const md = target.market()
      if (md === undefined) return yield* new Rejected({ message: "the market is still loading" })
      // following ticks the market stays at its tick's as_of (the next tick moves it on)
      const now = target.following ? md.latest.asOf : yield* Clock.currentTimeMillis
      const rejected = (e: unknown) => new Rejected({ message: (e as Error).message })
      if (event._tag === "Fundamentals") {
        const entries = yield* Effect.try({ try: () => md.fundamentalsEntries(event.updates, now), catch: rejected })
        yield* target.inputs.addFundamentals(entries)
        md.applyFeedInputs({ fundamentals: entries, mentions: [] })
      } else {
        const mentions = yield* Effect.try({ try: () => md.newsMentions(event.mentions, now), catch: rejected })
        md.applyFeedInputs({ fundamentals: [], mentions: yield* target.inputs.addMentions(mentions) })
      }
    })

  /** bars, fundamentals or news: checked, stored, laid over the market (rejected: nothing of the event) */
  const applyStored = (event: Exclude<MarketEvent, { readonly _tag: "Quotes" }>, kind: FeedKind) =>
    Effect.gen(function* () {
      const attempt: Effect.Effect<unknown, { readonly _tag: string; readonly message?: string }> =
        event._tag === "Bars" ? target.importNow(event.byTicker) : inputsNow(event)
      const applied = yield* Effect.either(attempt)
      if (applied._tag === "Right") return yield* countEvent(kind, "applied")
      const rejected = applied.left._tag === "ImportRejected"
      yield* countEvent(kind, rejected ? "rejected" : "failed")
      const tickers =
        event._tag === "Bars"
          ? [...event.byTicker.keys()]
          : event._tag === "Fundamentals"
            ? event.updates.map((u) => u.ticker)
            : event.mentions.map((m) => m.ticker)
      return yield* Effect.logWarning(rejected ? `feed ${kind} rejected` : `feed ${kind} not stored`).pipe(
        Effect.annotateLogs({ error: applied.left.message, tickers: [...new Set(tickers)].slice(0, 20) })
      )
    })

  /** one event of the feed, applied */
  const applyEvent = (event: MarketEvent) =>
    Effect.gen(function* () {
      const kind: FeedKind = KINDS[event._tag]
      // paused: no new market data is applied (the operator contract): the event is dropped, counted
      if (yield* target.paused) return yield* countEvent(kind, "paused")
      if (event._tag !== "Quotes") return yield* applyStored(event, kind)
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
