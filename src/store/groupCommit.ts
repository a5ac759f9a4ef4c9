/**
 * Group commit: the writes that wait at the same time are committed together.
 *
 * `makeGroupCommit(commit)` gives a function that queues an item and waits
 * for its result. One fiber (alive for the scope) takes every item waiting, at
 * most `max`, and hands them to `commit` in one call, which answers one result
 * per item in their order; the items that come meanwhile form the next group.
 * A lone write pays one round trip (or one transaction) as before; many
 * concurrent writes share one instead of queueing for a connection each (the
 * embedded database has a single one). A group whose `commit` fails is
 * committed again one item at a time, so one bad item fails alone.
 *
 * A caller interrupted while it waits does not take its item back: it is
 * committed with its group (as a statement already sent to the database would be).
 *
 * The waiting items are a plain array and each caller a callback (`Effect.async`), not a `Queue`
 * and a `Deferred` per item: a create takes three group commits (its key's claim, the webhook,
 * the key's answer), and the queue's and the deferreds' operations were a visible share of a
 * create's CPU (docs/benchmarks.md, "Issue 13: the direct create").
 */
import { Effect, Exit, type Fiber, FiberId, Runtime, type Scope } from "effect"

interface Waiter<I, O, E> {
  readonly item: I
  readonly resume: (result: Effect.Effect<O, E>) => void
}

export const makeGroupCommit = <I, O, E>(
  commit: (group: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>, E>,
  max: number
): Effect.Effect<(item: I) => Effect.Effect<O, E>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    let waiting: Array<Waiter<I, O, E>> = []
    /** the round committing now, if any */
    let current: Fiber.RuntimeFiber<void> | undefined
    /** the items of that round */
    let committing: ReadonlyArray<Waiter<I, O, E>> = []
    let closed = false

    const settle = (group: ReadonlyArray<Waiter<I, O, E>>, exit: Exit.Exit<ReadonlyArray<O>, E>) => {
      for (let i = 0; i < group.length; i++) {
        group[i]!.resume(Exit.isSuccess(exit) ? Exit.succeed(exit.value[i]!) : (exit as Exit.Exit<never, E>))
      }
    }

    const once = (group: ReadonlyArray<Waiter<I, O, E>>) =>
      Effect.exit(
        Effect.suspend(() => commit(group.map((w) => w.item))).pipe(
          Effect.filterOrDieMessage(
            (results) => results.length === group.length,
            "group commit: one result per item expected"
          )
        )
      )

    /** One group: every item waiting (at most `max`), committed together, else one at a time. */
    const round = Effect.suspend(() => {
      const group = waiting.length <= max ? waiting : waiting.slice(0, max)
      waiting = waiting.length <= max ? [] : waiting.slice(max)
      committing = group
      return Effect.flatMap(once(group), (exit) =>
        Exit.isSuccess(exit) || group.length === 1
          ? Effect.sync(() => settle(group, exit))
          : Effect.forEach(group, (w) => Effect.map(once([w]), (e) => settle([w], e)), { discard: true })
      )
    })

    /** Commits rounds while items wait; the items that come during a round form the next. */
    const drain = () => {
      const fiber = runFork(round)
      current = fiber
      fiber.addObserver(() => {
        current = undefined
        committing = []
        if (waiting.length > 0 && !closed) drain()
      })
    }

    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        current?.unsafeInterruptAsFork(FiberId.none)
        // a caller whose item cannot be committed any more is interrupted, not left waiting
        for (const w of [...committing, ...waiting]) w.resume(Effect.interrupt)
        waiting = []
      })
    )

    return (item: I) =>
      Effect.async<O, E>((resume) => {
        if (closed) return resume(Effect.interrupt)
        waiting.push({ item, resume })
        if (current === undefined) drain()
      })
  })
