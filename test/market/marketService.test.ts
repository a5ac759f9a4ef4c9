import { describe, expect, it } from "@effect/vitest"
import { Chunk, Context, Deferred, Duration, Effect, Fiber, Layer, Metric, Stream, TestClock } from "effect"
import { AppConfig } from "../../src/config/AppConfig.js"
import { Fatal } from "../../src/Fatal.js"
import { MarketEvent } from "../../src/market/ingest/events.js"
import { feedEventsTotal, feedQuotesTotal } from "../../src/market/ingest/metrics.js"
import { Market, type MarketNotReady } from "../../src/market/Market.js"
import { MarketBars, MarketFeedInputs } from "../../src/market/ports.js"
import type { Snapshot } from "../../src/market/snapshot.js"
import type { ParsedBar } from "../../src/market/sources/csvBars.js"
import { loadTickers, makeTickerDirectory, Tickers } from "../../src/market/tickers/index.js"
import { Readiness } from "../../src/observability/Readiness.js"
import { NewDatabase, pgliteLayer } from "../../src/store/Database.js"
import { ImportedBars } from "../../src/store/importedBars.js"
import { FollowTicksLive, MarketStoreLive } from "../../src/store/marketStore.js"
import { runMigrations } from "../../src/store/migrate.js"
import { Ticks } from "../../src/store/ticks.js"

const subset = makeTickerDirectory(
  loadTickers().filter((t, i) => i % 400 === 0 || t.ticker === "AAPL" || t.ticker === "BTC-USD")
)
/** Friday 2026-11-20, 10:00 New York */
const START = Date.UTC(2026, 10, 20, 15, 0)

/**
 * `check` retried in real time until it passes (up to 20 s): what a refresh does after a TestClock step
 * (its store reads and writes) finishes on its own fiber, after `TestClock.adjust` has returned.
 */
const eventually = <A, E, R>(check: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    for (let k = 0; k < 4_000; k++) {
      const attempt = yield* Effect.either(Effect.sandbox(check))
      if (attempt._tag === "Right") return attempt.right
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
    }
    return yield* check
  })

/** the count of feed events of `kind` with `outcome` so far, and a wait for `n` more */
const eventsCounted = (kind: string, outcome: string) =>
  Effect.gen(function* () {
    const metric = feedEventsTotal.pipe(Metric.tagged("kind", kind), Metric.tagged("outcome", outcome))
    const count = Effect.map(Metric.value(metric), (s) => s.count)
    const from = yield* count
    return {
      /** yields until `n` more were counted (the ingest applies them on its own fiber) */
      reached: (n: number) =>
        eventually(
          Effect.map(count, (c) => {
            if (c < from + n) throw new Error(`${n} feed events (${kind}, ${outcome}) never applied`)
          })
        )
    }
  })
/** the market's live snapshot once a refresh has made it as of `asOf` */
const refreshedTo = (market: Market, asOf: number) =>
  eventually(
    Effect.gen(function* () {
      const live = yield* market.latest
      expect(live.asOf).toBe(asOf)
      return live
    })
  )

const quotesCounted = (outcome: string) =>
  Effect.map(Metric.value(feedQuotesTotal.pipe(Metric.tagged("outcome", outcome))), (s) => s.count)

const num = (s: Snapshot, ticker: string, column: string): number => {
  const col = s.columns.get(column)
  if (col?.kind !== "numeric") throw new Error(`${column}: not numeric`)
  return col.values[s.index.get(ticker)!]
}

/** the market loaded at `at` (START unless told), with the bars it stores */
const readyAt = (at: number) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(at)
    const readiness = yield* Readiness
    yield* readiness.markReady("migrations")
    const market = yield* Market
    const stored = yield* MarketBars
    yield* readiness.await("market_snapshot")
    return { market, stored }
  })
const readyAtStart = readyAt(START)

const MarketTest = Layer.unwrapEffect(
  Effect.gen(function* () {
    const fatal = yield* Deferred.make<never, Error>()
    return Market.Default.pipe(
      Layer.provideMerge(MarketStoreLive),
      Layer.provideMerge(Readiness.Default),
      Layer.provide(ImportedBars.Default),
      Layer.provide(Layer.effectDiscard(runMigrations).pipe(Layer.provideMerge(pgliteLayer(undefined)))),
      Layer.provide(Layer.succeed(Tickers, subset)),
      Layer.provide(Layer.succeed(Fatal, fatal)),
      Layer.provide(AppConfig.layerWith({ refreshInterval: Duration.seconds(60), historyDays: 20, marketSeed: 3 }))
    )
  })
)

describe("Market service", () => {
  /** Waits (real time, at most 20 s) until some fiber sleeps until `at` on the TestClock. */
  const sleepingUntil = (at: number) =>
    Effect.gen(function* () {
      for (let i = 0; i < 2_000; i++) {
        if (Chunk.some(yield* TestClock.sleeps(), (t) => t === at)) return
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
      }
      throw new Error(`nothing sleeps until ${new Date(at).toISOString()}`)
    })

  it.scoped("loads in the background, turns ready, then refreshes on every interval of the Clock", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const readiness = yield* Readiness
      expect((yield* readiness.pending).has("market_snapshot")).toBe(true)
      yield* readiness.markReady("migrations")
      const market = yield* Market
      yield* readiness.await("market_snapshot")
      expect(yield* readiness.isReady).toBe(true)
      const first = yield* market.latest
      expect(first.asOf).toBe(START)
      expect(first.size).toBe(subset.size)

      // subscribed before the Clock moves: the stream's first element is the snapshot it found (a fork that
      // subscribed after the first refresh would drop that one and wait for a third)
      const subscribed = yield* Deferred.make<void>()
      const seen = yield* market.changes.pipe(
        Stream.tap(() => Deferred.succeed(subscribed, undefined)),
        Stream.drop(1),
        Stream.take(2),
        Stream.runCollect,
        Effect.fork
      )
      yield* Deferred.await(subscribed)
      // each tick's sleep registered before the Clock passes it (a busy machine can be slow to register
      // the next one: the Clock moved past it first, and the second tick never came)
      yield* sleepingUntil(START + 60_000)
      yield* TestClock.adjust("60 seconds")
      yield* sleepingUntil(START + 120_000)
      yield* TestClock.adjust("60 seconds")
      const published = [...(yield* Fiber.join(seen))]
      expect(published.map((s) => s.asOf)).toEqual([START + 60_000, START + 120_000])
      const latest = yield* market.latest
      const col = latest.columns.get("price")
      const before = first.columns.get("price")
      if (col?.kind !== "numeric" || before?.kind !== "numeric") throw new Error("price column")
      const r = latest.index.get("BTC-USD")!
      expect(col.values[r]).not.toBe(before.values[r])

      // a manual refresh applies at the current Clock time
      yield* TestClock.adjust("10 seconds")
      const manual = yield* market.refreshNow
      expect(manual.asOf).toBe(START + 130_000)
    }).pipe(Effect.provide(MarketTest))
  )

  it.scoped("ingests a live feed: trades show on the next refresh, bars at once, nothing while paused", () =>
    Effect.gen(function* () {
      const { market, stored } = yield* readyAtStart
      const open = START - 30 * 60_000

      // trades: taken at once, shown by the next refresh tick
      const quotes = yield* eventsCounted("quotes", "applied")
      yield* market.push(
        MarketEvent.Quotes({
          quotes: [
            { ticker: "AAPL", at: open + 60_000, price: 250, size: 100 },
            { ticker: "AAPL", at: open + 120_000, price: 252.5, size: 300 },
            { ticker: "AAPL", at: START + 60_000, price: 1, size: 1 }, // after now: turned away
            { ticker: "NOPE9", at: open + 60_000, price: 1, size: 1 }
          ]
        })
      )
      yield* quotes.reached(1)
      expect(yield* quotesCounted("accepted")).toBeGreaterThanOrEqual(2)
      yield* TestClock.adjust("60 seconds")
      const live = yield* refreshedTo(market, START + 60_000)
      expect(num(live, "AAPL", "price")).toBe(252.5)
      expect(num(live, "AAPL", "volume_today")).toBe(400)

      // completed bars: checked, stored and laid over the history at once
      const bars = yield* eventsCounted("bars", "applied")
      const rejected = yield* eventsCounted("bars", "rejected")
      const thursday: ParsedBar = {
        ticker: "AAPL",
        date: "2026-11-19",
        open: 240,
        high: 245,
        low: 238,
        close: 244,
        volume: 1_000_000
      }
      yield* market.push(MarketEvent.Bars({ byTicker: new Map([["AAPL", [thursday]]]) }))
      yield* bars.reached(1)
      expect((yield* stored.load(["AAPL"])).get("AAPL")).toEqual([thursday])
      const md = yield* market.data
      expect(md.rowAsOf("AAPL", "2026-11-19")?.values.price).toBe(244)
      // today's session is not a completed day: all or nothing, nothing stored
      yield* market.push(
        MarketEvent.Bars({
          byTicker: new Map([
            ["BTC-USD", [{ ...thursday, ticker: "BTC-USD" }]],
            ["AAPL", [{ ...thursday, date: "2026-11-20" }]]
          ])
        })
      )
      yield* rejected.reached(1)
      expect((yield* stored.load(["BTC-USD"])).get("BTC-USD") ?? []).toEqual([])

      // paused: no new market data is applied; the trades are dropped, counted
      const paused = yield* eventsCounted("quotes", "paused")
      yield* market.setFeedPaused(true)
      yield* market.push(MarketEvent.Quotes({ quotes: [{ ticker: "AAPL", at: START + 60_000, price: 300, size: 1 }] }))
      yield* paused.reached(1)
      yield* market.setFeedPaused(false)
      yield* TestClock.adjust("60 seconds")
      expect(num(yield* refreshedTo(market, START + 120_000), "AAPL", "price")).toBe(252.5)
    }).pipe(Effect.provide(MarketTest))
  )

  it.scoped("stores a session its trades made once the next one began, as the bar a restart reads", () =>
    Effect.gen(function* () {
      // loaded ten minutes before the UTC day closes: the Clock step to the close runs ten refreshes, not the
      // ~540 a step from START would (which CI under load could not finish within the test's timeout)
      const day = Date.UTC(2026, 10, 20)
      const lateStart = day + 86_400_000 - 10 * 60_000
      const { market, stored } = yield* readyAt(lateStart)
      const quotes = yield* eventsCounted("quotes", "applied")
      yield* market.push(
        MarketEvent.Quotes({
          quotes: [
            { ticker: "BTC-USD", at: day + 60_000, price: 90_000, size: 2 },
            { ticker: "BTC-USD", at: day + 3_600_000, price: 93_000.123, size: 1 },
            { ticker: "BTC-USD", at: START - 60_000, price: 91_500, size: 1 }
          ]
        })
      )
      yield* quotes.reached(1)
      // the UTC day closes at midnight; the first refresh from then on rolls the session and stores the bar
      yield* TestClock.adjust(Duration.millis(day + 86_400_000 - lateStart))
      yield* refreshedTo(market, day + 86_400_000)
      const bar = { ticker: "BTC-USD", date: "2026-11-20", open: 90_000, high: 93_000.12, low: 90_000, close: 91_500 }
      yield* eventually(
        Effect.map(stored.load(["BTC-USD"]), (s) => expect(s.get("BTC-USD")).toEqual([{ ...bar, volume: 4 }]))
      )
      const md = yield* market.data
      expect(md.rowAsOf("BTC-USD", "2026-11-20")?.values.price).toBe(91_500)
      // the day's minutes are not simulated: its bar is a real one
      expect(md.intradaySeries("BTC-USD", "price", "1m", day + 60_000, day + 86_400_000 - 1, 100)).toEqual([])
    }).pipe(Effect.provide(MarketTest))
  )

  it.scoped("ingests a feed's fundamentals and news: stored, shown by the next refresh, refused whole", () =>
    Effect.gen(function* () {
      const { market } = yield* readyAtStart
      const told = yield* MarketFeedInputs
      const before = yield* market.latest
      const applied = yield* eventsCounted("fundamentals", "applied")
      yield* market.push(MarketEvent.Fundamentals({ updates: [{ ticker: "AAPL", eps: 8, analystTargetPrice: 500 }] }))
      yield* applied.reached(1)
      // stored, in force from today's session (it is open)
      expect((yield* told.load(["AAPL"])).fundamentals).toEqual([
        { ticker: "AAPL", fromDay: Math.floor(START / 86_400_000), values: { eps: 8, analystTargetPrice: 500 } }
      ])
      const news = yield* eventsCounted("news", "applied")
      yield* market.push(
        MarketEvent.News({ mentions: [{ ticker: "AAPL", at: START - 60_000, relevance: 0.9, sentiment: 0.5 }] })
      )
      yield* news.reached(1)
      expect((yield* told.load(["AAPL"])).mentions).toMatchObject([{ ticker: "AAPL", at: START - 60_000, seq: 1 }])
      yield* TestClock.adjust("60 seconds")
      const live = yield* refreshedTo(market, START + 60_000)
      expect(num(live, "AAPL", "eps")).toBe(8)
      expect(num(live, "AAPL", "pe_ratio")).toBeCloseTo(num(live, "AAPL", "price") / 8, 12)
      expect(num(live, "AAPL", "analyst_target_price")).toBe(500)
      expect(num(live, "AAPL", "news_volume")).toBe(num(before, "AAPL", "news_volume") + 1)

      // refused whole: nothing stored, counted
      const rejected = yield* eventsCounted("news", "rejected")
      yield* market.push(
        MarketEvent.News({
          mentions: [
            { ticker: "AAPL", at: START, relevance: 0.9, sentiment: 0.5 },
            { ticker: "AAPL", at: START - 7 * 86_400_000, relevance: 0.9, sentiment: 0.5 }
          ]
        })
      )
      yield* rejected.reached(1)
      expect((yield* told.load(["AAPL"])).mentions).toHaveLength(1)
      // paused: dropped
      const paused = yield* eventsCounted("fundamentals", "paused")
      yield* market.setFeedPaused(true)
      yield* market.push(MarketEvent.Fundamentals({ updates: [{ ticker: "AAPL", eps: 1 }] }))
      yield* paused.reached(1)
      yield* market.setFeedPaused(false)
      expect((yield* told.load(["AAPL"])).fundamentals[0]?.values.eps).toBe(8)
    }).pipe(Effect.provide(MarketTest))
  )

  it.scoped("answers not ready while loading", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const market = yield* Market
      const result = yield* Effect.either(market.latest)
      expect(result._tag).toBe("Left")
      if (result._tag === "Left") expect(result.left._tag).toBe("MarketNotReady")
    }).pipe(Effect.provide(MarketTest))
  )
})

describe("Market service following the refresh ticks in the store (a split deployment)", () => {
  it.live(
    "both refresh to each tick's as_of, and an import through one reaches the other by the next tick",
    () =>
      Effect.gen(function* () {
        const fatal = yield* Deferred.make<never, Error>()
        const config = AppConfig.layerWith({ refreshInterval: Duration.seconds(60), historyDays: 20, marketSeed: 3 })
        const db = yield* Layer.build(
          Layer.effectDiscard(runMigrations).pipe(Layer.provideMerge(pgliteLayer(undefined)))
        )
        const ticks = Context.get(
          yield* Layer.build(Ticks.Default.pipe(Layer.provide(Layer.succeedContext(db)))),
          Ticks
        )
        /** a process over the store; `restarted`: one that finds the database made (not created by its start) */
        const market = (restarted = false) =>
          Effect.gen(function* () {
            const ctx = yield* Layer.build(
              Market.Default.pipe(
                Layer.provide(FollowTicksLive),
                Layer.provide(MarketStoreLive),
                Layer.provide(Ticks.Default),
                Layer.provideMerge(Readiness.Default),
                Layer.provide(ImportedBars.Default),
                Layer.provide(Layer.succeedContext(restarted ? Context.add(db, NewDatabase, false) : db)),
                Layer.provide(Layer.succeed(Tickers, subset)),
                Layer.provide(Layer.succeed(Fatal, fatal)),
                Layer.provide(config)
              )
            )
            const readiness = Context.get(ctx, Readiness)
            yield* readiness.markReady("migrations")
            yield* readiness.await("market_snapshot")
            return Context.get(ctx, Market)
          })
        const a = yield* market()
        const b = yield* market()
        const startA = (yield* a.latest).asOf
        const startB = (yield* b.latest).asOf

        // a tick after both were built: both refresh to exactly its as_of
        const asOf = Math.max(startA, startB) + 60_000
        const tick = yield* ticks.issue({ asOf, due: ["realtime"], imports: 0, request: 0 }, asOf)
        expect(tick?.seq).toBe(1)
        // a second singleton issuing the same tick (a move) issues nothing
        expect(yield* ticks.issue({ asOf, due: ["realtime"], imports: 0, request: 0 }, asOf)).toBeUndefined()
        const reached = (m: Market, at: number): Effect.Effect<Snapshot, MarketNotReady> =>
          Effect.flatMap(m.latest, (s) =>
            s.asOf >= at ? Effect.succeed(s) : Effect.zipRight(Effect.sleep("20 millis"), reached(m, at))
          )
        const [sa, sb] = [yield* reached(a, asOf), yield* reached(b, asOf)]
        expect([sa.asOf, sb.asOf]).toEqual([asOf, asOf])
        expect(a.tickOf(sa)?.seq).toBe(1)
        const price = (s: Snapshot) => {
          const col = s.columns.get("price")
          if (col?.kind !== "numeric") throw new Error("price column")
          return [...col.values]
        }
        expect(price(sb)).toEqual(price(sa))

        // an import through a (stored, logged, applied there) reaches b with the next tick
        const date = "2026-11-18"
        const bar: ParsedBar = { ticker: "AAPL", date, open: 100, high: 123.5, low: 99, close: 123.45, volume: 1_000 }
        yield* a.importBars(new Map<string, ReadonlyArray<ParsedBar>>([["AAPL", [bar]]]))
        expect((yield* a.data).rowAsOf("AAPL", date)?.values.price).toBeCloseTo(123.45, 9)
        expect((yield* b.data).rowAsOf("AAPL", date)?.values.price).not.toBeCloseTo(123.45, 9)
        // a feed's fundamentals and news through a (stored, logged as inputs) reach b with the same tick
        const applied = yield* eventsCounted("fundamentals", "applied")
        yield* a.push(MarketEvent.Fundamentals({ updates: [{ ticker: "BTC-USD", eps: 7, beta: 1.5 }] }))
        yield* applied.reached(1)
        const heard = yield* eventsCounted("news", "applied")
        yield* a.push(
          MarketEvent.News({ mentions: [{ ticker: "BTC-USD", at: asOf - 1, relevance: 1, sentiment: -0.5 }] })
        )
        yield* heard.reached(1)
        const next = yield* ticks.issue(
          { asOf: asOf + 60_000, due: ["realtime"], imports: yield* ticks.importsVersion, request: 0 },
          asOf + 60_000
        )
        expect(next?.imports).toBe(3)
        const [na, nb] = [yield* reached(a, asOf + 60_000), yield* reached(b, asOf + 60_000)]
        expect((yield* b.data).rowAsOf("AAPL", date)?.values.price).toBeCloseTo(123.45, 9)
        expect(price(nb)).toEqual(price(na))
        const column = (s: Snapshot, name: string) => {
          const col = s.columns.get(name)
          if (col?.kind !== "numeric") throw new Error(`${name} column`)
          return col.values[s.index.get("BTC-USD")!]
        }
        expect(column(na, "eps")).toBe(7)
        for (const name of ["eps", "pe_ratio", "beta", "news_volume", "news_volume_weighted_sentiment"]) {
          expect([name, column(nb, name)]).toEqual([name, column(na, name)])
        }
        // a process started afresh over the store (a restart) reads them back
        const c = yield* market(true)
        yield* ticks.issue(
          { asOf: asOf + 70_000, due: ["realtime"], imports: yield* ticks.importsVersion, request: 0 },
          asOf + 70_000
        )
        const [la, lc] = [yield* reached(a, asOf + 70_000), yield* reached(c, asOf + 70_000)]
        for (const name of ["eps", "pe_ratio", "beta", "news_volume", "news_volume_weighted_sentiment"]) {
          expect([name, column(lc, name)]).toEqual([name, column(la, name)])
        }

        // a refresh asked for through a following market is the next tick (issued here by hand)
        const asked = yield* Effect.fork(b.refreshNow)
        let request = 0
        while (request === 0) {
          yield* Effect.sleep("10 millis")
          request = yield* ticks.refreshRequested
        }
        yield* ticks.issue({ asOf: asOf + 90_000, due: ["realtime"], imports: 3, request }, asOf + 90_000)
        expect((yield* Fiber.join(asked)).asOf).toBe(asOf + 90_000)
      }).pipe(Effect.scoped),
    120_000
  )
})
