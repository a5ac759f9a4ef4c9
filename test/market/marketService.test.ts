import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer, Stream, TestClock } from "effect"
import { AppConfig } from "../../src/config/AppConfig.js"
import { Fatal } from "../../src/Fatal.js"
import { Market } from "../../src/market/Market.js"
import { loadTickers, makeTickerDirectory, Tickers } from "../../src/market/tickers/index.js"
import { Readiness } from "../../src/observability/Readiness.js"
import { pgliteLayer } from "../../src/store/Database.js"
import { ImportedBars } from "../../src/store/importedBars.js"
import { runMigrations } from "../../src/store/migrate.js"

const subset = makeTickerDirectory(
  loadTickers().filter((t, i) => i % 400 === 0 || t.ticker === "AAPL" || t.ticker === "BTC-USD")
)
/** Friday 2026-11-20, 10:00 New York */
const START = Date.UTC(2026, 10, 20, 15, 0)

const MarketTest = Layer.unwrapEffect(
  Effect.gen(function* () {
    const fatal = yield* Deferred.make<never, Error>()
    return Market.Default.pipe(
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

      const seen = yield* market.changes.pipe(Stream.drop(1), Stream.take(2), Stream.runCollect, Effect.fork)
      yield* TestClock.adjust("60 seconds")
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
