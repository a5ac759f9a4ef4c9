/**
 * The whole service as one layer: configuration → storage → services → HTTP.
 * Startup work that may take a while (migrations, the first market snapshot)
 * runs in the background while `/readyz` answers 503; a failure there is fatal.
 * On a first start of the embedded store the database is created in a worker
 * thread while the market loads (a new database holds no imported bars, so the
 * market need not wait for it); `/readyz` still waits for both.
 */
import { Deferred, Effect, Layer, Logger, LogLevel, Option, Redacted, RuntimeFlags, RuntimeFlagsPatch } from "effect"
import { Accounts } from "./accounts/Accounts.js"
import { AuthChangesLive } from "./accounts/authChanges.js"
import { DashboardSessions } from "./accounts/DashboardSessions.js"
import { Users } from "./accounts/Users.js"
import { Alerts } from "./alerts/Alerts.js"
import { AlertsClient } from "./alerts/client.js"
import { EventRetentionLive } from "./alerts/eventRetention.js"
import { SlicesPlaced } from "./alerts/ownership.js"
import { RunnerPlacementLive } from "./alerts/placement.js"
import { Cursors } from "./api/cursor.js"
import { RunnerServerLive, ServerLive } from "./api/server.js"
import { AppConfig, type AppConfigShape, type Role } from "./config/AppConfig.js"
import { PushGateway } from "./delivery/push.js"
import { DeliveryTransport } from "./delivery/transport.js"
import { DeliveryWake } from "./delivery/wake.js"
import { DeliveryWorker } from "./delivery/worker.js"
import { Fatal } from "./Fatal.js"
import { DeepHistory } from "./market/DeepHistory.js"
import { walkHelperReady } from "./market/history/walkHelper.js"
import { Market } from "./market/Market.js"
import { type Tickers, TickersLive } from "./market/tickers/index.js"
import { jsonLinesLogger } from "./observability/logSink.js"
import { Readiness } from "./observability/Readiness.js"
import { RateLimiterLive } from "./ratelimit/RateLimiter.js"
import { CustomSignalsLive } from "./store/customSignals.js"
import { DatabaseLive } from "./store/Database.js"
import { Deliveries } from "./store/deliveries.js"
import { EvaluatorState } from "./store/evaluatorState.js"
import { ImportedBars } from "./store/importedBars.js"
import { FollowTicksLive, MarketStoreLive } from "./store/marketStore.js"
import { runMigrations } from "./store/migrate.js"
import { RedisLive } from "./store/Redis.js"
import { Rules } from "./store/rules.js"
import { Ticks } from "./store/ticks.js"
import { Universes } from "./store/universes.js"
import { WebhookEvents } from "./store/webhookEvents.js"
import { Webhooks } from "./store/webhooks.js"

const MigrationsLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const readiness = yield* Readiness
    const fatal = yield* Fatal
    yield* runMigrations.pipe(
      Effect.tap((ran) => Effect.logInfo("migrations applied").pipe(Effect.annotateLogs({ ran: ran.length }))),
      Effect.zipRight(readiness.markReady("migrations")),
      Effect.catchAllCause((cause) =>
        Effect.logError("migrations failed", cause).pipe(
          Effect.zipRight(Deferred.fail(fatal, new Error("migrations failed")))
        )
      ),
      Effect.forkScoped
    )
  })
)

/**
 * Subscriptions: the evaluator with its actors, and the delivery workers. Both
 * start once the migrations ran (they read their tables from the start).
 */
const PushGatewayLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Option.match(config.pushGatewayUrl, {
      onNone: () => PushGateway.recording,
      onSome: (url) => PushGateway.http(Redacted.value(url))
    })
  )
)

const AlertsLive = Layer.mergeAll(Alerts.Default, DeliveryWorker.Default, EventRetentionLive).pipe(
  Layer.provideMerge(Layer.mergeAll(DeliveryWake.Default, DeliveryTransport.layer, PushGatewayLive))
)

/** A runner's: the same, holding the slices the cluster places on it (`placement.ts`). */
const RunnerAlertsLive = RunnerPlacementLive.pipe(
  Layer.provideMerge(AlertsLive),
  Layer.provide(Layer.succeed(SlicesPlaced, true))
)

/**
 * The stores and services every role reads (over the database, Redis and the readiness gate).
 * `followTicks`: the market refreshes to the ticks in the store (a split deployment), not on its
 * own clock.
 */
const foundation = <A, E, R>(tickers: Layer.Layer<Tickers>, top: Layer.Layer<A, E, R>, followTicks: boolean) =>
  top.pipe(
    Layer.provide(DeepHistory.Default),
    Layer.provide(
      (followTicks ? Market.Default.pipe(Layer.provide(FollowTicksLive)) : Market.Default).pipe(
        Layer.provide(MarketStoreLive)
      )
    ),
    Layer.provide(RateLimiterLive),
    Layer.provide(
      Layer.mergeAll(
        // the dashboard's sessions over its users over the accounts (one Accounts: one key cache)
        Layer.mergeAll(DashboardSessions.Default, Users.Default).pipe(
          Layer.provideMerge(Accounts.Default.pipe(Layer.provide(AuthChangesLive)))
        ),
        ImportedBars.Default,
        MigrationsLive,
        tickers,
        Universes.Default,
        Rules.Default,
        Webhooks.Default,
        EvaluatorState.Default,
        Ticks.Default,
        Deliveries.Default,
        WebhookEvents.Default,
        Cursors.layer,
        CustomSignalsLive
      )
    ),
    Layer.provideMerge(Readiness.Default),
    Layer.provide(Layer.mergeAll(DatabaseLive, RedisLive))
  )

/**
 * What a process runs, by `VIGIL_ROLE` (operator contract): `all` the HTTP API, the evaluator
 * with its actors and the delivery workers; `api` the HTTP API alone (runners pick up its
 * changes from the store, `AlertsClient`); `runner` the evaluator and the delivery workers,
 * with only the probes and metrics on PORT. On PostgreSQL (`shared`) an `all` process is also a
 * cluster runner, so any number of them share the webhook slices; on the embedded store it holds
 * them all and refreshes on its own clock.
 */
const roleLayer = (role: Role, shared: boolean, tickers: Layer.Layer<Tickers>) => {
  switch (role) {
    case "all":
      // on PostgreSQL a runner too (several `all` processes share the slices, as runners do); on
      // the embedded store the one process holds every slice
      return shared
        ? foundation(tickers, ServerLive.pipe(Layer.provideMerge(RunnerAlertsLive)), true)
        : foundation(tickers, ServerLive.pipe(Layer.provideMerge(AlertsLive)), false)
    case "api":
      return foundation(
        tickers,
        ServerLive.pipe(Layer.provideMerge(Layer.merge(AlertsClient, DeliveryWake.Default))),
        true
      )
    case "runner":
      return foundation(tickers, RunnerServerLive.pipe(Layer.provideMerge(RunnerAlertsLive)), true)
  }
}

/**
 * The service over a ticker directory: `npm start`'s is the seed's 13,047 tickers (`TickersLive`);
 * tests that run the service in their own process may give a smaller one.
 */
export const appOver = (tickers: Layer.Layer<Tickers>) =>
  Layer.unwrapEffect(
    Effect.map(AppConfig, (config) => roleLayer(config.role, Option.isSome(config.databaseUrl), tickers))
  )

/**
 * Where requests are served, the walk helper (`market/history/walkHelper.ts`) loads once the market is
 * ready: the first whole-market dry-run or backtest then shares its walk with it from its start.
 */
const WalkHelperLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const readiness = yield* Readiness
    if (config.role === "runner") return
    yield* readiness.await("market_snapshot").pipe(
      Effect.zipRight(Effect.promise(() => walkHelperReady())),
      Effect.tap((ready) =>
        ready ? Effect.void : Effect.logWarning("the walk helper thread did not start: walks go on alone")
      ),
      Effect.forkScoped
    )
  })
)

/** The whole service over a ticker directory, the walk helper included: `npm start`'s is `AppLive`. */
export const serviceOver = (tickers: Layer.Layer<Tickers>) => WalkHelperLive.pipe(Layer.provideMerge(appOver(tickers)))

export const AppLive = serviceOver(TickersLive)

const levels = { debug: LogLevel.Debug, info: LogLevel.Info, warning: LogLevel.Warning, error: LogLevel.Error }

/**
 * Runs the service on `config` until it is interrupted or a step of its start fails (`Fatal`),
 * logging JSON lines at the configured level. `npm start` runs it (main.ts), and so do tests that
 * run the service in their own process.
 */
export const runApp = (config: AppConfigShape, app: Layer.Layer<never, unknown, AppConfig | Fatal> = AppLive) =>
  Effect.gen(function* () {
    const fatal = yield* Deferred.make<never, Error>()
    yield* Layer.launch(
      app.pipe(Layer.provide(Layer.succeed(AppConfig, config)), Layer.provide(Layer.succeed(Fatal, fatal)))
    ).pipe(Effect.raceFirst(Deferred.await(fatal)))
  }).pipe(
    // spans are made for nobody (no tracer exports them): @effect/sql opens one per statement
    Effect.withTracerEnabled(false),
    // Effect's fiber metrics (effect_fiber_started, _active, _successes, _failures, _lifetimes) on /metrics
    Effect.withRuntimeFlagsPatch(RuntimeFlagsPatch.enable(RuntimeFlags.RuntimeMetrics)),
    Logger.withMinimumLogLevel(levels[config.logLevel]),
    Effect.provide(jsonLinesLogger)
  )
