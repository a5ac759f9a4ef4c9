/**
 * The whole market's history before the window (issue 17): the grid of states every as-of
 * snapshot before the window is read off (`engine/deepAsOf.ts`), built once per market into the
 * data directory (`history/deepGridFile.ts`) and laid over the market.
 *
 * - `DEEP_HISTORY=eager` (the default): once the market is ready, the grid in the data directory
 *   is opened, or built in a worker thread at the lowest priority and within the CPU share the
 *   requests leave (`workerShare.ts`) — a minute or two of one core on a first start, nothing on
 *   the next (the file is kept). `lazy`: built when a read first asks for it.
 * - Kept current: an import changes what the grid is a function of, so it is dropped and built
 *   again; as the window moves on, a grid more than 64 days short of it is built again too (the
 *   old one serves meanwhile).
 * - A read before the window while no grid is laid answers 503 `service_unavailable` with a
 *   `Retry-After`, and the build runs at full speed from then on (someone waits for it).
 */

import { mkdirSync } from "node:fs"
import { extname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Clock, Deferred, Duration, Effect, Stream } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { yieldToEventLoop } from "../eventLoop.js"
import { registerScrapeGauge } from "../observability/scrapeGauges.js"
import { makeShareGate, paceByEventLoop } from "../workerShare.js"
import { runWorker } from "../workerThread.js"
import type { MarketReader } from "./engine/MarketData.js"
import { HISTORY_START_DAY } from "./history/coverage.js"
import type { DeepGridMeta } from "./history/deepGrid.js"
import { type DeepGridFile, deepGridKey, openDeepGridFile, writeDeepGridFile } from "./history/deepGridFile.js"
import type { DeepGridWorkerInput } from "./history/deepGridWorker.js"
import { isoDate } from "./indicators/days.js"
import { Market } from "./Market.js"
import { MarketSimulator } from "./sim/index.js"
import { baseOf } from "./sources/feedSource.js"

/** niceness of the worker thread: it takes the CPU no other thread wants */
const WORKER_NICENESS = 19
const workerModule = new URL(`./history/deepGridWorker${extname(fileURLToPath(import.meta.url))}`, import.meta.url)

/** how long a failed build waits before the next try */
const RETRY_AFTER_FAILURE = Duration.minutes(10)

/** Why a read before the window cannot be answered yet. */
export class DeepHistoryNotReady {
  readonly _tag = "DeepHistoryNotReady"
  constructor(readonly message: string) {}
}

/**
 * The worker can rebuild the market's bars from the seed only when they are the plain simulator's
 * (a feed's fundamentals and news laid over it do not enter the grid's states).
 */
const workerCanBuild = (md: MarketReader) => baseOf(md.sim) instanceof MarketSimulator

/** Runs `work` on the event loop, giving other work a turn (setImmediate) after every 20 ms of it. */
const sliced = <A>(work: Generator<void, A>): Effect.Effect<A, Error> =>
  Effect.gen(function* () {
    for (;;) {
      const start = performance.now()
      let step = work.next()
      while (!step.done && performance.now() - start < 20) step = work.next()
      if (step.done) return step.value
      yield* yieldToEventLoop
    }
  }).pipe(Effect.catchAllDefect((e) => Effect.fail(e as Error)))

const keyOf = (md: MarketReader) => deepGridKey(md.options.seed, md.deepGridSpec())

export class DeepHistory extends Effect.Service<DeepHistory>()("vigil/DeepHistory", {
  scoped: Effect.gen(function* () {
    const market = yield* Market
    const config = yield* AppConfig
    const dir = join(config.dataDir, "history")
    const wanted = yield* Deferred.make<void>()
    // runners serve no /v2: they never read the years before the window
    if (config.deepHistory === "eager" && config.role !== "runner") yield* Deferred.succeed(wanted, undefined)
    const gate = makeShareGate()
    let urgent = false
    let laid: DeepGridFile | undefined
    let lastFailure: string | undefined
    let lastBuildSeconds: number | undefined
    /** no build before this (epoch ms): set after a failed one */
    let retryAt = 0
    const buildLock = yield* Effect.makeSemaphore(1)

    const build = (md: MarketReader, key: string): Effect.Effect<DeepGridMeta, Error> => {
      const spec = md.deepGridSpec()
      if (!workerCanBuild(md)) {
        // a replayed market: its bars come from a file the worker does not have; built here, in slices
        return sliced(writeDeepGridFile(dir, key, spec))
      }
      const imported: Array<[number, ReturnType<typeof spec.imported> & object]> = []
      for (let i = 0; i < md.size; i++) {
        const bars = spec.imported(i)
        if (bars !== undefined && bars.length > 0) imported.push([i, bars])
      }
      const input: DeepGridWorkerInput = {
        seed: md.options.seed,
        tickers: md.tickers,
        firstDay: spec.firstDay,
        imported,
        origin: spec.origin,
        every: spec.every,
        toDay: spec.toDay,
        dir,
        key,
        niceness: WORKER_NICENESS,
        gate: gate.buffer
      }
      return runWorker<DeepGridMeta>("deep history worker", workerModule, input).pipe(
        Effect.raceFirst(paceByEventLoop(gate, () => urgent))
      )
    }

    /** Lays the grid of this market kept in the data directory, if there is one: whether one is laid now. */
    const tryOpen = (md: MarketReader): Effect.Effect<boolean> =>
      Effect.gen(function* () {
        const key = keyOf(md)
        if (laid !== undefined && laid.key === key && md.deepGrid === laid) return true
        mkdirSync(dir, { recursive: true })
        const file = openDeepGridFile(dir, key)
        if (file === undefined) return false
        const adopted = yield* market.adoptDeepGrid(file, keyOf).pipe(Effect.orElseSucceed(() => false))
        if (!adopted) {
          file.close()
          return false
        }
        const previous = laid
        laid = file
        if (previous !== undefined && previous !== file) previous.close()
        lastFailure = undefined
        return true
      })

    /** Lays the grid this market needs: opened from the data directory, or built first (one build at a time). */
    const sync = buildLock.withPermits(1)(
      Effect.gen(function* () {
        const loaded = yield* Effect.option(market.data)
        if (loaded._tag === "None") return
        const md = loaded.value
        const current = md.deepGrid
        // as the window moves on, a grid more than one grid step short of it is built again
        if (current !== undefined && md.wholeMarketFrom - 1 - current.meta.toDay <= current.meta.every) return
        if (yield* tryOpen(md)) return
        const started = yield* Clock.currentTimeMillis
        // after a failed build, the next try waits (a disk that is full stays full for a while)
        if (started < retryAt) return
        yield* Effect.logInfo("building the whole market's history before the window").pipe(
          Effect.annotateLogs({
            from: isoDate(HISTORY_START_DAY),
            to: isoDate(md.wholeMarketFrom - 1),
            tickers: md.size
          })
        )
        yield* build(md, keyOf(md))
        const opened = yield* tryOpen(md)
        const seconds = ((yield* Clock.currentTimeMillis) - started) / 1000
        lastBuildSeconds = seconds
        yield* Effect.logInfo("the whole market's history before the window is built").pipe(
          Effect.annotateLogs({ seconds, laid: opened })
        )
      })
    )

    yield* Deferred.await(wanted).pipe(
      Effect.zipRight(
        // the current snapshot first (a SubscriptionRef's changes start with it), then every refresh
        market.changes.pipe(
          Stream.runForEach(() =>
            sync.pipe(
              Effect.catchAllCause((cause) =>
                Clock.currentTimeMillis.pipe(
                  Effect.flatMap((now) =>
                    Effect.sync(() => {
                      lastFailure = String(cause)
                      retryAt = now + Duration.toMillis(RETRY_AFTER_FAILURE)
                    })
                  ),
                  Effect.zipRight(Effect.logError("building the whole market's history failed", cause))
                )
              )
            )
          )
        )
      ),
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() => Effect.sync(() => laid?.close()))
    yield* registerScrapeGauge(
      "market_deep_history_ready",
      "1 when the whole market's history before the window (as-of reads since 2003) is laid over the market, 0 while it is not (built on first use, being built, or failed)",
      Effect.map(Effect.option(market.data), (md) => (md._tag === "Some" && md.value.deepGrid !== undefined ? 1 : 0))
    )
    yield* registerScrapeGauge(
      "market_deep_history_build_seconds",
      "Seconds the last build of the whole market's history before the window took (absent until one ran in this process)",
      Effect.sync(() => lastBuildSeconds)
    )

    return {
      /**
       * Succeeds when an as-of read of `day` can be answered: on or after the window's first
       * whole-market day, before 2003 (no ticker has a state there), or with the grid laid.
       * Otherwise asks for the grid (at full speed) and fails with why.
       */
      readable: (md: MarketReader, day: number): Effect.Effect<void, DeepHistoryNotReady> =>
        day >= md.wholeMarketFrom || day < HISTORY_START_DAY || md.deepGrid !== undefined
          ? Effect.void
          : Effect.gen(function* () {
              // kept in the data directory from an earlier start (and not laid yet: the build is lazy)
              if (yield* tryOpen(md)) return
              yield* Deferred.succeed(wanted, undefined)
              urgent = true
              return yield* Effect.fail(
                new DeepHistoryNotReady(
                  lastFailure === undefined
                    ? `the whole market's daily history before ${isoDate(md.wholeMarketFrom)} is being built (a few minutes after a first start); retry shortly`
                    : "the whole market's daily history before the window could not be built; the operator has the log"
                )
              )
            }),
      /** Lays the grid now (tests, benchmarks): opened or built as the background would. */
      ensure: Effect.zipRight(Deferred.succeed(wanted, undefined), sync),
      retryAfter: Duration.seconds(15)
    } as const
  })
}) {}
