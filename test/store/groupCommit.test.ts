/**
 * Group commit (src/store/groupCommit.ts): concurrent items share a commit, in their order, each
 * caller gets its own result; a group that fails is committed again one item at a time, so only
 * the bad item fails; a caller interrupted while it waits leaves its item to be committed; a
 * closed scope interrupts whoever still waits.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Either, Exit, Fiber, Scope } from "effect"
import { makeGroupCommit } from "../../src/store/groupCommit.js"

describe("group commit", () => {
  it.scopedLive("groups concurrent items, answers each its own result, isolates a bad item", () =>
    Effect.gen(function* () {
      const groups: Array<ReadonlyArray<number>> = []
      const commit = yield* makeGroupCommit(
        (group: ReadonlyArray<number>) =>
          Effect.gen(function* () {
            groups.push(group)
            yield* Effect.sleep("5 millis")
            if (group.includes(13)) return yield* Effect.fail(`bad ${13}` as const)
            return group.map((n) => n * 2)
          }),
        8
      )
      const results = yield* Effect.all(
        Array.from({ length: 20 }, (_, i) => Effect.either(commit(i))),
        { concurrency: "unbounded" }
      )
      expect(results.map((r) => (Either.isRight(r) ? r.right : r.left))).toEqual(
        Array.from({ length: 20 }, (_, i) => (i === 13 ? "bad 13" : i * 2))
      )
      // fewer commits than items, none larger than the maximum, each item in order
      const grouped = groups.filter((g) => g.length > 1)
      expect(grouped.length).toBeGreaterThan(0)
      expect(Math.max(...groups.map((g) => g.length))).toBeLessThanOrEqual(8)
      for (const g of groups) expect([...g].sort((a, b) => a - b)).toEqual(g)
      // the group holding 13 failed and was committed again one by one
      const failedGroup = groups.find((g) => g.length > 1 && g.includes(13))!
      for (const n of failedGroup) expect(groups.filter((g) => g.length === 1 && g[0] === n)).toHaveLength(1)
    })
  )

  it.scoped("commits the item of a caller interrupted while it waits", () =>
    Effect.gen(function* () {
      const committed: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const commit = yield* makeGroupCommit(
        (group: ReadonlyArray<string>) =>
          Effect.zipRight(
            Deferred.await(gate),
            Effect.sync(() => {
              committed.push(...group)
              return group
            })
          ),
        8
      )
      const first = yield* Effect.fork(commit("first"))
      yield* Effect.yieldNow()
      const second = yield* Effect.fork(commit("second"))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(second)
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(first)).toBe("first")
      // the next round commits the interrupted caller's item all the same
      expect(yield* commit("third")).toBe("third")
      expect(committed).toEqual(["first", "second", "third"])
    })
  )

  it.effect("interrupts the callers still waiting when its scope closes", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const commit = yield* Scope.extend(
        makeGroupCommit((group: ReadonlyArray<number>) => Effect.as(Effect.never, group), 8),
        scope
      )
      const waiting = yield* Effect.fork(commit(1))
      yield* Effect.yieldNow()
      const queued = yield* Effect.fork(commit(2))
      yield* Effect.yieldNow()
      yield* Scope.close(scope, Exit.void)
      expect(Exit.isInterrupted(yield* Fiber.await(waiting))).toBe(true)
      expect(Exit.isInterrupted(yield* Fiber.await(queued))).toBe(true)
      // and refuses what comes after
      expect(Exit.isInterrupted(yield* Effect.exit(commit(3)))).toBe(true)
    })
  )
})
