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
 */
import { Chunk, Deferred, Effect, Exit, Queue, type Scope } from "effect"

interface Pending<I, O, E> {
  readonly item: I
  readonly done: Deferred.Deferred<O, E>
}

export const makeGroupCommit = <I, O, E>(
  commit: (group: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>, E>,
  max: number
): Effect.Effect<(item: I) => Effect.Effect<O, E>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<Pending<I, O, E>>()
    yield* Effect.addFinalizer(() => Queue.shutdown(queue))

    const settle = (group: ReadonlyArray<Pending<I, O, E>>, exit: Exit.Exit<ReadonlyArray<O>, E>) =>
      Effect.forEach(
        group,
        (p, i) =>
          Deferred.done(
            p.done,
            Exit.map(exit, (results) => results[i]!)
          ),
        {
          discard: true
        }
      )

    const once = (group: ReadonlyArray<Pending<I, O, E>>) =>
      Effect.exit(
        Effect.suspend(() => commit(group.map((p) => p.item))).pipe(
          Effect.filterOrDieMessage(
            (results) => results.length === group.length,
            "group commit: one result per item expected"
          )
        )
      )

    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function* () {
          const group = Chunk.toReadonlyArray(yield* Queue.takeBetween(queue, 1, max))
          const exit = yield* once(group)
          if (Exit.isSuccess(exit) || group.length === 1) return yield* settle(group, exit)
          yield* Effect.forEach(group, (p) => Effect.flatMap(once([p]), (e) => settle([p], e)), { discard: true })
        })
      )
    )

    return (item: I) =>
      Effect.flatMap(Deferred.make<O, E>(), (done) =>
        Effect.zipRight(Queue.offer(queue, { item, done }), Deferred.await(done))
      )
  })
