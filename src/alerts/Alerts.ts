/**
 * The alerts service: the webhook actors of this process, in their slices,
 * and the tick that evaluates them on every published snapshot.
 *
 * A tick: pick up webhook changes made through any instance (rows with a
 * higher `version`, `sync`), decide which cadences are due, evaluate each
 * distinct (predicate, scope) pair once (`pairs.ts`, over its scope's rows,
 * `scopes.ts`), step the actors whose state may differ from their pair's
 * matches (`slice.ts`, `actor.ts`), and commit the changed match states
 * together with their fires (`commit.ts`). Actors adopt the new state only
 * after that commit.
 *
 * Cost per tick with 100,000 webhooks (docs/benchmarks.md): a pair none of
 * whose columns changed on its rows is not evaluated, a group of actors known
 * to hold its pair's matches is not stepped, and an unchanged state is not
 * written. `evaluated` tells `POST /admin/refresh` when a snapshot has been
 * evaluated and its fires queued.
 */
import {
  Cause,
  Clock,
  Duration,
  Effect,
  Metric,
  MetricBoundaries,
  Option,
  Schedule,
  Stream,
  SubscriptionRef
} from "effect"
import { DeliveryWake } from "../delivery/wake.js"
import { Market } from "../market/Market.js"
import type { Snapshot } from "../market/snapshot.js"
import { registerScrapeGauge } from "../observability/scrapeGauges.js"
import type { CompiledQuery } from "../query/index.js"
import { EvaluatorState } from "../store/evaluatorState.js"
import { type Tick, Ticks } from "../store/ticks.js"
import { type Cadence, effectiveLastEvaluated, type WebhookRecord, Webhooks } from "../store/webhooks.js"
import { actorRestarts, actorsAlive, actorsRestarting, type FaultHook, WebhookActor } from "./actor.js"
import { configOf, Interner, stateOf } from "./actorConfig.js"
import { CADENCES, isDue } from "./cadence.js"
import { commitOutcomes } from "./commit.js"
import { newId } from "./ids.js"
import { ColumnChanges } from "./incremental.js"
import { SlicesPlaced } from "./ownership.js"
import { type PairCounts, Pairs } from "./pairs.js"
import { awaitSlices } from "./refreshAnswer.js"
import { ScopeRows } from "./scopes.js"
import { SLICES, Slice, TickSteps } from "./slice.js"
import { TickerIds } from "./tickerIds.js"

/** how often a runner looks for slices it took since the last tick (ms) */
const CATCH_UP_MS = 200

/** webhook rows read per query when the evaluator picks up changes (all of them at start) */
const SYNC_PAGE = 2_000

const evaluationDuration = Metric.histogram(
  "webhook_evaluation_duration_seconds",
  MetricBoundaries.fromIterable([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]),
  "Time to evaluate every due webhook against one snapshot, store the changes and queue the fires"
)
const firesTotal = Metric.counter("webhook_fires_total", {
  description: "webhook.fired events queued by evaluations",
  incremental: true
})
const sliceDuration = Metric.histogram(
  "webhook_slice_evaluation_duration_seconds",
  MetricBoundaries.fromIterable([0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1]),
  "Time to step one slice's due actors on a tick (the pairs they share are evaluated once per tick before)"
)
const slicesOwned = Metric.gauge("webhook_slices_owned", {
  description: "Webhook slices with at least one actor in this process"
})
const slicesHeld = Metric.gauge("webhook_slices_held", {
  description:
    "Webhook slices this process evaluates (1,024 when it holds every one; a runner: those the cluster placed on it)"
})
const evaluationFailures = Metric.counter("webhook_evaluation_failures_total", {
  description: "Evaluation ticks that failed (their changes are retried on the next tick)",
  incremental: true
})

export interface EvaluationResult {
  readonly asOf: number
  readonly ok: boolean
  readonly evaluated: number
  readonly fires: number
  /** why the evaluation failed (ok false) */
  readonly error?: string
  /** a refresh answered for every slice: the slices that had not evaluated it in time (ok false) */
  readonly behind?: ReadonlyArray<number>
  /** wall time of each phase (ms) and counts, for metrics and the benchmark */
  readonly phases?: {
    readonly sync: number
    readonly evaluate: number
    readonly diff: number
    readonly persist: number
    /** the part of `persist` spent in the store's transaction (the rest: building the fires) */
    readonly commit: number
    readonly messaged: number
    readonly changed: number
    /** (predicate, scope) pairs due: skipped (no column they read changed on their rows), patched, evaluated in full */
    readonly pairs: PairCounts
  }
}

export class Alerts extends Effect.Service<Alerts>()("vigil/Alerts", {
  scoped: Effect.gen(function* () {
    const market = yield* Market
    const webhooks = yield* Webhooks
    const stateStore = yield* EvaluatorState
    const wake = yield* DeliveryWake
    const placed = Option.isSome(yield* Effect.serviceOption(SlicesPlaced))
    const ticks = placed ? Option.getOrUndefined(yield* Effect.serviceOption(Ticks)) : undefined
    const actors = new Map<string, WebhookActor>()
    const slices = new Map<number, Slice>()
    /** actors waiting out a restart backoff */
    const restarting = new Set<WebhookActor>()
    const pairs = new Pairs((s) => market.directory.lookup(s)?.ticker)
    const scopes = new ScopeRows(stateStore, market)
    const interner = new Interner()
    const ids = new TickerIds()
    // the directory first, ascending: id order is ticker order
    for (const t of [...market.directory.all].map((m) => m.ticker).sort()) ids.idOf(t)
    /** the highest webhook version a sync has read, and where the next sync reads from */
    let version = 0
    let syncFrom = 0
    let loaded = false
    let fault: FaultHook | undefined
    let lastForget = 0
    /** every actor's state is the stored one (false after another instance wrote states during a tick) */
    let inSync = true
    /** slices taken since the last tick: evaluated against the current tick without waiting for the next */
    let taken = false
    const lastCadence = new Map<Cadence, number>()
    const evaluated = yield* SubscriptionRef.make<EvaluationResult>({ asOf: 0, ok: true, evaluated: 0, fires: 0 })
    const lock = yield* Effect.makeSemaphore(1)
    const instanceId = newId("inst")

    const sliceFor = (n: number): Slice => {
      let s = slices.get(n)
      if (s === undefined) {
        s = new Slice(n)
        slices.set(n, s)
      }
      return s
    }

    const gauges = Effect.suspend(() =>
      Effect.all([
        Metric.set(actorsAlive, actors.size),
        Metric.set(actorsRestarting, restarting.size),
        Metric.set(slicesOwned, slices.size),
        Metric.set(slicesHeld, owned === "all" ? SLICES : owned.size)
      ]).pipe(Effect.asVoid)
    )
    /** the as_of of the last tick this process committed (Clock ms) */
    let lastCommitted: number | undefined
    yield* registerScrapeGauge(
      "webhook_tick_lag_seconds",
      "Now minus the as_of of the last webhook tick this process evaluated and committed",
      Effect.map(Clock.currentTimeMillis, (now) =>
        lastCommitted === undefined ? undefined : (now - lastCommitted) / 1000
      )
    )

    /** Puts an actor in its slice, in the group of its pair (none when its q does not compile). */
    const attach = (actor: WebhookActor, compiled: CompiledQuery | undefined) =>
      sliceFor(actor.slice).add(actor, compiled === undefined ? undefined : pairs.join(compiled, actor.config))

    const detach = (actor: WebhookActor) => {
      const slice = sliceFor(actor.slice)
      const pair = slice.remove(actor)
      if (pair !== undefined) pairs.leave(pair, actor.config.cadence)
      if (slice.size === 0) slices.delete(slice.number)
    }

    const stop = (id: string) => {
      const actor = actors.get(id)
      if (actor === undefined) return
      detach(actor)
      actors.delete(id)
      restarting.delete(actor)
    }

    /** the actor takes the stored state `w` (it is no longer known to hold its pair's result) */
    const reset = (actor: WebhookActor, w: WebhookRecord) => {
      sliceFor(actor.slice).unsync(actor)
      actor.reset(stateOf(w, ids))
      restarting.delete(actor)
    }

    /**
     * the slices this process evaluates: every one (under the evaluator lease), or those the
     * cluster gave it (`own`; a runner starts with none)
     */
    let owned: ReadonlySet<number> | "all" = placed ? new Set<number>() : "all"
    const owns = (slice: number) => owned === "all" || owned.has(slice)

    /**
     * Starts, reconfigures or stops the actor of a webhook after a change of its row. A row
     * applied outside `sync` (a change made through this process, a slice taken) does not move
     * the sync's cursor: rows changed by others before it must still be read.
     */
    const apply = (w: WebhookRecord, cursor = true) =>
      Effect.gen(function* () {
        if (cursor && w.version > version) version = w.version
        const current = actors.get(w.id)
        if (w.status !== "active" || !owns(w.slice)) {
          stop(w.id)
          return
        }
        // the very row this actor was made from (read again by the next sync): nothing to do
        if (current !== undefined && current.version === w.version) return
        const compiled = pairs.compile(w.q)
        if (current !== undefined) {
          current.version = w.version
          const rearmed = current.state === undefined || current.state.armedAt !== w.armedAt
          detach(current)
          current.config = configOf(w, interner)
          attach(current, compiled)
          if (rearmed) reset(current, w)
          return
        }
        if (compiled === undefined) {
          yield* Effect.logWarning("webhook q does not compile; not evaluated").pipe(
            Effect.annotateLogs({ webhook_id: w.id })
          )
        }
        interner.bound(4 * actors.size + 1_024)
        // the first life starts from the row just read: no query per actor
        const actor = new WebhookActor(w.id, w.slice, configOf(w, interner), stateOf(w, ids))
        actor.version = w.version
        actors.set(w.id, actor)
        attach(actor, compiled)
      })

    /**
     * Picks up every webhook change since the sync before last (any instance's). Versions come
     * from a sequence, so a transaction can commit a lower version after a higher one was read:
     * each sync reads again from the highest version the previous sync started from, so a change
     * committed up to one tick late is still seen (a row read twice is applied twice, harmlessly).
     */
    const sync = Effect.gen(function* () {
      if (!loaded) known = yield* stateStore.stateWriter
      const seenBefore = version
      let cursor = loaded ? syncFrom : 0
      let any = false
      for (let page = 0; ; page++) {
        const changed = yield* stateStore.changedSince(cursor, SYNC_PAGE, page === 0)
        loaded = true
        for (const w of changed) yield* apply(w)
        if (changed.length > 0) cursor = changed[changed.length - 1]!.version
        any ||= changed.length > 0
        if (changed.length < SYNC_PAGE) break
      }
      syncFrom = seenBefore
      if (any) yield* gauges
    })

    /** Stops the actors of webhooks deleted through another instance (a cheap check first). */
    const forgetDeleted = Effect.gen(function* () {
      const summary = yield* stateStore.activeSummary
      if (summary.version <= version && summary.active === actors.size) return
      const known = [...actors.keys()]
      const existing = yield* stateStore.existing(known)
      for (const id of known) if (!existing.has(id)) stop(id)
    })

    /** The stored states of `ids` taken by their actors; a webhook gone or no longer active loses its actor. */
    const reload = (wanted: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const found = new Set<string>()
        for (const w of yield* stateStore.states(wanted)) {
          found.add(w.id)
          const actor = actors.get(w.id)
          if (actor === undefined) continue
          if (w.status !== "active") stop(w.id)
          else reset(actor, w)
        }
        for (const id of wanted) if (!found.has(id)) stop(id)
      })

    /**
     * The state writer (see `EvaluatorState.stateWriter`) as of which every actor's state is the stored
     * one: read before the first load, and this instance after each of its commits.
     */
    let known: { readonly holder: string; readonly seq: number } | undefined

    /** Restarted actors whose backoff has passed take their stored state. */
    const restartDue = (now: number) =>
      Effect.gen(function* () {
        const due = [...restarting].filter((a) => a.retryAt <= now).map((a) => a.id)
        if (due.length > 0) yield* reload(due)
      })

    /**
     * One tick: `tick` is the stored tick the snapshot was refreshed to (slices placed by the
     * cluster), which says the cadences due and is recorded for the slices held; without it (one
     * process holding every slice) the cadences due are decided here.
     */
    const evaluateSnapshot = (snapshot: Snapshot, tick: Tick | undefined) =>
      Effect.gen(function* () {
        const started = performance.now()
        yield* sync
        // another instance wrote match states since the actors' states were known to be the stored
        // ones (it evaluated a tick too): every actor takes its stored state first
        const writer = owned === "all" ? yield* stateStore.stateWriter : undefined
        // (slices placed by the cluster are written by their holder alone: nothing to reload)
        if (owned === "all" && (!inSync || writer?.holder !== known?.holder || writer?.seq !== known?.seq)) {
          yield* reload([...actors.keys()])
          inSync = true
          known = writer
        }
        const now = yield* Clock.currentTimeMillis
        // webhooks deleted through another instance lose their actors within a minute
        if (now - lastForget >= 60_000) {
          yield* forgetDeleted
          lastForget = now
        }
        yield* restartDue(now)
        const due = new Set<Cadence>()
        let dueBits = 0
        const heldNow = owned === "all" ? undefined : [...owned]
        for (let i = 0; i < CADENCES.length; i++) {
          const c = CADENCES[i]!
          if (!lastCadence.has(c)) lastCadence.set(c, now)
          if (tick === undefined ? isDue(c, lastCadence.get(c), now) : tick.due.includes(c)) {
            due.add(c)
            dueBits |= 1 << i
          }
        }
        const t1 = performance.now()

        const duePairs = pairs.due(dueBits)
        const rows = yield* scopes.of(snapshot, duePairs)
        const previous = pairs.last
        const changes = previous === undefined ? undefined : ColumnChanges.between(previous, snapshot)
        const counts = pairs.evaluate(snapshot, duePairs, rows, ids.ofSnapshot(snapshot), changes)
        const t2 = performance.now()

        const steps = new TickSteps()
        for (const slice of slices.values()) {
          const begun = performance.now()
          slice.step(due, dueBits, fault, now, steps)
          yield* Metric.update(sliceDuration, (performance.now() - begun) / 1000)
        }
        for (const { actor, defect } of steps.failed) {
          restarting.add(actor)
          yield* Effect.logWarning("webhook actor failed; restarting", Cause.die(defect)).pipe(
            Effect.annotateLogs({ webhook_id: actor.id })
          )
        }
        if (steps.failed.length > 0) yield* Metric.incrementBy(actorRestarts, steps.failed.length)
        const t3 = performance.now()

        const unsync = (actor: WebhookActor) => sliceFor(actor.slice).unsync(actor)
        const {
          changes: changed,
          fires,
          commitMs
        } = yield* commitOutcomes(
          {
            store: stateStore,
            ids,
            actorOf: (id) => actors.get(id),
            snapshot,
            now,
            due: [...due],
            writer: owned === "all" ? instanceId : undefined,
            sliceTick:
              tick === undefined || heldNow === undefined
                ? undefined
                : { seq: tick.seq, asOf: tick.asOf, slices: heldNow }
          },
          steps.outcomes,
          (c) =>
            Effect.gen(function* () {
              if (c.writerSeq !== undefined) {
                // another instance committed states during this tick: reload them all on the next one
                if (c.writerSeq !== (known?.seq ?? 0) + 1) inSync = false
                known = { holder: instanceId, seq: c.writerSeq }
              }
              const lost: Array<string> = []
              for (const o of c.outcomes) {
                const actor = actors.get(o.id)
                if (actor === undefined) continue
                if (c.written.has(o.id)) actor.adopt(o.armedAt, o.stateSeq, o.matchSet, c.deltasAfter.get(o.id) ?? 0)
                else {
                  unsync(actor)
                  lost.push(o.id)
                }
              }
              // states written meanwhile (another instance, an enable): the actors take the stored state
              if (lost.length > 0) yield* reload(lost)
            })
        ).pipe(
          // nothing stored: every actor stepped this tick diffs again on the next one
          Effect.onError(() => Effect.sync(() => steps.stepped.forEach(unsync)))
        )
        for (const c of due) lastCadence.set(c, now)
        lastCommitted = snapshot.asOf
        yield* gauges
        yield* Metric.incrementBy(firesTotal, fires)
        yield* Metric.update(evaluationDuration, (performance.now() - started) / 1000)
        if (fires > 0) yield* wake.wake
        const t4 = performance.now()
        return {
          asOf: snapshot.asOf,
          ok: true,
          evaluated: steps.evaluated,
          fires,
          phases: {
            sync: t1 - started,
            evaluate: t2 - t1,
            diff: t3 - t2,
            persist: t4 - t3,
            commit: commitMs,
            messaged: steps.stepped.length,
            changed,
            pairs: counts
          }
        } satisfies EvaluationResult
      })

    /** Evaluates one snapshot (serialized); a failure is logged and reported, its changes retried next tick. */
    const evaluate = (snapshot: Snapshot, tick?: Tick): Effect.Effect<EvaluationResult> =>
      lock.withPermits(1)(
        evaluateSnapshot(snapshot, tick).pipe(
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
          Effect.tap((r) => SubscriptionRef.set(evaluated, r))
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
      taken = false
      return evaluate(snapshot, tick)
    }

    /** slices taken since the last tick evaluate the current one now (a moved slice misses no tick) */
    const catchUp = Effect.suspend(() => {
      if (!taken) return Effect.void
      const snapshot = market.latestNow()
      const tick = snapshot === undefined ? undefined : market.tickOf(snapshot)
      if (snapshot === undefined || tick === undefined) return Effect.void
      taken = false
      return evaluate(snapshot, tick)
    })

    /** waits until a snapshot at or after `asOf` has been evaluated; its result */
    const awaitEvaluated = (asOf: number) =>
      evaluated.changes.pipe(
        Stream.filter((r) => r.asOf >= asOf),
        Stream.runHead,
        Effect.map(Option.getOrThrow)
      )

    // start: the ticks recorded by earlier runs, then every published snapshot in turn
    const start = Effect.gen(function* () {
      const ticks = yield* webhooks.ticks.pipe(Effect.orElseSucceed(() => new Map<Cadence, number>()))
      for (const [c, at] of ticks) lastCadence.set(c, at)
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
      /** applies a webhook row changed through this instance now (others pick changes up on the next tick) */
      changed: (w: WebhookRecord) => lock.withPermits(1)(Effect.zipRight(apply(w, false), gauges)),
      /** picks up every webhook change from the store now */
      resync: lock.withPermits(1)(sync),
      /**
       * The slices this process evaluates from now on ("all", or a set): the actors of slices it
       * gives up stop; the webhooks of slices it takes are read from the store with their stored
       * states (a slice that moved here carries on where its last runner committed).
       */
      own: (slices: ReadonlySet<number> | "all") =>
        lock.withPermits(1)(
          Effect.gen(function* () {
            const before = owned
            owned = slices
            for (const actor of [...actors.values()]) if (!owns(actor.slice)) stop(actor.id)
            if (slices === "all" && before !== "all") {
              // every slice: read them all again (the rows of slices not held were skipped)
              loaded = false
              yield* sync
            } else if (slices !== "all" && before === "all") {
              // the actors of the slices kept are loaded (a first load reads only theirs)
              yield* sync
            } else if (slices !== "all" && before !== "all") {
              const gained = [...slices].filter((n) => !before.has(n))
              for (const w of yield* stateStore.sliceWebhooks(gained)) yield* apply(w, false)
              if (gained.length > 0) taken = true
            }
            yield* gauges
          })
        ),
      /** forgets a deleted webhook */
      deleted: (id: string) =>
        lock.withPermits(1)(
          Effect.zipRight(
            Effect.sync(() => stop(id)),
            gauges
          )
        ),
      /** `last_evaluated_at` of a record as the API shows it */
      lastEvaluated: (w: WebhookRecord) => Effect.map(webhooks.ticks, (ticks) => effectiveLastEvaluated(w, ticks)),
      /** when each due cadence was last evaluated in this process */
      lastCadenceAt: (c: Cadence) => lastCadence.get(c),
      actorCount: Effect.sync(() => actors.size),
      restarts: Metric.value(actorRestarts),
      /** test hook: throw from an actor while it handles a message */
      setFault: (hook: FaultHook | undefined) =>
        Effect.sync(() => {
          fault = hook
        })
    } as const
  })
}) {}
