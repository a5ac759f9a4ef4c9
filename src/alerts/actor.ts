/**
 * One actor per active webhook: a fiber with a mailbox that owns the
 * webhook's match state.
 *
 * The actor does not scan: each evaluation tick it receives the tickers its
 * predicate matches now (sorted ticker ids, see `tickerIds.ts`, shared by
 * every webhook of the same predicate and scope), diffs them with its
 * `last_match_set` and reports the outcome (the new set and the newly
 * matching tickers) to the tick. It adopts the new set only when told the
 * tick was committed to the store (`Adopt`), so a failed commit leaves it on
 * the stored state and the next tick diffs again: no transition is lost or
 * fired twice.
 *
 * The evaluator messages an actor only when its predicate's result differs
 * from the set the actor is known to hold; an actor whose matches did not
 * move hears nothing that tick.
 *
 * The supervisor (`Alerts`) restarts a failed actor with backoff; a restart
 * reloads the state from the store, and an evaluation in flight is reported
 * as failed so the tick never waits for it.
 */
import { Deferred, Effect, Exit, Metric, Scheduler } from "effect"
import { addedIds, EMPTY } from "./tickerIds.js"

/**
 * The scheduler actors run on: Effect's default (microtasks, a timer every
 * 2,048 in a row), with one task queue for all of them. The default keeps a
 * queue per fiber, in a WeakMap keyed by the fiber (since Effect 3.20): with
 * 100,000 actors that is ~25 MB and 100,000 ephemerons every full GC must
 * trace in its final pause. Actors gain nothing from fairness between their
 * queues: each runs one short step per message.
 */
export class SharedQueueScheduler extends Scheduler.MixedScheduler {
  constructor() {
    super(2048)
  }
  override scheduleTask(task: Scheduler.Task, priority: number): void {
    super.scheduleTask(task, priority, undefined)
  }
}

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

/** One evaluation tick's rendezvous: actors push outcomes; the last one to answer completes `done`. */
export class Tick {
  /** the changed outcomes (a slot is emptied when the tick's persist step takes it) */
  readonly outcomes: Array<Outcome | undefined> = []
  readonly failed: Array<string> = []
  pending = 0
  constructor(readonly done: Deferred.Deferred<void>) {}
  answer(outcome: Outcome | undefined, id: string) {
    if (outcome === undefined) this.failed.push(id)
    else if (outcome.changed) this.outcomes.push(outcome)
    if (--this.pending === 0) Deferred.unsafeDone(this.done, Exit.void)
  }
}

export type Message =
  | { readonly _tag: "Evaluate"; readonly tick: Tick; readonly matched: Int32Array }
  | {
      readonly _tag: "Adopt"
      readonly armedAt: number
      readonly stateSeq: number
      readonly matchSet: Int32Array
      readonly deltas: number
    }
  | {
      readonly _tag: "Reset"
      readonly armedAt: number
      readonly stateSeq: number
      readonly matchSet: Int32Array
      readonly deltas: number
    }

export interface ActorState {
  armedAt: number
  stateSeq: number
  /** sorted ticker ids */
  lastSet: Int32Array
  /** deltas stored on top of the last full write of the set */
  deltas: number
}

export const actorsAlive = Metric.gauge("webhook_actors_alive", { description: "Webhook actors running" })
export const actorRestarts = Metric.counter("webhook_actor_restarts_total", {
  description: "Webhook actors restarted by their supervisor after a failure",
  incremental: true
})

/** Diffs a tick's matches with the actor's state. */
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

/**
 * An actor's inbox (named apart from `effect/Mailbox`): unbounded, FIFO, one reader. Lighter than
 * `Queue.unbounded` (an array and the waiting reader's callback): with
 * 100,000 actors an actor costs about 5 KB, a third of a `Queue` mailbox under
 * `Effect.retry` supervision (measured for docs/benchmarks.md).
 */
export class ActorInbox<A> {
  private items: Array<A | undefined> = []
  private head = 0
  private waiter: ((effect: Effect.Effect<A>) => void) | undefined = undefined
  /**
   * Takes the next message, waiting for one. It registers no canceler: an
   * interruptible `Effect.async` with one is wrapped in `onInterrupt`, which
   * costs a waiting fiber ~1.5 KB more (7 effect nodes, 11 closures). The
   * runtime ignores a resume after an interruption, and an actor's mailbox
   * dies with it (a new actor gets a new one), so the waiter left behind by an
   * interrupted take is never needed.
   */
  readonly take: Effect.Effect<A> = Effect.async<A>((resume) => {
    if (this.head < this.items.length) resume(Effect.succeed(this.shift()))
    else this.waiter = resume
  })

  private shift(): A {
    const a = this.items[this.head] as A
    this.items[this.head++] = undefined
    if (this.head === this.items.length) {
      this.items = []
      this.head = 0
    }
    return a
  }

  /** adds a message (never blocks) */
  offer(a: A): void {
    const waiter = this.waiter
    if (waiter !== undefined) {
      this.waiter = undefined
      waiter(Effect.succeed(a))
    } else this.items.push(a)
  }

  /** messages waiting */
  get size(): number {
    return this.items.length - this.head
  }
}

/** the supervisor's backoff before the n-th restart (from 0): 100 ms doubling, at most 30 s */
export const restartDelayMs = (n: number): number => Math.min(100 * 2 ** n, 30_000)

/** Test hook: a function that may throw while an actor handles a message (crash injection). */
export type FaultHook = (id: string, message: Message) => void

/**
 * The actor's loop. It starts from `initial` (the state read with the
 * webhook's row, so starting 100,000 actors costs no query each); `load`
 * reads the stored state after every restart (made only then: an effect
 * built per actor up front would cost ~1 KB each). `undefined` from either
 * (webhook gone or disabled) ends the actor.
 *
 * Memory is what bounds 100,000 actors, so a suspended actor holds as little
 * as it can besides its fiber (~3.4 KB alone): one object with its state, one
 * message handler, and a single `take → handle` effect that the handler
 * returns to loop — built once, not once per message as an `Effect.gen` loop
 * is (a generator-based actor held ~5.8 KB; docs/benchmarks.md).
 */
class ActorLoop {
  private state: ActorState | undefined
  /** take a message, handle it, and again (the handler returns this very effect) */
  readonly next: Effect.Effect<void>
  constructor(
    private readonly id: string,
    mailbox: ActorInbox<Message>,
    initial: ActorState | undefined,
    private readonly load: (id: string) => Effect.Effect<ActorState | undefined>,
    private readonly fault: FaultHook | undefined
  ) {
    this.state = initial
    this.next = Effect.flatMap(mailbox.take, this.handle)
  }

  /** one life: from the state it was started with, else the stored one */
  life(): Effect.Effect<void> {
    if (this.state !== undefined) return this.next
    return Effect.flatMap(this.load(this.id), (loaded) => {
      if (loaded === undefined) return Effect.void
      this.state = loaded
      return this.next
    })
  }

  private readonly handle = (message: Message): Effect.Effect<void> => {
    const state = this.state!
    switch (message._tag) {
      case "Evaluate": {
        let answered = false
        try {
          this.fault?.(this.id, message)
          const outcome = diff(this.id, state, message.matched)
          answered = true
          message.tick.answer(outcome, this.id)
        } catch (defect) {
          // the tick never waits for a failed actor: answered "failed", then the supervisor reloads
          if (!answered) message.tick.answer(undefined, this.id)
          return Effect.die(defect)
        }
        break
      }
      case "Adopt":
        if (message.armedAt === state.armedAt && message.stateSeq === state.stateSeq) {
          state.lastSet = message.matchSet
          state.stateSeq++
          state.deltas = message.deltas
        }
        break
      case "Reset":
        state.armedAt = message.armedAt
        state.stateSeq = message.stateSeq
        state.lastSet = message.matchSet
        state.deltas = message.deltas
        break
    }
    return this.next
  }

  /** supervision: log, count, back off, start a new life (its state reloaded from the store) */
  supervised(restarts: number): Effect.Effect<void> {
    return Effect.catchAllCause(
      Effect.suspend(() => this.life()),
      (cause) => {
        this.state = undefined
        return Effect.logWarning("webhook actor failed; restarting", cause).pipe(
          Effect.annotateLogs({ webhook_id: this.id }),
          Effect.zipRight(Metric.increment(actorRestarts)),
          Effect.zipRight(Effect.sleep(restartDelayMs(restarts))),
          Effect.zipRight(Effect.suspend(() => this.supervised(restarts + 1)))
        )
      }
    )
  }
}

export const runActor = (
  id: string,
  mailbox: ActorInbox<Message>,
  initial: ActorState | undefined,
  load: (id: string) => Effect.Effect<ActorState | undefined>,
  fault?: FaultHook
): Effect.Effect<void> => new ActorLoop(id, mailbox, initial, load, fault).supervised(0)
