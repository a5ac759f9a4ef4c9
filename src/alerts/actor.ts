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
import { Deferred, Effect, Exit, Metric } from "effect"
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

/** One evaluation tick's rendezvous: actors push outcomes; the last one to answer completes `done`. */
export class Tick {
  readonly outcomes: Array<Outcome> = []
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
 * An actor's mailbox: unbounded, FIFO, one reader. Lighter than
 * `Queue.unbounded` (an array and the waiting reader's callback): with
 * 100,000 actors an actor costs about 5 KB, a third of a `Queue` mailbox under
 * `Effect.retry` supervision (measured for docs/benchmarks.md).
 */
export class Mailbox<A> {
  private items: Array<A | undefined> = []
  private head = 0
  private waiter: ((effect: Effect.Effect<A>) => void) | undefined = undefined
  /** takes the next message, waiting for one */
  readonly take: Effect.Effect<A> = Effect.async<A>((resume) => {
    if (this.head < this.items.length) return resume(Effect.succeed(this.shift()))
    this.waiter = resume
    return Effect.sync(() => {
      if (this.waiter === resume) this.waiter = undefined
    })
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
 * reads the stored state after every restart. `undefined` from either
 * (webhook gone or disabled) ends the actor.
 */
export const runActor = (
  id: string,
  mailbox: Mailbox<Message>,
  initial: ActorState | undefined,
  load: Effect.Effect<ActorState | undefined>,
  fault?: FaultHook
): Effect.Effect<void> => {
  let first: ActorState | undefined = initial
  const life = Effect.gen(function* () {
    const state = first ?? (yield* load)
    first = undefined
    if (state === undefined) return
    for (;;) {
      const message = yield* mailbox.take
      switch (message._tag) {
        case "Evaluate": {
          let answered = false
          yield* Effect.sync(() => {
            fault?.(id, message)
            const outcome = diff(id, state, message.matched)
            answered = true
            message.tick.answer(outcome, id)
          }).pipe(
            Effect.onExit((exit) =>
              Effect.sync(() => {
                if (Exit.isFailure(exit) && !answered) message.tick.answer(undefined, id)
              })
            )
          )
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
    }
  })
  // supervision: log, count, back off, start a new life (its state reloaded from the store)
  const supervised = (restarts: number): Effect.Effect<void> =>
    life.pipe(
      Effect.catchAllCause((cause) =>
        Effect.logWarning("webhook actor failed; restarting", cause).pipe(
          Effect.annotateLogs({ webhook_id: id }),
          Effect.zipRight(Metric.increment(actorRestarts)),
          Effect.zipRight(Effect.sleep(restartDelayMs(restarts))),
          Effect.zipRight(Effect.suspend(() => supervised(restarts + 1)))
        )
      )
    )
  return supervised(0)
}
