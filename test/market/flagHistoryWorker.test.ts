/**
 * Issue 13, item 5: the flag history's first build (about 45 s of CPU on the
 * full market) runs off the event loop that serves requests, and gives the
 * very history a synchronous build gives.
 */
import { performance } from "node:perf_hooks"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Layer } from "effect"
import { SignalStats } from "../../src/api/signals/SignalStats.js"
import { AppConfig } from "../../src/config/AppConfig.js"
import { Fatal } from "../../src/Fatal.js"
import { MarketData, runToEnd } from "../../src/market/engine/MarketData.js"
import { buildFlagHistoryInWorker } from "../../src/market/history/buildFlagHistory.js"
import { FLAG_NAMES, FlagHistory } from "../../src/market/history/flagHistory.js"
import { epochDay } from "../../src/market/indicators/days.js"
import { Market } from "../../src/market/Market.js"
import { loadTickers, makeTickerDirectory, Tickers } from "../../src/market/tickers/index.js"
import { Readiness } from "../../src/observability/Readiness.js"
import { pgliteLayer } from "../../src/store/Database.js"
import { ImportedBars } from "../../src/store/importedBars.js"
import { MarketStoreLive } from "../../src/store/marketStore.js"
import { runMigrations } from "../../src/store/migrate.js"

/** Friday 2026-11-20, 13:30 New York: the session is open */
const FRIDAY_MIDDAY = Date.UTC(2026, 10, 20, 18, 30)

const bytes = (a: Uint32Array | Int32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)

/**
 * How two histories differ: the tickers whose bars or flags differ, and
 * whether the published counts do (none and false: the same history).
 */
const differences = (a: FlagHistory, b: FlagHistory) => {
  const x = a.bits()
  const y = b.bits()
  const tickers: Array<number> = []
  for (let i = 0; i < x.done.length; i++) {
    const same =
      x.done[i] === y.done[i] &&
      bytes(x.trues[i]).equals(bytes(y.trues[i])) &&
      bytes(x.known[i]).equals(bytes(y.known[i]))
    if (!same) tickers.push(i)
  }
  const counts =
    x.counts.firstDay !== y.counts.firstDay ||
    x.counts.lastDay !== y.counts.lastDay ||
    !bytes(x.counts.counts).equals(bytes(y.counts.counts)) ||
    !bytes(x.counts.totals).equals(bytes(y.counts.totals))
  return { tickers, counts }
}

const NONE = { tickers: [], counts: false }

describe("flag history built in a worker thread", () => {
  it.live(
    "equals the synchronous build, bar for bar and day for day, and syncs on from it",
    () =>
      Effect.gen(function* () {
        const tickers = loadTickers().filter((t, i) => i % 300 === 0 || t.ticker === "AAPL" || t.ticker === "BTC-USD")
        const md = MarketData.build({ seed: 5, tickers, historyDays: 30, now: FRIDAY_MIDDAY })
        // what the worker is handed: views of a handful of shared buffers, not buffers of each series' own
        // (posting 13,047 series' 78,000 buffers took seconds of the service's thread)
        const buffers = new Set(
          md.series.flatMap((s) => [s.days, s.open, s.high, s.low, s.close, s.volume].map((a) => a.buffer))
        )
        expect([...buffers].every((b) => b instanceof SharedArrayBuffer)).toBe(true)
        expect(buffers.size).toBeLessThanOrEqual(12)
        const sync = new FlagHistory(md.size, md.isCrypto)
        runToEnd(sync.sync(md))
        // walked 7 tickers at a time (with only their fundamentals computed): the same bits
        const worker = yield* buildFlagHistoryInWorker(md, { batch: 7 })
        expect(worker.stale(md)).toEqual([])
        let bars = 0
        for (let i = 0; i < md.size; i++) bars += worker.barCount(i)
        expect(bars).toBeGreaterThan(md.size * 280)
        expect(worker.counts!.counts.length).toBeGreaterThan(300 * FLAG_NAMES.length)
        expect(differences(worker, sync)).toEqual(NONE)
        // nothing changed since: no work; the session closes: both add its bars the same way
        expect(runToEnd(worker.sync(md))).toBe(false)
        md.refresh(Date.UTC(2026, 10, 21, 0, 30))
        expect(runToEnd(worker.sync(md))).toBe(true)
        expect(runToEnd(sync.sync(md))).toBe(true)
        expect(differences(worker, sync)).toEqual(NONE)
      }),
    60_000
  )

  it.live(
    "is handed a live feed's fundamentals: the flags they change are the synchronous build's",
    () =>
      Effect.gen(function* () {
        const tickers = loadTickers().filter((t, i) => i % 600 === 0 || t.ticker === "AAPL" || t.ticker === "KO")
        const from = epochDay("2026-11-09")
        const feed = {
          fundamentals: [
            // a handful of shares: AAPL a micro cap from then on; KO stops paying
            { ticker: "AAPL", fromDay: from, values: { sharesOutstanding: 1000 } },
            { ticker: "KO", fromDay: from + 3, values: { dividendPerShare: 0 } }
          ],
          mentions: []
        }
        const md = MarketData.build({ seed: 5, tickers, historyDays: 30, now: FRIDAY_MIDDAY, feed })
        const plain = MarketData.build({ seed: 5, tickers, historyDays: 30, now: FRIDAY_MIDDAY })
        const sync = new FlagHistory(md.size, md.isCrypto)
        runToEnd(sync.sync(md))
        const without = new FlagHistory(plain.size, plain.isCrypto)
        runToEnd(without.sync(plain))
        const changed = differences(sync, without).tickers.map((i) => md.tickers[i]!.ticker)
        expect(changed.sort()).toEqual(["AAPL", "KO"])
        const worker = yield* buildFlagHistoryInWorker(md, { batch: 7 })
        expect(differences(worker, sync)).toEqual(NONE)
      }),
    60_000
  )

  it.live(
    "leaves the event loop free while the service builds it after the market is ready",
    () =>
      Effect.gen(function* () {
        const readiness = yield* Readiness
        yield* readiness.markReady("migrations")
        yield* readiness.await("market_snapshot")
        const stats = yield* SignalStats
        // from the market being ready until the first build is done: how busy the event loop was
        const before = performance.eventLoopUtilization()
        let seconds: number | undefined
        while ((seconds = yield* stats.firstBuildSeconds) === undefined) yield* Effect.sleep(Duration.millis(20))
        const busy = performance.eventLoopUtilization(before)
        console.log(`first build ${seconds} s, event loop utilization meanwhile ${busy.utilization.toFixed(3)}`)
        expect(seconds).toBeGreaterThan(0.5)
        // on the event loop (in slices) the loop was busy all along (utilization ~1)
        expect(busy.utilization).toBeLessThan(0.35)
        const market = yield* Market
        const md = yield* market.data
        const built = yield* stats.current(md)
        const sync = new FlagHistory(md.size, md.isCrypto)
        runToEnd(sync.sync(md))
        expect(differences(built, sync)).toEqual(NONE)
      }).pipe(Effect.provide(StatsTest)),
    120_000
  )
})

const subset = makeTickerDirectory(loadTickers().filter((t, i) => i % 40 === 0 || t.ticker === "AAPL"))

const StatsTest = Layer.unwrapEffect(
  Effect.gen(function* () {
    const fatal = yield* Deferred.make<never, Error>()
    return SignalStats.Default.pipe(
      Layer.provideMerge(Market.Default.pipe(Layer.provide(MarketStoreLive))),
      Layer.provideMerge(Readiness.Default),
      Layer.provide(ImportedBars.Default),
      Layer.provide(Layer.effectDiscard(runMigrations).pipe(Layer.provideMerge(pgliteLayer(undefined)))),
      Layer.provide(Layer.succeed(Tickers, subset)),
      Layer.provide(Layer.succeed(Fatal, fatal)),
      Layer.provide(
        AppConfig.layerWith({ refreshInterval: Duration.hours(1), historyDays: 260, signalFlagHistory: "eager" })
      )
    )
  })
)
