/**
 * The market as a service: builds the history in the background at start
 * (the HTTP server answers meanwhile, `/readyz` 503), then runs its ingest —
 * one stream of the Clock's refresh ticks (every REFRESH_INTERVAL; in a split
 * deployment, the refresh ticks in the store, `followTicks.ts`) merged with
 * what a live feed pushes (`push`: completed bars, trades, fundamentals, news; `ingest/events.ts`)
 * — applying each in turn and publishing every new immutable snapshot.
 * Ingest, manual refreshes and imports are serialized.
 */

import {
  Clock,
  Data,
  Deferred,
  Duration,
  Effect,
  Metric,
  Option,
  Queue,
  Schedule,
  Stream,
  SubscriptionRef
} from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { yieldToEventLoop } from "../eventLoop.js"
import { Fatal } from "../Fatal.js"
import { Readiness } from "../observability/Readiness.js"
import { registerScrapeGauge } from "../observability/scrapeGauges.js"
import { type DeepGridReader, type ImportSummary, MarketData, type MarketReader } from "./engine/MarketData.js"
import { FollowTicks, TICK_POLL_MS, TICK_WAIT_MS } from "./followTicks.js"
import { FEED_QUEUE, type MarketEvent } from "./ingest/events.js"
import { feedApplier } from "./ingest/feed.js"
import { refreshDuration, refreshesTotal, snapshotTickers } from "./ingest/metrics.js"
import { MarketBars, MarketFeedInputs, MarketFeedSwitch, type RefreshTick as Tick } from "./ports.js"
import type { Snapshot } from "./snapshot.js"
import type { ParsedBar } from "./sources/csvBars.js"
import { replayFromFile } from "./sources/replayFile.js"
import { type TickerMeta, Tickers } from "./tickers/index.js"

export class MarketNotReady extends Data.TaggedError("MarketNotReady")<{ readonly message: string }> {}
export class ImportRejected extends Data.TaggedError("ImportRejected")<{ readonly message: string }> {}

/** refresh intervals without new data after which the data is stale */
export const STALE_AFTER_INTERVALS = 3

/** data applied at `dataAsOf` is stale at `now`: more than 3 refresh intervals old */
export const isStale = (now: number, dataAsOf: number, intervalMs: number): boolean =>
  now - dataAsOf > STALE_AFTER_INTERVALS * intervalMs

export class Market extends Effect.Service<Market>()("vigil/Market", {
  scoped: Effect.gen(function* () {
    const config = yield* AppConfig
    const readiness = yield* Readiness
    const importedBars = yield* MarketBars
    const feedInputs = yield* MarketFeedInputs
    const fatal = yield* Fatal
    yield* readiness.require("market_snapshot")

    const directory = yield* Tickers
    const tickers: ReadonlyArray<TickerMeta> = directory.all
    const current = yield* SubscriptionRef.make<Option.Option<Snapshot>>(Option.none())
    let market: MarketData | undefined
    const lock = yield* Effect.makeSemaphore(1)
    const following = Option.getOrUndefined(yield* Effect.serviceOption(FollowTicks))
    const feed = yield* MarketFeedSwitch
    const intervalMs = Duration.toMillis(config.refreshInterval)
    /** the feed is paused (`POST /admin/feed/pause`): ticks go on, no new data is applied */
    const feedPaused = feed.paused.pipe(
      Effect.catchAllCause((cause) =>
        Effect.logWarning("market feed switch not read; applying data", cause).pipe(Effect.as(false))
      )
    )
    /** the tick each snapshot published for one was refreshed to (following ticks) */
    const tickOf = new WeakMap<Snapshot, Tick>()
    let lastTick: Tick | undefined
    /** the last import (`market_imports`) this market holds (following ticks) */
    let importsApplied = 0

    // counts publications; moved *after* the new snapshot is visible, so a reader that saw the
    // same count before and after reading the snapshot read that count's snapshot (or a newer one)
    let publications = 0
    let published: Snapshot | undefined
    const publish = (snapshot: Snapshot) =>
      SubscriptionRef.set(current, Option.some(snapshot)).pipe(
        Effect.zipRight(
          Effect.sync(() => {
            published = snapshot
            publications++
          })
        ),
        Effect.zipRight(Metric.set(snapshotTickers, snapshot.size)),
        Effect.zipRight(Metric.increment(refreshesTotal))
      )

    const build = Effect.gen(function* () {
      if (following !== undefined) {
        // read before the bars: an import logged meanwhile is applied again, harmlessly
        importsApplied = yield* readiness.await("migrations").pipe(Effect.zipRight(following.importsVersion))
      }
      // a database this start creates holds none: the market loads while it is created
      const imported: ReadonlyMap<string, ReadonlyArray<ParsedBar>> = yield* importedBars.initial
      const feed = yield* feedInputs.initial
      const now = yield* Clock.currentTimeMillis
      const started = now
      /** the load's phase and tenth reached (`onProgress`), logged once each */
      let progress = { key: "", phase: "", percent: 0 }
      let logged = ""
      const source = Option.isSome(config.replay) ? yield* replayFromFile(config.replay.value, directory) : undefined
      const md = new MarketData({
        source,
        seed: config.marketSeed,
        tickers,
        historyDays: config.historyDays,
        minuteHistoryDays: config.minuteHistoryDays,
        imported,
        feed,
        now,
        onProgress: (phase, done, total) => {
          const percent = Math.floor((done / Math.max(1, total)) * 10) * 10
          progress = { key: `${phase}:${percent}`, phase, percent }
        }
      })
      const work = md.load()
      // the load yields to the event loop after every 20 ms of its work: a slice of real time by
      // nature (performance.now, monotonic), not of the Clock — under a TestClock it would never yield
      let slice = performance.now()
      for (;;) {
        const step = work.next()
        if (progress.key !== logged) {
          logged = progress.key
          yield* Effect.logInfo("market loading").pipe(
            Effect.annotateLogs({ phase: progress.phase, percent: progress.percent })
          )
        }
        if (step.done) {
          market = md
          yield* publish(step.value)
          break
        }
        if (performance.now() - slice > 20) {
          yield* yieldToEventLoop
          slice = performance.now()
        }
      }
      yield* readiness.markReady("market_snapshot")
      yield* Effect.logInfo("market ready").pipe(
        Effect.annotateLogs({
          tickers: md.size,
          history_days: config.historyDays,
          window_start: md.windowStart,
          imported_tickers: imported.size,
          seconds: ((yield* Clock.currentTimeMillis) - started) / 1000
        })
      )
    })

    const applyRefresh = Effect.gen(function* () {
      if (market === undefined) return yield* new MarketNotReady({ message: "the market is still loading" })
      const md = market
      // paused: no new data, nothing published (nothing to evaluate against it)
      if (yield* feedPaused) return published ?? md.latest
      const now = yield* Clock.currentTimeMillis
      const started = performance.now()
      const snapshot = md.refresh(now)
      yield* Metric.update(refreshDuration, (performance.now() - started) / 1000)
      yield* publish(snapshot)
      return snapshot
    })

    /**
     * Following ticks: applies the imports logged up to the tick's, then refreshes to its `as_of`
     * and publishes (undefined when this market is already past it: built after it was issued).
     */
    const advance = (tick: Tick) =>
      Effect.gen(function* () {
        const md = market
        if (md === undefined || following === undefined) return undefined
        if (tick.imports > importsApplied) {
          const imported = yield* following.importedSince(importsApplied, tick.imports)
          const tickers = [...imported.bars]
          const bars = yield* importedBars.load(tickers)
          const told = [...imported.inputs]
          const inputs = yield* feedInputs.load(told)
          // first: an import refreshes the market to the tick (its fundamentals and news read then)
          md.reloadFeedInputs(told, inputs)
          yield* Effect.try(() => md.importBars(bars, Math.max(tick.asOf, md.latest.asOf))).pipe(
            Effect.catchAll((e) =>
              Effect.logWarning("imported bars could not be applied").pipe(
                Effect.annotateLogs({ error: String(e.error), tickers })
              )
            )
          )
          importsApplied = tick.imports
        }
        // the tick is seen (`lastTick`, what `requestTick` waits for) once its snapshot is published: a
        // failed read (the import log, the feed switch) retries it, and a caller woken by it reads the
        // tick's snapshot, never the one before (the feed switch's read yields in between)
        if (tick.asOf < md.latest.asOf) {
          lastTick = tick
          return undefined
        }
        if (yield* feedPaused) {
          // no new data: the tick goes on with the snapshot held (evaluators see it stale and skip it)
          const held = published ?? md.latest
          tickOf.set(held, tick)
          yield* publish(held)
          lastTick = tick
          return held
        }
        const started = performance.now()
        const snapshot = tick.asOf === md.latest.asOf ? md.latest : md.refresh(tick.asOf)
        yield* Metric.update(refreshDuration, (performance.now() - started) / 1000)
        tickOf.set(snapshot, tick)
        yield* publish(snapshot)
        lastTick = tick
        return snapshot
      })

    /** following ticks: a new tick in the store → the market refreshed to it → published */
    const followTick = (ticks: NonNullable<typeof following>) =>
      Effect.gen(function* () {
        const tick = yield* ticks.latest
        if (tick !== undefined && tick.seq > (lastTick?.seq ?? 0)) yield* advance(tick)
      })

    /**
     * Following ticks, a refresh asked for here: a request the tick singleton answers with its next
     * tick; the snapshot once this market has refreshed to that tick (or a later one).
     */
    const requestTick = (ticks: NonNullable<typeof following>) =>
      Effect.gen(function* () {
        if (market === undefined) return yield* new MarketNotReady({ message: "the market is still loading" })
        const request = yield* ticks.requestRefresh(yield* Clock.currentTimeMillis)
        const deadline = (yield* Clock.currentTimeMillis) + TICK_WAIT_MS
        while ((lastTick?.request ?? 0) < request) {
          if ((yield* Clock.currentTimeMillis) > deadline) {
            return yield* new MarketNotReady({
              message: `no refresh tick answered within ${TICK_WAIT_MS / 1000} s: is a runner (VIGIL_ROLE=runner) running?`
            })
          }
          yield* Effect.sleep(Duration.millis(TICK_POLL_MS / 2))
        }
        return published ?? market.latest
      }).pipe(
        Effect.catchTag("SqlError", (e) =>
          Effect.fail(new MarketNotReady({ message: `the refresh could not be asked for: ${e.message}` }))
        )
      )

    /** validates, stores and applies imported bars (all or nothing), then publishes; under the lock */
    const importNow = (byTicker: ReadonlyMap<string, ReadonlyArray<ParsedBar>>) =>
      Effect.gen(function* () {
        const md = yield* ready
        // following ticks the market stays at its tick's as_of (the next tick moves it on)
        const now = following === undefined ? yield* Clock.currentTimeMillis : md.latest.asOf
        yield* Effect.try({
          try: () => md.validateImport(byTicker, now),
          catch: (e) => new ImportRejected({ message: (e as Error).message })
        })
        yield* importedBars.replace(byTicker)
        const summary: ImportSummary = md.importBars(byTicker, now)
        yield* publish(md.latest)
        return summary
      })

    const { applyEvent, storeQuoteBars } = feedApplier({
      market: () => market,
      importNow,
      inputs: feedInputs,
      paused: feedPaused,
      following: following !== undefined
    })

    /** what the ingest applies: the Clock's (or the store's) refresh ticks, and the feed's events */
    type Ingest = MarketEvent | { readonly _tag: "Advance" }
    const fed = yield* Queue.bounded<MarketEvent>(FEED_QUEUE)
    yield* Effect.addFinalizer(() => Queue.shutdown(fed))
    // on the Clock every refresh interval; following ticks, every poll of the store's
    const advances: Stream.Stream<Ingest> = Stream.fromSchedule(
      Schedule.spaced(following === undefined ? config.refreshInterval : Duration.millis(TICK_POLL_MS))
    ).pipe(Stream.as({ _tag: "Advance" as const }))
    const applyIngest = (event: Ingest) => {
      const step: Effect.Effect<unknown, unknown> =
        event._tag !== "Advance"
          ? applyEvent(event)
          : following === undefined
            ? Effect.zipRight(applyRefresh, storeQuoteBars)
            : followTick(following)
      return lock
        .withPermits(1)(step)
        .pipe(
          Effect.asVoid,
          Effect.catchAllCause((cause) =>
            Effect.logError(event._tag === "Advance" ? "market refresh failed" : "market feed event failed", cause)
          )
        )
    }
    // the ingest pipeline: refresh ticks and the feed's events → the market moved → published
    const ingest = Stream.merge(advances, Stream.fromQueue(fed)).pipe(Stream.mapEffect(applyIngest), Stream.runDrain)

    yield* build.pipe(
      Effect.zipRight(ingest),
      Effect.catchAllCause((cause) =>
        Effect.logError("market failed", cause).pipe(Effect.zipRight(Deferred.fail(fatal, new Error("market failed"))))
      ),
      Effect.forkScoped
    )

    const ready = Effect.suspend(() =>
      market === undefined
        ? Effect.fail(new MarketNotReady({ message: "the market is still loading; retry shortly" }))
        : Effect.succeed(market)
    )

    /** what readers get: the market data without its refresh and import */
    const readOnly: Effect.Effect<MarketReader, MarketNotReady> = ready

    yield* registerScrapeGauge(
      "market_data_age_seconds",
      "Now minus the time of the market data applied last (grows while the feed is paused or stalled)",
      Effect.map(Clock.currentTimeMillis, (now) =>
        published === undefined ? undefined : (now - published.asOf) / 1000
      )
    )

    return {
      /** the latest published live snapshot */
      latest: Effect.flatMap(SubscriptionRef.get(current), (s) =>
        Option.match(s, {
          onNone: () => Effect.fail(new MarketNotReady({ message: "the market is still loading; retry shortly" })),
          onSome: Effect.succeed
        })
      ),
      /** every snapshot published from now on */
      changes: current.changes.pipe(Stream.filterMap((s) => s)),
      /** the loaded market data (history reads), read-only: only this service refreshes it or imports into it */
      data: readOnly,
      /**
       * The data's freshness: the time of the market data applied last, and `stale` — no new data
       * for more than 3 refresh intervals (crypto trades around the clock, so a session is always
       * open for part of the market).
       */
      freshness: Effect.map(Clock.currentTimeMillis, (now) => {
        const dataAsOf = published?.asOf
        return { dataAsOf, stale: dataAsOf !== undefined && isStale(now, dataAsOf, intervalMs) }
      }),
      /** pauses or resumes the feed, for every process (the store holds the switch) */
      setFeedPaused: (paused: boolean) => feed.set(paused),
      /** applies one refresh now and answers once its snapshot is published */
      refreshNow: following === undefined ? lock.withPermits(1)(applyRefresh) : requestTick(following),
      /** the refresh tick `snapshot` was refreshed to (following ticks; undefined otherwise) */
      tickOf: (snapshot: Snapshot): Tick | undefined => tickOf.get(snapshot),
      /** validates, stores and applies imported bars (all or nothing) */
      importBars: (byTicker: ReadonlyMap<string, ReadonlyArray<ParsedBar>>) => lock.withPermits(1)(importNow(byTicker)),
      /**
       * Pushes a live feed's event into the ingest (`ingest/events.ts`): applied in turn with the
       * refresh ticks; waits while `FEED_QUEUE` events are ahead of it.
       */
      push: (event: MarketEvent): Effect.Effect<void> => Queue.offer(fed, event).pipe(Effect.asVoid),
      /**
       * Lays bars already stored over the live market, without storing them again: the bulk
       * import (`POST /admin/import`) stores each file itself, then hands over the bars it read
       * back (split-adjusted) that fall within the market's window (issue 17)
       */
      applyStored: (byTicker: ReadonlyMap<string, ReadonlyArray<ParsedBar>>) =>
        lock.withPermits(1)(
          Effect.gen(function* () {
            const md = yield* ready
            const now = following === undefined ? yield* Clock.currentTimeMillis : md.latest.asOf
            const summary = yield* Effect.try({
              try: (): ImportSummary => md.importBars(byTicker, now),
              catch: (e) => new ImportRejected({ message: (e as Error).message })
            })
            yield* publish(md.latest)
            return summary
          })
        ),
      /**
       * Lays a whole-market grid of the years before the window over the market (`DeepHistory`),
       * unless what it was built from changed meanwhile (an import): `keyOf` names what the market
       * is now. Answers whether it was laid.
       */
      adoptDeepGrid: (grid: DeepGridReader & { readonly key: string }, keyOf: (md: MarketReader) => string) =>
        lock.withPermits(1)(
          Effect.map(ready, (md) => {
            if (keyOf(md) !== grid.key) return false
            md.adoptDeepGrid(grid)
            return true
          })
        ),
      tickers,
      directory,
      refreshInterval: Duration.toMillis(config.refreshInterval),
      /** how many snapshots were published so far (0 while the market loads): what a response cache keys on */
      publications: (): number => publications,
      /** `latest` read without a fiber (the request path's direct answers): undefined while the market loads */
      latestNow: (): Snapshot | undefined => published,
      /** `data` read without a fiber: undefined while the market loads */
      dataNow: (): MarketReader | undefined => market
    } as const
  })
}) {}
