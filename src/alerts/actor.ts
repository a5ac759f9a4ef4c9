/**
 * A webhook's actor: the owner of its match state, supervised on its own.
 *
 * The actor does not scan: on a tick its slice hands it the tickers its
 * predicate matches now (sorted ticker ids, see `tickerIds.ts`, shared by
 * every webhook of the same predicate and scope); it diffs them with its
 * `last_match_set` and reports the outcome (the new set and the newly
 * matching tickers). It adopts the new set only once the tick's commit
 * stored it (`adopt`), so a failed commit leaves it on the stored state and
 * the next tick diffs again: no transition is lost or fired twice.
 *
 * An idle actor holds no fiber: it is this object, its state and the
 * configuration it needs to fire (`ActorConfig`), stepped by its slice's
 * evaluation one message at a time — a tick's evaluation is the only message
 * that can fail. A fiber per webhook cost ~3 KB more each (300 MB with
 * 100,000 webhooks, docs/benchmarks.md) and a scheduler hop per message,
 * for an actor that only ever runs one short synchronous step per tick.
 *
 * Supervision: a step that throws fails only this actor — it forgets its
 * state (`state` undefined), counts a restart and waits out a backoff
 * (`restartDelayMs`, on the Effect `Clock`); its slice then reloads the
 * stored state before its next step. Its neighbours and its slice go on.
 */
import { Metric } from "effect"
import type { Cadence, Channel } from "../store/webhooks.js"
import { addedIds, EMPTY } from "./tickerIds.js"

/** What one actor reports for one tick. */
export interface Outcome {
  readonly id: string
  readonly armedAt: number
  readonly stateSeq: number
  /** the ticker ids matching now, ascending */
  readonly matchSet: Int32Array
  /** ticker ids that newly match (empty: no fire) */
  readonly added: Int32Array
  /** ticker ids that no longer match */
  readonly removed: Int32Array
  /** deltas stored on top of the last full write of the set (the store decides how to write the new one) */
  readonly deltas: number
  /** the set differs from `last_match_set` (something to store) */
  readonly changed: boolean
}

/** The message an actor may fail on: a tick's matches for its predicate and scope. */
export interface Evaluate {
  readonly _tag: "Evaluate"
  readonly matched: Int32Array
}

export interface ActorState {
  armedAt: number
  stateSeq: number
  /** sorted ticker ids */
  lastSet: Int32Array
  /** deltas stored on top of the last full write of the set */
  deltas: number
}

/**
 * What an actor keeps of its webhook's row: what grouping it and firing need. Shared values are
 * single copies (`Interner` in `sync.ts`); secrets, the origin and the stored set are not kept.
 */
export interface ActorConfig {
  readonly accountId: string
  readonly name: string
  readonly q: string
  readonly universeId: string | null
  readonly cadence: Cadence
  readonly channel: Channel
  /** the delivery target shown on records (`displayTarget`): never a secret */
  readonly target: string
  readonly fields: ReadonlyArray<string>
}

export const actorsAlive = Metric.gauge("webhook_actors_alive", { description: "Webhook actors running" })
export const actorRestarts = Metric.counter("webhook_actor_restarts_total", {
  description: "Webhook actors restarted by their supervisor after a failure",
  incremental: true
})
export const actorsRestarting = Metric.gauge("webhook_actors_restarting", {
  description: "Webhook actors waiting out a restart backoff (their state is reloaded from the store)"
})

/** the supervisor's backoff before the n-th restart (from 0): 100 ms doubling, at most 30 s */
export const restartDelayMs = (n: number): number => Math.min(100 * 2 ** n, 30_000)

/** Test hook: a function that may throw while an actor handles a message (crash injection). */
export type FaultHook = (id: string, message: Evaluate) => void

/** Diffs a tick's matches with an actor's state. */
export const diff = (id: string, state: ActorState, matched: Int32Array): Outcome => {
  const added = addedIds(state.lastSet, matched)
  const changed = added.length > 0 || matched.length !== state.lastSet.length
  return {
    id,
    armedAt: state.armedAt,
    stateSeq: state.stateSeq,
    matchSet: matched,
    added,
    removed: changed ? addedIds(matched, state.lastSet) : EMPTY,
    deltas: state.deltas,
    changed
  }
}

export class WebhookActor {
  /** undefined while restarting: the stored state is loaded again once `retryAt` has passed */
  state: ActorState | undefined
  /** the pair result this actor is known to hold (and the store to have): skipped while it is the same array */
  synced: Int32Array | undefined = undefined
  /** restarts in a row (reset by a step that succeeds) */
  restarts = 0
  /** epoch ms (Clock) from which a restarting actor may load its state */
  retryAt = 0
  /** the version of the webhook row its configuration was made from */
  version = 0

  constructor(
    readonly id: string,
    /** its slice (`webhooks.slice`, stored by the database) */
    readonly slice: number,
    public config: ActorConfig,
    state: ActorState
  ) {
    this.state = state
  }

  /**
   * Handles a tick's matches: the outcome, or the defect it failed with (then the actor is
   * restarting: the caller logs and counts it).
   */
  step(message: Evaluate, fault: FaultHook | undefined, now: number): Outcome | { readonly failed: unknown } {
    const state = this.state
    if (state === undefined) return { failed: new Error("actor restarting") }
    try {
      fault?.(this.id, message)
      const outcome = diff(this.id, state, message.matched)
      this.restarts = 0
      return outcome
    } catch (defect) {
      this.fail(now)
      return { failed: defect }
    }
  }

  /** a failure: the state is forgotten until reloaded, after a backoff */
  fail(now: number): void {
    this.state = undefined
    this.synced = undefined
    this.retryAt = now + restartDelayMs(this.restarts)
    this.restarts++
  }

  /** the tick's new set was stored (under the sequence it was diffed at) */
  adopt(armedAt: number, stateSeq: number, matchSet: Int32Array, deltas: number): void {
    const state = this.state
    if (state === undefined || armedAt !== state.armedAt || stateSeq !== state.stateSeq) return
    state.lastSet = matchSet
    state.stateSeq++
    state.deltas = deltas
  }

  /** takes the stored state (a restart, an enable, a write by another instance) */
  reset(state: ActorState): void {
    this.state = state
    this.synced = undefined
  }
}
