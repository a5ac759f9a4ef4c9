/**
 * The evaluator and the supervisor of the webhook actors.
 *
 * On every published snapshot: pick up webhook changes made through any
 * instance (rows with a higher `version`), decide which cadences are due,
 * evaluate each distinct predicate once over the whole snapshot (the q
 * language's compiled evaluator; identical frozen `q`s share one pass),
 * scope the matches by universe, hand every due actor its matches, and
 * commit the changed match states together with their fires (the outbox) in
 * one transaction. Actors adopt the new state only after that commit.
 *
 * `evaluated` tells `POST /admin/refresh` when a snapshot has been evaluated
 * and its fires queued.
 */
import { randomBytes } from "node:crypto"
import {
  Cause,
  Clock,
  Deferred,
  Effect,
  FiberMap,
  Metric,
  MetricBoundaries,
  Option,
  Queue,
  Stream,
  SubscriptionRef
} from "effect"
import { newEventId } from "../delivery/signing.js"
import { DeliveryWake } from "../delivery/wake.js"
import { CATALOG } from "../market/catalog.js"
import type { MarketData } from "../market/engine/MarketData.js"
import { Market } from "../market/Market.js"
import type { Snapshot } from "../market/snapshot.js"
import { type CompiledQuery, columnsOf, compileQuery } from "../query/index.js"
import { Universes } from "../store/universes.js"
import {
  type Cadence,
  effectiveLastEvaluated,
  type MatchChange,
  type NewDelivery,
  type WebhookRecord,
  Webhooks
} from "../store/webhooks.js"
import { type ActorState, actorRestarts, actorsAlive, type FaultHook, type Message, runActor, Tick } from "./actor.js"
import { CADENCES, isDue } from "./cadence.js"
import { firedEvent } from "./payload.js"

const DAY_MS = 86_400_000
const COLUMNS = columnsOf(CATALOG)

const evaluationDuration = Metric.histogram(
  "webhook_evaluation_duration_seconds",
  MetricBoundaries.fromIterable([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]),
  "Time to evaluate every due webhook against one snapshot, store the changes and queue the fires"
)
const firesTotal = Metric.counter("webhook_fires_total", {
  description: "webhook.fired events queued by evaluations",
  incremental: true
})
const mailboxDepth = Metric.gauge("webhook_actor_mailbox_depth", {
  description: "Messages waiting in webhook actor mailboxes (sum), sampled at each evaluation"
})
const evaluationFailures = Metric.counter("webhook_evaluation_failures_total", {
  description: "Evaluation ticks that failed (their changes are retried on the next tick)",
  incremental: true
})

export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString("base64url")}`

/** The delivery target shown on records: never a secret. */
export const displayTarget = (w: Pick<WebhookRecord, "channel" | "targetUrl" | "deviceId">): string =>
  w.channel === "webhook"
    ? (w.targetUrl ?? "")
    : w.channel === "chat"
      ? "chat"
      : w.channel === "in_app"
        ? "in_app"
        : `push:${w.deviceId ?? ""}`

interface Handle {
  record: WebhookRecord
  compiled: CompiledQuery | undefined
  readonly mailbox: Queue.Queue<Message>
}

export interface EvaluationResult {
  readonly asOf: number
  readonly ok: boolean
  readonly evaluated: number
  readonly fires: number
  /** why the evaluation failed (ok false) */
  readonly error?: string
}

export class Alerts extends Effect.Service<Alerts>()("vigil/Alerts", {
  scoped: Effect.gen(function* () {
    const market = yield* Market
    const webhooks = yield* Webhooks
    const universes = yield* Universes
    const wake = yield* DeliveryWake
    const actors = yield* FiberMap.make<string>()
    const handles = new Map<string, Handle>()
    const compiledByText = new Map<string, CompiledQuery | undefined>()
    let version = 0
    let loaded = false
    let fault: FaultHook | undefined
    let lastForget = 0
    const lastCadence = new Map<Cadence, number>()
    const evaluated = yield* SubscriptionRef.make<EvaluationResult>({ asOf: 0, ok: true, evaluated: 0, fires: 0 })
    const lock = yield* Effect.makeSemaphore(1)

    const compile = (q: string): CompiledQuery | undefined => {
      if (compiledByText.has(q)) return compiledByText.get(q)
      const r = compileQuery(q, {
        columns: COLUMNS,
        tickers: (s) => market.directory.lookup(s)?.ticker,
        signals: undefined,
        mode: "query"
      })
      const compiled = r._tag === "Right" ? r.right : undefined
      compiledByText.set(q, compiled)
      return compiled
    }

    const loadState = (id: string): Effect.Effect<ActorState | undefined> =>
      webhooks.getById(id).pipe(
        Effect.map((w) =>
          w === undefined || w.status !== "active"
            ? undefined
            : ({ armedAt: w.armedAt, lastSet: new Set(w.lastMatchSet) } satisfies ActorState)
        ),
        Effect.retry({ times: 5 }),
        Effect.orDie
      )

    const stop = (id: string) =>
      Effect.gen(function* () {
        handles.delete(id)
        yield* FiberMap.remove(actors, id)
        yield* Metric.set(actorsAlive, handles.size)
      })

    /** Starts, reconfigures or stops the actor of a webhook after a change of its row. */
    const apply = (w: WebhookRecord) =>
      Effect.gen(function* () {
        if (w.version > version) version = w.version
        const current = handles.get(w.id)
        if (w.status !== "active") {
          if (current !== undefined) yield* stop(w.id)
          return
        }
        if (current !== undefined) {
          const rearmed = current.record.armedAt !== w.armedAt
          current.record = w
          current.compiled = compile(w.q)
          if (rearmed)
            Queue.unsafeOffer(current.mailbox, { _tag: "Reset", armedAt: w.armedAt, matchSet: w.lastMatchSet })
          return
        }
        const mailbox = yield* Queue.unbounded<Message>()
        const compiled = compile(w.q)
        if (compiled === undefined) {
          yield* Effect.logWarning("webhook q does not compile; not evaluated").pipe(
            Effect.annotateLogs({ webhook_id: w.id })
          )
        }
        handles.set(w.id, { record: w, compiled, mailbox })
        yield* FiberMap.run(
          actors,
          w.id,
          runActor(w.id, mailbox, loadState(w.id), (id, m) => fault?.(id, m))
        )
        yield* Metric.set(actorsAlive, handles.size)
      })

    /** Picks up every webhook change since the last sync (any instance's), and forgets deleted webhooks. */
    const sync = Effect.gen(function* () {
      const changed = yield* webhooks.changedSince(loaded ? version : 0)
      loaded = true
      for (const w of changed) yield* apply(w)
    })

    const forgetDeleted = Effect.gen(function* () {
      const ids = [...handles.keys()]
      const existing = yield* webhooks.existing(ids)
      for (const id of ids) if (!existing.has(id)) yield* stop(id)
    })

    /** The rows of a universe on the snapshot's day, or undefined when it does not exist (matches nothing). */
    const universeRows = (
      md: MarketData | undefined,
      snapshot: Snapshot,
      accountId: string,
      id: string,
      cache: Map<string, ReadonlySet<string> | undefined>
    ) =>
      Effect.gen(function* () {
        const key = id === "top_10" || id === "top_100" ? id : `${accountId}/${id}`
        if (cache.has(key)) return cache.get(key)
        let tickers: ReadonlySet<string> | undefined
        if (id === "top_10" || id === "top_100") {
          const m = md?.membershipOn(Math.floor(snapshot.asOf / DAY_MS))
          tickers = new Set(m === undefined ? [] : m.ranked.slice(0, id === "top_10" ? 10 : 100))
        } else {
          const u = yield* universes.get(accountId, id)
          tickers = u === undefined ? undefined : new Set(u.tickers)
        }
        cache.set(key, tickers)
        return tickers
      })

    const evaluateSnapshot = (snapshot: Snapshot) =>
      Effect.gen(function* () {
        const started = performance.now()
        yield* sync
        const now = yield* Clock.currentTimeMillis
        // webhooks deleted through another instance lose their actors within a minute
        if (now - lastForget >= 60_000) {
          yield* forgetDeleted
          lastForget = now
        }
        const due = new Set<Cadence>()
        for (const c of CADENCES) {
          if (!lastCadence.has(c)) lastCadence.set(c, now)
          if (isDue(c, lastCadence.get(c), now)) due.add(c)
        }
        const md = Option.getOrUndefined(yield* Effect.option(market.data))

        // one pass per distinct predicate, then scoped per universe
        const byPredicate = new Map<string, ReadonlyArray<string>>()
        const universeCache = new Map<string, ReadonlySet<string> | undefined>()
        const scoped = new Map<string, ReadonlyArray<string>>()
        const done = yield* Deferred.make<void>()
        const tick = new Tick(done)
        const sent: Array<Handle> = []
        let depth = 0
        for (const h of handles.values()) {
          depth += yield* Queue.size(h.mailbox)
          if (!due.has(h.record.cadence) || h.compiled === undefined) continue
          let matched = byPredicate.get(h.compiled.key)
          if (matched === undefined) {
            matched = h.compiled.matches(snapshot)
            byPredicate.set(h.compiled.key, matched)
          }
          if (h.record.universeId !== null) {
            const scopeKey = `${h.compiled.key}\u0000${h.record.accountId}\u0000${h.record.universeId}`
            let inScope = scoped.get(scopeKey)
            if (inScope === undefined) {
              const members = yield* universeRows(md, snapshot, h.record.accountId, h.record.universeId, universeCache)
              inScope = members === undefined ? [] : matched.filter((t) => members.has(t))
              scoped.set(scopeKey, inScope)
            }
            matched = inScope
          }
          sent.push(h)
          tick.pending++
          Queue.unsafeOffer(h.mailbox, { _tag: "Evaluate", tick, matched })
        }
        yield* Metric.set(mailboxDepth, depth)
        if (tick.pending > 0) yield* Deferred.await(done)

        // the fires, then one transaction with the new states
        const changes: Array<MatchChange> = []
        const deliveries: Array<NewDelivery> = []
        for (const o of tick.outcomes) {
          const h = handles.get(o.id)
          if (h === undefined) continue
          const fired = o.added.length > 0
          changes.push({ id: o.id, armedAt: o.armedAt, matchSet: o.matchSet, fired })
          if (!fired) continue
          const w = h.record
          deliveries.push({
            id: newId("dlv"),
            webhookId: w.id,
            accountId: w.accountId,
            eventId: newEventId(),
            channel: w.channel,
            targetUrl: displayTarget(w),
            test: false,
            payload: JSON.stringify(
              firedEvent({
                webhookId: w.id,
                name: w.name,
                q: w.q,
                snapshot,
                added: o.added,
                fields: w.fields,
                test: false,
                now
              })
            ),
            dueAt: now
          })
        }
        const written = yield* webhooks.commitTick(now, [...due], changes, deliveries)
        for (const c of due) lastCadence.set(c, now)
        for (const o of tick.outcomes) {
          const h = handles.get(o.id)
          if (h === undefined) continue
          if (written.has(o.id))
            Queue.unsafeOffer(h.mailbox, { _tag: "Adopt", armedAt: o.armedAt, matchSet: o.matchSet })
        }
        const fires = deliveries.filter((d) => written.has(d.webhookId)).length
        yield* Metric.incrementBy(firesTotal, fires)
        yield* Metric.update(evaluationDuration, (performance.now() - started) / 1000)
        if (fires > 0) yield* wake.wake
        if (tick.failed.length > 0) {
          yield* Effect.logWarning("webhook actors failed during evaluation").pipe(
            Effect.annotateLogs({ failed: tick.failed.length })
          )
        }
        return { asOf: snapshot.asOf, ok: true, evaluated: sent.length, fires } satisfies EvaluationResult
      })

    /** Evaluates one snapshot (serialized); a failure is logged and reported, its changes retried next tick. */
    const evaluate = (snapshot: Snapshot) =>
      lock.withPermits(1)(
        evaluateSnapshot(snapshot).pipe(
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

    // start: the ticks recorded by earlier runs, then every published snapshot in turn
    const start = Effect.gen(function* () {
      const ticks = yield* webhooks.ticks.pipe(Effect.orElseSucceed(() => new Map<Cadence, number>()))
      for (const [c, at] of ticks) lastCadence.set(c, at)
      yield* market.changes.pipe(Stream.mapEffect(evaluate), Stream.runDrain)
    })
    yield* Effect.forkScoped(
      start.pipe(Effect.catchAllCause((cause) => Effect.logError("webhook evaluator stopped", cause)))
    )

    return {
      evaluate,
      /** waits until a snapshot at or after `asOf` has been evaluated; its result */
      awaitEvaluated: (asOf: number) =>
        evaluated.changes.pipe(
          Stream.filter((r) => r.asOf >= asOf),
          Stream.runHead,
          Effect.map(Option.getOrThrow)
        ),
      /** applies a webhook row changed through this instance now (others pick changes up on the next tick) */
      changed: (w: WebhookRecord) => lock.withPermits(1)(apply(w)),
      /** picks up every webhook change from the store now */
      resync: lock.withPermits(1)(sync),
      /** forgets a deleted webhook */
      deleted: (id: string) => lock.withPermits(1)(stop(id)),
      /** `last_evaluated_at` of a record as the API shows it */
      lastEvaluated: (w: WebhookRecord) => Effect.map(webhooks.ticks, (ticks) => effectiveLastEvaluated(w, ticks)),
      /** when each due cadence was last evaluated in this process */
      lastCadenceAt: (c: Cadence) => lastCadence.get(c),
      actorCount: Effect.sync(() => handles.size),
      restarts: Metric.value(actorRestarts),
      /** test hook: throw from an actor while it handles a message */
      setFault: (hook: FaultHook | undefined) =>
        Effect.sync(() => {
          fault = hook
        })
    } as const
  })
}) {}
