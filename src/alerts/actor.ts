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
import type { Cadence, Channel, FiringOptions } from "../store/webhooks.js"
import { type Memory, type NumberedEvent, nextWake, numberEvents, plainDiff, stepFiring } from "./firing/machine.js"
import { firesOnExit, needsMemory } from "./firing/options.js"
import type { Pair } from "./pairs.js"
import { addedIds, EMPTY } from "./tickerIds.js"

/** What one actor reports for one tick. */
export interface Outcome {
  readonly id: string
  readonly armedAt: number
  readonly stateSeq: number
  /** the ticker ids matching now, ascending */
  readonly matchSet: Int32Array
  /** ticker ids that came into the set */
  readonly added: Int32Array
  /** ticker ids that left the set */
  readonly removed: Int32Array
  /** deltas stored on top of the last full write of the set (the store decides how to write the new one) */
  readonly deltas: number
  /** the state differs from the stored one (something to store) */
  readonly changed: boolean
  /** the events of this step, numbered after the stored sequence */
  readonly events: ReadonlyArray<NumberedEvent>
  /** the sequence after them */
  readonly eventSeq: number
  /** the per-ticker memory after the step (undefined: the options keep none) */
  readonly memory: ReadonlyMap<number, Memory> | undefined
}

/** The message an actor may fail on: a tick's matches for its predicate and scope. */
export interface Evaluate {
  readonly _tag: "Evaluate"
  readonly matched: Int32Array
  /** the matches of its `clear_q` over the whole market (undefined: it has none) */
  readonly clear: Int32Array | undefined
}

export interface ActorState {
  armedAt: number
  stateSeq: number
  /** sorted ticker ids: the tickers inside (those matching, with the default options) */
  lastSet: Int32Array
  /** deltas stored on top of the last full write of the set */
  deltas: number
  /** the sequence of the webhook's last event */
  eventSeq: number
  /** per-ticker memory of the alert machine (empty without pending, cooldown or repeat) */
  memory: ReadonlyMap<number, Memory>
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
  readonly firing: FiringOptions
  /** the options are the defaults: the plain diff of match sets (`isPlain`) */
  readonly plain: boolean
  /** epoch ms until which its events are not delivered (the feed still has them), or null */
  readonly snoozedUntil: number | null
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

/**
 * Steps an actor's state with a tick's matches at `now`: the plain diff of match sets for the
 * default options (fired = newly matching), else the alert machine (`firing/machine.ts`).
 */
export const diff = (id: string, config: ActorConfig, state: ActorState, message: Evaluate, now: number): Outcome => {
  const matched = message.matched
  const suppressed = config.snoozedUntil !== null && now < config.snoozedUntil
  if (config.plain || (config.firing.clearQ === null && !needsMemoryOf(config, state))) {
    const { added, removed, changed } = plainDiff(state.lastSet, matched)
    const fired = config.firing.fireOn === "exit" ? EMPTY : added
    const cleared = firesOnExit(config.firing) ? removed : EMPTY
    const events =
      fired.length + cleared.length === 0
        ? NO_EVENTS
        : numberEvents({ fired, repeated: EMPTY, cleared }, state.eventSeq, suppressed)
    return {
      id,
      armedAt: state.armedAt,
      stateSeq: state.stateSeq,
      matchSet: matched,
      added,
      removed,
      deltas: state.deltas,
      changed,
      events,
      eventSeq: events.length === 0 ? state.eventSeq : events[events.length - 1]!.sequence,
      memory: undefined
    }
  }
  const step = stepFiring(config.firing, { inside: state.lastSet, memory: state.memory }, matched, message.clear, now)
  const next = step.state.inside
  const changed = step.changed
  const events = numberEvents(step, state.eventSeq, suppressed)
  return {
    id,
    armedAt: state.armedAt,
    stateSeq: state.stateSeq,
    matchSet: next,
    added: changed ? addedIds(state.lastSet, next) : EMPTY,
    removed: changed ? addedIds(next, state.lastSet) : EMPTY,
    deltas: state.deltas,
    changed,
    events,
    eventSeq: events.length === 0 ? state.eventSeq : events[events.length - 1]!.sequence,
    memory: step.state.memory
  }
}

const NO_EVENTS: ReadonlyArray<NumberedEvent> = []

/** the options keep per-ticker memory, or the state still holds some (options changed since) */
const needsMemoryOf = (config: ActorConfig, state: ActorState): boolean =>
  state.memory.size > 0 || needsMemory(config.firing)

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
  /** its `clear_q`'s pair (the whole market), evaluated on the ticks it is due */
  clearPair: Pair | undefined = undefined
  /** the clear result it is known to hold (with `synced`) */
  syncedClear: Int32Array | undefined = undefined
  /** epoch ms from which its memory may cause an event with unchanged matches (a pending entry, a repeat) */
  wakeAt = Number.POSITIVE_INFINITY

  constructor(
    readonly id: string,
    /** its slice (`webhooks.slice`, stored by the database) */
    readonly slice: number,
    public config: ActorConfig,
    state: ActorState
  ) {
    this.state = state
    this.wakeAt = nextWake(config.firing, state.memory)
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
      const outcome = diff(this.id, this.config, state, message, now)
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

  /** the tick's new state was stored (under the sequence it was diffed at) */
  adopt(o: Outcome, deltas: number): void {
    const state = this.state
    if (state === undefined || o.armedAt !== state.armedAt || o.stateSeq !== state.stateSeq) return
    state.lastSet = o.matchSet
    state.stateSeq++
    state.deltas = deltas
    state.eventSeq = o.eventSeq
    if (o.memory !== undefined) state.memory = o.memory
    this.wakeAt = nextWake(this.config.firing, state.memory)
  }

  /** takes a new configuration (an edit of its row): its memory may fall due at another time */
  reconfigure(config: ActorConfig): void {
    this.config = config
    if (this.state !== undefined) this.wakeAt = nextWake(config.firing, this.state.memory)
  }

  /** takes the stored state (a restart, an enable, a write by another instance) */
  reset(state: ActorState): void {
    this.state = state
    this.synced = undefined
    this.syncedClear = undefined
    this.wakeAt = nextWake(this.config.firing, state.memory)
  }

  /**
   * It holds the result of a tick with these matches at `now`: a plain actor when it holds them;
   * one with other options also when it holds its `clear_q`'s matches and its memory has nothing
   * due (a pending entry, a repeat).
   */
  upToDate(matched: Int32Array, now: number): boolean {
    if (this.synced !== matched) return false
    if (this.config.plain) return true
    return (this.clearPair === undefined || this.syncedClear === this.clearPair.result) && now < this.wakeAt
  }
}
