/**
 * The evaluation of one tick by this process: pick up webhook changes made
 * through any process (`Roster.sync`), decide which cadences are due (the
 * stored tick says so on a runner), evaluate each distinct (predicate,
 * scope) pair once (`pairs.ts`, over its scope's rows, `scopes.ts`), step the
 * actors whose state may differ from their pair's matches (`slice.ts`,
 * `actor.ts`), and commit the changed match states together with their fires
 * and the slices' tick (`commit.ts`). Actors adopt the new state only after
 * that commit.
 *
 * Cost per tick with 100,000 webhooks (docs/benchmarks.md): a pair none of
 * whose columns changed on its rows is not evaluated, a group of actors known
 * to hold its pair's matches is not stepped, and an unchanged state is not
 * written.
 */
import { Cause, Clock, Effect, Metric, MetricBoundaries } from "effect"
import type { DeliveryWake } from "../delivery/wake.js"
import { isStale } from "../market/Market.js"
import type { Snapshot } from "../market/snapshot.js"
import type { EvaluatorState } from "../store/evaluatorState.js"
import type { Tick } from "../store/ticks.js"
import type { Cadence } from "../store/webhooks.js"
import { actorRestarts, type FaultHook, type WebhookActor } from "./actor.js"
import { CADENCES, isDue } from "./cadence.js"
import { commitOutcomes } from "./commit.js"
import { ColumnChanges } from "./incremental.js"
import type { PairCounts } from "./pairs.js"
import type { Roster } from "./roster.js"
import type { ScopeRows } from "./scopes.js"
import { TickSteps } from "./slice.js"

const evaluationDuration = Metric.histogram(
  "webhook_evaluation_duration_seconds",
  MetricBoundaries.fromIterable([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]),
  "Time to evaluate every due webhook against one snapshot, store the changes and queue the fires"
)
const firesTotal = Metric.counter("webhook_fires_total", {
  description: "webhook.fired events queued by evaluations",
  incremental: true
})
const staleTicks = Metric.counter("webhook_stale_ticks_total", {
  description: "Refresh ticks not evaluated because their market data was stale (no new data for 3 refresh intervals)",
  incremental: true
})
const sliceDuration = Metric.histogram(
  "webhook_slice_evaluation_duration_seconds",
  MetricBoundaries.fromIterable([0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1]),
  "Time to step one slice's due actors on a tick (the pairs they share are evaluated once per tick before)"
)

export interface EvaluationResult {
  readonly asOf: number
  readonly ok: boolean
  readonly evaluated: number
  readonly fires: number
  /** the tick's market data was stale: nothing was evaluated (the stale-data guard) */
  readonly stale?: boolean
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

export class TickEvaluator {
  /** when each cadence was last evaluated here */
  readonly lastCadence = new Map<Cadence, number>()
  /** the as_of of the last tick this process committed (Clock ms) */
  lastCommitted: number | undefined
  /** test hook: throw from an actor while it handles a message */
  fault: FaultHook | undefined
  /** every actor's state is the stored one (false after another process wrote states during a tick) */
  private inSync = true
  private lastForget = 0

  constructor(
    private readonly roster: Roster,
    private readonly scopes: ScopeRows,
    private readonly store: EvaluatorState,
    private readonly wake: DeliveryWake,
    /** this process, as the state writer */
    private readonly instanceId: string,
    /** REFRESH_INTERVAL (ms): a tick whose data is older than 3 of them is stale (`isStale`) */
    private readonly refreshMs: number
  ) {}

  /**
   * One tick: `tick` is the stored tick the snapshot was refreshed to (slices placed by the
   * cluster), which says the cadences due and is recorded for the slices held; without it (one
   * process holding every slice) the cadences due are decided here. `only`: step those slices
   * alone (slices taken since the tick that had not committed it).
   */
  evaluate(snapshot: Snapshot, tick: Tick | undefined, only?: ReadonlySet<number>) {
    const { roster, store, instanceId } = this
    const { pairs, ids, actors } = roster
    return Effect.gen(this, function* () {
      const started = performance.now()
      yield* roster.sync
      const all = roster.owned === "all"
      // another process wrote match states since the actors' states were known to be the stored
      // ones (it evaluated a tick too): every actor takes its stored state first (slices placed
      // by the cluster are written by their holder alone: nothing to reload)
      if (all) {
        const writer = yield* store.stateWriter
        const known = roster.known
        if (!this.inSync || writer?.holder !== known?.holder || writer?.seq !== known?.seq) {
          yield* roster.reload([...actors.keys()])
          this.inSync = true
          roster.known = writer
        }
      }
      const now = yield* Clock.currentTimeMillis
      // webhooks deleted through another process lose their actors within a minute
      if (now - this.lastForget >= 60_000) {
        yield* roster.forgetDeleted
        this.lastForget = now
      }
      yield* roster.restartDue(now)
      const due = new Set<Cadence>()
      let dueBits = 0
      const held = only === undefined ? roster.heldList() : [...only]
      for (let i = 0; i < CADENCES.length; i++) {
        const c = CADENCES[i]!
        if (!this.lastCadence.has(c)) this.lastCadence.set(c, now)
        if (tick === undefined ? isDue(c, this.lastCadence.get(c), now) : tick.due.includes(c)) {
          due.add(c)
          dueBits |= 1 << i
        }
      }
      const t1 = performance.now()
      const sliceTick =
        tick === undefined || held === undefined ? undefined : { seq: tick.seq, asOf: tick.asOf, slices: held }

      // the stale-data guard: a tick whose market data is old (the feed paused or stalled) is not
      // evaluated — nothing fires against old data — but recorded for the slices, so the tick is
      // answered and the next one evaluates from the stored states
      if (tick !== undefined && isStale(tick.asOf, snapshot.asOf, this.refreshMs)) {
        yield* commitOutcomes(
          { store, ids, actorOf: (id) => actors.get(id), snapshot, now, due: [], writer: undefined, sliceTick },
          [],
          () => Effect.void
        )
        yield* Metric.increment(staleTicks)
        this.lastCommitted = snapshot.asOf
        return { asOf: snapshot.asOf, ok: true, evaluated: 0, fires: 0, stale: true } satisfies EvaluationResult
      }

      const duePairs = pairs.due(dueBits)
      const rows = yield* this.scopes.of(snapshot, duePairs)
      const previous = pairs.last
      const changes = previous === undefined ? undefined : ColumnChanges.between(previous, snapshot)
      const counts = pairs.evaluate(snapshot, duePairs, rows, ids.ofSnapshot(snapshot), changes)
      const t2 = performance.now()

      const steps = new TickSteps()
      for (const slice of roster.slices.values()) {
        if (only !== undefined && !only.has(slice.number)) continue
        const begun = performance.now()
        slice.step(due, dueBits, this.fault, now, steps)
        yield* Metric.update(sliceDuration, (performance.now() - begun) / 1000)
      }
      for (const { actor, defect } of steps.failed) {
        roster.restarting.add(actor)
        yield* Effect.logWarning("webhook actor failed; restarting", Cause.die(defect)).pipe(
          Effect.annotateLogs({ webhook_id: actor.id })
        )
      }
      if (steps.failed.length > 0) yield* Metric.incrementBy(actorRestarts, steps.failed.length)
      const t3 = performance.now()

      const unsync = (actor: WebhookActor) => roster.unsync(actor)
      const {
        changes: changed,
        fires,
        commitMs
      } = yield* commitOutcomes(
        {
          store,
          ids,
          actorOf: (id) => actors.get(id),
          snapshot,
          now,
          due: [...due],
          writer: all ? instanceId : undefined,
          sliceTick
        },
        steps.outcomes,
        (c) =>
          Effect.gen(this, function* () {
            if (c.writerSeq !== undefined) {
              // another process committed states during this tick: reload them all on the next one
              if (c.writerSeq !== (roster.known?.seq ?? 0) + 1) this.inSync = false
              roster.known = { holder: instanceId, seq: c.writerSeq }
            }
            const lost: Array<string> = []
            for (const o of c.outcomes) {
              const actor = actors.get(o.id)
              if (actor === undefined) continue
              if (c.written.has(o.id)) actor.adopt(o, c.deltasAfter.get(o.id) ?? 0)
              else {
                unsync(actor)
                lost.push(o.id)
              }
            }
            // states written meanwhile (another process, an enable): the actors take the stored state
            if (lost.length > 0) yield* roster.reload(lost)
          })
      ).pipe(
        // nothing stored: every actor stepped this tick diffs again on the next one
        Effect.onError(() => Effect.sync(() => steps.stepped.forEach(unsync)))
      )
      for (const c of due) this.lastCadence.set(c, now)
      this.lastCommitted = snapshot.asOf
      yield* roster.gauges
      yield* Metric.incrementBy(firesTotal, fires)
      yield* Metric.update(evaluationDuration, (performance.now() - started) / 1000)
      if (fires > 0) yield* this.wake.wake
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
  }
}
