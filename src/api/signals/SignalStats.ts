/**
 * The flags of every ticker on every day, kept current in the background for
 * the events and stats endpoints (see `FlagHistory`).
 *
 * Once the market has loaded, its whole history is walked once: in a worker
 * thread (`buildFlagHistoryInWorker`; about 30–45 s of CPU on the full market,
 * which on the event loop cut the requests served in the first minute after
 * ready by more than ten times), or, for a market whose inputs a worker cannot
 * rebuild (or when the worker fails), in the background on the event loop.
 * The worker takes the CPU while the request thread is idle and a twentieth of
 * it while requests keep the thread busy (`paceByEventLoop`), all of it again
 * as soon as a request for these endpoints is answered 503 for want of it.
 * After that every published snapshot triggers a `sync`, which costs nothing
 * until a session closes (its final bars are added: one preview per ticker)
 * or bars are imported (the imported tickers' histories are walked again).
 * Work on the event loop that nobody waits for runs in short slices with a
 * bounded share of the loop (`runInBackground`). Until the data an endpoint
 * needs is current, it answers 503 `service_unavailable` with Retry-After.
 *
 * SIGNAL_FLAG_HISTORY=lazy defers the first build to the first request that
 * needs it (for processes that never serve these endpoints, e.g. test servers
 * of other features); the default `eager` starts it when the market is ready.
 *
 * Computations on demand (stats of numeric conditions and custom signals)
 * also run here, in slices and one at a time, so that a burst of them cannot
 * starve the rest of the service.
 */
import { Clock, Deferred, Duration, Effect, Stream } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import { yieldToEventLoop } from "../../eventLoop.js"
import type { MarketReader } from "../../market/engine/MarketData.js"
import { buildFlagHistoryInWorker, workerCanBuild } from "../../market/history/buildFlagHistory.js"
import { FlagHistory } from "../../market/history/flagHistory.js"
import { Market } from "../../market/Market.js"
import { makeShareGate, paceByEventLoop } from "../../workerShare.js"
import { ServiceUnavailable } from "../errors.js"

/** CPU time of one slice before the event loop gets a turn. */
const SLICE_MS = 15

const millis = (clock: Clock.Clock) => Number(clock.unsafeCurrentTimeNanos()) / 1e6

/** Runs a work generator to its end, giving the event loop a turn every SLICE_MS of work (Effect Clock). */
export const runSliced = <A>(work: Generator<void, A>): Effect.Effect<A> =>
  Effect.clockWith((clock) =>
    Effect.gen(function* () {
      let slice = millis(clock)
      for (;;) {
        const step = work.next()
        if (step.done) return step.value
        if (millis(clock) - slice > SLICE_MS) {
          yield* yieldToEventLoop
          slice = millis(clock)
        }
      }
    })
  )

/** Background work on the event loop: slices of at most this long… */
export const BACKGROUND_SLICE_MS = 5
/** …and at most this share of the loop's time (the rest is the requests'). */
export const BACKGROUND_SHARE = 0.2

/**
 * Runs background work (that no request waits for) to its end on the event
 * loop, in slices of BACKGROUND_SLICE_MS, pausing after each so that the work
 * takes at most BACKGROUND_SHARE of the loop's time (Effect Clock).
 */
export const runInBackground = <A>(work: Generator<void, A>): Effect.Effect<A> =>
  Effect.clockWith((clock) =>
    Effect.gen(function* () {
      for (;;) {
        const start = millis(clock)
        let step = work.next()
        while (!step.done && millis(clock) - start < BACKGROUND_SLICE_MS) step = work.next()
        if (step.done) return step.value
        const busy = millis(clock) - start
        yield* Effect.sleep(Duration.millis((busy * (1 - BACKGROUND_SHARE)) / BACKGROUND_SHARE))
      }
    })
  )

export class SignalStats extends Effect.Service<SignalStats>()("vigil/SignalStats", {
  scoped: Effect.gen(function* () {
    const market = yield* Market
    const mode = (yield* AppConfig).signalFlagHistory
    const wanted = yield* Deferred.make<void>()
    if (mode === "eager") yield* Deferred.succeed(wanted, undefined)
    let history: FlagHistory | undefined
    let firstBuildSeconds: number | undefined
    const lock = yield* Effect.makeSemaphore(1)
    const onDemand = yield* Effect.makeSemaphore(1)
    const gate = makeShareGate()
    // a request has been refused for want of the first build: it runs at full speed from then on
    let awaited = false

    /** the first build: in a worker thread when it can rebuild the market's inputs, paced by the requests */
    const firstBuild = (md: MarketReader) =>
      workerCanBuild(md)
        ? buildFlagHistoryInWorker(md, { gate }).pipe(
            Effect.raceFirst(paceByEventLoop(gate, () => awaited)),
            Effect.catchAll((error) =>
              Effect.logWarning("signal flag history worker failed; building on the event loop", error).pipe(
                Effect.as(new FlagHistory(md.size, md.isCrypto))
              )
            )
          )
        : Effect.succeed(new FlagHistory(md.size, md.isCrypto))

    const sync = lock.withPermits(1)(
      Effect.gen(function* () {
        const md = yield* market.data
        const started = yield* Clock.currentTimeMillis
        const first = history?.counts === undefined
        const h = history ?? (yield* firstBuild(md))
        history = h
        // after a worker's build: what changed meanwhile (usually nothing)
        const changed = yield* runInBackground(h.sync(md))
        const seconds = ((yield* Clock.currentTimeMillis) - started) / 1000
        if (first) {
          firstBuildSeconds = seconds
          yield* Effect.logInfo("signal flag history ready").pipe(
            Effect.annotateLogs({ seconds, flags: h.flags.length, tickers: md.size })
          )
        } else if (changed) {
          yield* Effect.logDebug("signal flag history updated").pipe(Effect.annotateLogs({ seconds }))
        }
      })
    )

    yield* Deferred.await(wanted).pipe(
      Effect.zipRight(
        market.changes.pipe(
          Stream.runForEach(() =>
            sync.pipe(Effect.catchAllCause((cause) => Effect.logError("signal flag history sync failed", cause)))
          )
        )
      ),
      Effect.forkScoped
    )

    const notReady = (message: string) => new ServiceUnavailable({ message, details: { retry_after: 5 } })

    return {
      /**
       * The flag history, provided every ticker in `slots` (all when omitted)
       * is current with the market's series; 503 otherwise (first build at
       * start, or a rebuild after an import).
       */
      current: (md: MarketReader, slots?: ReadonlyArray<number>) =>
        Effect.zipRight(
          Deferred.succeed(wanted, undefined),
          Effect.suspend(() => {
            const h = history
            if (h === undefined || h.counts === undefined) {
              awaited = true
              return Effect.fail(
                notReady("signal statistics are being computed from the market history after a start; retry shortly")
              )
            }
            const stale = slots === undefined ? h.stale(md).length > 0 : slots.some((i) => !h.isCurrent(md, i))
            return stale
              ? Effect.fail(notReady("signal statistics are being recomputed after a bars import; retry shortly"))
              : Effect.succeed(h)
          })
        ),
      /** Runs an on-demand computation in slices, one at a time. */
      compute: <A>(work: () => Generator<void, A>) => onDemand.withPermits(1)(Effect.suspend(() => runSliced(work()))),
      /** Seconds the first build took (undefined until it finished). */
      firstBuildSeconds: Effect.sync(() => firstBuildSeconds)
    } as const
  })
}) {}
