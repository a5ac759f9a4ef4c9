/**
 * The alerts service: the webhook actors of this process, in their slices
 * (`roster.ts`), and the tick that evaluates them (`tick.ts`) on every
 * published snapshot — every one on the embedded store, where this process
 * holds every slice; on a runner, those of the refresh ticks its market
 * follows, for the slices the cluster placed here (`placement.ts`).
 * Evaluations, changes and moves are serialized by one lock. `evaluated`
 * tells `POST /admin/refresh` when a snapshot has been evaluated and its
 * fires queued; on a runner the answer waits for every slice, wherever it
 * is held (`refreshAnswer.ts`).
 */
import { Cause, Clock, Duration, Effect, Metric, Option, Schedule, Stream, SubscriptionRef } from "effect"
import { DeliveryWake } from "../delivery/wake.js"
import { Market } from "../market/Market.js"
import type { Snapshot } from "../market/snapshot.js"
import { registerScrapeGauge } from "../observability/scrapeGauges.js"
import type { CompiledQuery } from "../query/index.js"
import { EvaluatorState } from "../store/evaluatorState.js"
import { type Tick, Ticks } from "../store/ticks.js"
import { type Cadence, effectiveLastEvaluated, type WebhookRecord, Webhooks } from "../store/webhooks.js"
import { actorRestarts, type FaultHook } from "./actor.js"
import { newId } from "./ids.js"
import { SlicesPlaced } from "./ownership.js"
import { Pairs } from "./pairs.js"
import { awaitSlices } from "./refreshAnswer.js"
import { Roster } from "./roster.js"
import { ScopeRows } from "./scopes.js"
import { type EvaluationResult, TickEvaluator } from "./tick.js"
import { TickerIds } from "./tickerIds.js"

export type { EvaluationResult } from "./tick.js"

/** how often a runner looks for slices it took since the last tick (ms) */
const CATCH_UP_MS = 200

const evaluationFailures = Metric.counter("webhook_evaluation_failures_total", {
  description: "Evaluation ticks that failed (their changes are retried on the next tick)",
  incremental: true
})

/** a tick that took longer than this is logged with its phases (ms) */
const SLOW_TICK_MS = 1_000

const logIfSlow = (r: EvaluationResult) => {
  const p = r.phases
  if (p === undefined) return Effect.void
  const total = p.sync + p.evaluate + p.diff + p.persist
  if (total < SLOW_TICK_MS) return Effect.void
  return Effect.logWarning("slow webhook tick").pipe(
    Effect.annotateLogs({
      as_of: new Date(r.asOf).toISOString(),
      ms: Math.round(total),
      sync_ms: Math.round(p.sync),
      evaluate_ms: Math.round(p.evaluate),
      diff_ms: Math.round(p.diff),
      persist_ms: Math.round(p.persist),
      commit_ms: Math.round(p.commit),
      stepped: p.messaged,
      changed: p.changed,
      fires: r.fires
    })
  )
}

export class Alerts extends Effect.Service<Alerts>()("vigil/Alerts", {
  scoped: Effect.gen(function* () {
    const market = yield* Market
    const webhooks = yield* Webhooks
    const stateStore = yield* EvaluatorState
    const wake = yield* DeliveryWake
    const placed = Option.isSome(yield* Effect.serviceOption(SlicesPlaced))
    const ticks = placed ? Option.getOrUndefined(yield* Effect.serviceOption(Ticks)) : undefined
    const ids = new TickerIds()
    // the directory first, ascending: id order is ticker order
    for (const t of [...market.directory.all].map((m) => m.ticker).sort()) ids.idOf(t)
    const pairs = new Pairs((s) => market.directory.lookup(s)?.ticker)
    const roster = new Roster(stateStore, pairs, ids, placed ? new Set<number>() : "all")
    const evaluator = new TickEvaluator(
      roster,
      new ScopeRows(stateStore, market),
      stateStore,
      wake,
      newId("inst"),
      market.refreshInterval
    )
    const evaluated = yield* SubscriptionRef.make<EvaluationResult>({ asOf: 0, ok: true, evaluated: 0, fires: 0 })
    const lock = yield* Effect.makeSemaphore(1)

    yield* registerScrapeGauge(
      "webhook_tick_lag_seconds",
      "Now minus the as_of of the last webhook tick this process evaluated and committed",
      Effect.map(Clock.currentTimeMillis, (now) =>
        evaluator.lastCommitted === undefined ? undefined : (now - evaluator.lastCommitted) / 1000
      )
    )

    /** Evaluates one snapshot (serialized); a failure is logged and reported, its changes retried next tick. */
    const evaluate = (snapshot: Snapshot, tick?: Tick, only?: ReadonlySet<number>): Effect.Effect<EvaluationResult> =>
      lock.withPermits(1)(
        evaluator.evaluate(snapshot, tick, only).pipe(
          Effect.catchAllCause((cause) =>
            Effect.logError("webhook evaluation failed", cause).pipe(
              Effect.zipRight(Metric.increment(evaluationFailures)),
              Effect.as({
                asOf: snapshot.asOf,
                ok: false,
                evaluated: 0,
                fires: 0,
                error: Cause.pretty(cause)
              } satisfies EvaluationResult)
            )
          ),
          Effect.tap((r) => SubscriptionRef.set(evaluated, r)),
          Effect.tap((r: EvaluationResult) => (r.phases === undefined ? Effect.void : logIfSlow(r)))
        )
      )

    /**
     * Each published snapshot: one process holding every slice evaluates it; a runner evaluates
     * the snapshots of refresh ticks (its market follows them) for the slices the cluster gave it.
     */
    const onSnapshot = (snapshot: Snapshot) => {
      if (!placed) return evaluate(snapshot)
      const tick = market.tickOf(snapshot)
      if (tick === undefined) return Effect.void
      roster.taken = false
      return evaluate(snapshot, tick)
    }

    /**
     * Slices taken since the last tick that had not committed it evaluate it now: a moved slice
     * misses no tick, and one whose last holder committed it does not evaluate it again.
     */
    const catchUp = Effect.gen(function* () {
      if (!roster.taken || ticks === undefined) return
      const snapshot = market.latestNow()
      const tick = snapshot === undefined ? undefined : market.tickOf(snapshot)
      if (snapshot === undefined || tick === undefined) return
      roster.taken = false
      const stored = yield* ticks.sliceTicks
      const behind = new Set((roster.heldList() ?? []).filter((n) => (stored.get(n)?.seq ?? 0) < tick.seq))
      if (behind.size > 0) yield* evaluate(snapshot, tick, behind)
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("taken slices not caught up", cause)))

    /** waits until a snapshot at or after `asOf` has been evaluated; its result */
    const awaitEvaluated = (asOf: number) =>
      evaluated.changes.pipe(
        Stream.filter((r) => r.asOf >= asOf),
        Stream.runHead,
        Effect.map(Option.getOrThrow)
      )

    // start: the ticks recorded by earlier runs, then every published snapshot in turn
    const start = Effect.gen(function* () {
      const stored = yield* webhooks.ticks.pipe(Effect.orElseSucceed(() => new Map<Cadence, number>()))
      for (const [c, at] of stored) evaluator.lastCadence.set(c, at)
      yield* market.changes.pipe(Stream.mapEffect(onSnapshot), Stream.runDrain)
    })
    yield* Effect.forkScoped(
      start.pipe(Effect.catchAllCause((cause) => Effect.logError("webhook evaluator stopped", cause)))
    )
    if (placed) yield* Effect.forkScoped(Effect.repeat(catchUp, Schedule.spaced(Duration.millis(CATCH_UP_MS))))

    return {
      evaluate,
      awaitEvaluated,
      /**
       * After this process's market published `snapshot` (`POST /admin/refresh`): its evaluation
       * here, or — slices placed by the cluster — every slice's, whichever runner holds it.
       */
      afterRefresh: (snapshot: Snapshot): Effect.Effect<EvaluationResult> =>
        ticks === undefined ? awaitEvaluated(snapshot.asOf) : awaitSlices(ticks, market, snapshot),
      /**
       * applies a webhook row changed through this process now (others pick changes up on the next
       * tick); `compiled`: its q compiled without custom signals, if the caller has it (not compiled again)
       */
      changed: (w: WebhookRecord, compiled?: CompiledQuery) =>
        lock.withPermits(1)(Effect.zipRight(roster.apply(w, false, compiled), roster.gauges)),
      /** picks up every webhook change from the store now */
      resync: lock.withPermits(1)(roster.sync),
      /** the slices this process evaluates from now on ("all", or a set; `Roster.own`) */
      own: (slices: ReadonlySet<number> | "all") => lock.withPermits(1)(roster.own(slices)),
      /** forgets a deleted webhook */
      deleted: (id: string) =>
        lock.withPermits(1)(
          Effect.zipRight(
            Effect.sync(() => roster.stop(id)),
            roster.gauges
          )
        ),
      /** `last_evaluated_at` of a record as the API shows it */
      lastEvaluated: (w: WebhookRecord) => Effect.map(webhooks.ticks, (t) => effectiveLastEvaluated(w, t)),
      /** when each due cadence was last evaluated in this process */
      lastCadenceAt: (c: Cadence) => evaluator.lastCadence.get(c),
      actorCount: Effect.sync(() => roster.actors.size),
      restarts: Metric.value(actorRestarts),
      /** test hook: throw from an actor while it handles a message */
      setFault: (hook: FaultHook | undefined) =>
        Effect.sync(() => {
          evaluator.fault = hook
        })
    } as const
  })
}) {}
