/**
 * One actor per active webhook: a fiber with a mailbox that owns the
 * webhook's match state.
 *
 * The actor does not scan: each evaluation tick it receives the tickers its
 * predicate matches now, diffs them with its `last_match_set` and reports
 * the outcome (the new set and the newly matching tickers) to the tick. It
 * adopts the new set only when told the tick was committed to the store
 * (`Adopt`), so a failed commit leaves it on the stored state and the next
 * tick diffs again: no transition is lost or fired twice.
 *
 * The supervisor (`Alerts`) restarts a failed actor with backoff; a restart
 * reloads the state from the store, and an evaluation in flight is reported
 * as failed so the tick never waits for it.
 */
import { Deferred, Effect, Exit, Metric, Queue, Schedule } from "effect"
import { newlyMatching } from "./payload.js"

/** What one actor reports for one tick. */
export interface Outcome {
  readonly id: string
  readonly armedAt: number
  /** the tickers matching now, ascending */
  readonly matchSet: ReadonlyArray<string>
  /** tickers that newly match (empty: no fire) */
  readonly added: ReadonlyArray<string>
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
  | { readonly _tag: "Evaluate"; readonly tick: Tick; readonly matched: ReadonlyArray<string> }
  | { readonly _tag: "Adopt"; readonly armedAt: number; readonly matchSet: ReadonlyArray<string> }
  | { readonly _tag: "Reset"; readonly armedAt: number; readonly matchSet: ReadonlyArray<string> }

export interface ActorState {
  armedAt: number
  lastSet: Set<string>
}

export const actorsAlive = Metric.gauge("webhook_actors_alive", { description: "Webhook actors running" })
export const actorRestarts = Metric.counter("webhook_actor_restarts_total", {
  description: "Webhook actors restarted by their supervisor after a failure",
  incremental: true
})

/** Diffs a tick's matches with the actor's state. */
export const diff = (id: string, state: ActorState, matched: ReadonlyArray<string>): Outcome => {
  const added = newlyMatching(state.lastSet, matched)
  return {
    id,
    armedAt: state.armedAt,
    matchSet: matched,
    added,
    changed: added.length > 0 || matched.length !== state.lastSet.size
  }
}

/** Test hook: a function that may throw while an actor handles a message (crash injection). */
export type FaultHook = (id: string, message: Message) => void

/**
 * The actor's loop. `load` reads the stored state (at start and after every
 * restart); `undefined` from it (webhook gone or disabled) ends the actor.
 */
export const runActor = (
  id: string,
  mailbox: Queue.Queue<Message>,
  load: Effect.Effect<ActorState | undefined>,
  fault?: FaultHook
): Effect.Effect<void> => {
  const life = Effect.gen(function* () {
    const state = yield* load
    if (state === undefined) return
    for (;;) {
      const message = yield* Queue.take(mailbox)
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
          if (message.armedAt === state.armedAt) state.lastSet = new Set(message.matchSet)
          break
        case "Reset":
          state.armedAt = message.armedAt
          state.lastSet = new Set(message.matchSet)
          break
      }
    }
  })
  return life.pipe(
    Effect.sandbox,
    Effect.tapError((cause) =>
      Effect.logWarning("webhook actor failed; restarting", cause).pipe(
        Effect.annotateLogs({ webhook_id: id }),
        Effect.zipRight(Metric.increment(actorRestarts))
      )
    ),
    Effect.retry(Schedule.exponential("100 millis").pipe(Schedule.union(Schedule.spaced("30 seconds")))),
    Effect.catchAll(() => Effect.void)
  )
}
