/**
 * Issue 13, item 9: on a first start (an empty DATA_DIR) the embedded
 * database is created in a worker thread while the market loads; the market
 * need not wait for it (a new database holds no imported bars).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Layer } from "effect"
import { AppConfig } from "../../src/config/AppConfig.js"
import { Fatal } from "../../src/Fatal.js"
import { Market } from "../../src/market/Market.js"
import { loadTickers, makeTickerDirectory, Tickers } from "../../src/market/tickers/index.js"
import { Readiness } from "../../src/observability/Readiness.js"
import { NewDatabase, pgliteLayer } from "../../src/store/Database.js"
import { ImportedBars } from "../../src/store/importedBars.js"
import { MarketStoreLive } from "../../src/store/marketStore.js"
import { PgliteClient } from "../../src/store/PgliteClient.js"
import { scopedTempDir } from "../support/tempDir.js"

const subset = makeTickerDirectory(loadTickers().filter((t, i) => i % 400 === 0 || t.ticker === "AAPL"))

/** The market over the embedded store in `dir`; nothing runs the migrations. */
const marketOn = (dir: string) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const fatal = yield* Deferred.make<never, Error>()
      return Market.Default.pipe(
        Layer.provide(MarketStoreLive),
        Layer.provideMerge(Readiness.Default),
        Layer.provide(ImportedBars.Default),
        Layer.provideMerge(pgliteLayer(dir)),
        Layer.provide(Layer.succeed(Tickers, subset)),
        Layer.provide(Layer.succeed(Fatal, fatal)),
        Layer.provide(AppConfig.layerWith({ refreshInterval: Duration.hours(1), historyDays: 20 }))
      )
    })
  )

describe("a first start on the embedded store", () => {
  it.live(
    "loads the market while the database is created, then opens it; a restart opens it before the market",
    () =>
      Effect.gen(function* () {
        const dir = yield* scopedTempDir("vigil-newdb-")
        yield* Effect.gen(function* () {
          expect(yield* NewDatabase).toBe(true)
          expect((yield* PgliteClient).created).toBe(true)
          const readiness = yield* Readiness
          // the migrations never run here: the market is ready without them
          yield* readiness.await("market_snapshot").pipe(Effect.timeout(Duration.seconds(60)))
          expect([...(yield* readiness.pending)]).toEqual(["migrations"])
          const sql = yield* SqlClient.SqlClient
          expect(yield* sql`SELECT 1 AS one`).toEqual([{ one: 1 }])
        }).pipe(Effect.provide(marketOn(dir)), Effect.scoped)

        // the cluster exists now: opened before the client is handed out, and the market waits for the migrations
        yield* Effect.gen(function* () {
          expect(yield* NewDatabase).toBe(false)
          const sql = yield* SqlClient.SqlClient
          expect(yield* sql`SELECT 2 AS two`).toEqual([{ two: 2 }])
          const readiness = yield* Readiness
          const waited = yield* readiness
            .await("market_snapshot")
            .pipe(Effect.timeout(Duration.seconds(3)), Effect.either)
          expect(waited._tag).toBe("Left")
        }).pipe(Effect.provide(marketOn(dir)), Effect.scoped)
      }).pipe(Effect.scoped),
    120_000
  )
})
