import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Option, TestClock } from "effect"
import { SignalResolver } from "../../src/signals/SignalResolver.js"
import { CustomSignals, CustomSignalsLive } from "../../src/store/customSignals.js"
import { backends } from "../support/backends.js"

const account = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES (${id}, 'pro', 0, 0)`
  )

for (const backend of backends()) {
  describe(`custom signals store (${backend.name})`, () => {
    it.layer(Layer.fresh(CustomSignalsLive).pipe(Layer.provideMerge(backend.layer())), { timeout: 60_000 })((it) => {
      it.effect("creates, reads, updates and deletes with Clock timestamps", () =>
        Effect.gen(function* () {
          const repo = yield* CustomSignals
          yield* account("acc_crud")
          yield* TestClock.setTime(1_700_000_000_500)
          const created = yield* repo.create(
            "acc_crud",
            { name: "breakout", expr: "price > 10", description: null },
            10
          )
          expect(created).toEqual({
            name: "breakout",
            description: null,
            expr: "price > 10",
            createdAt: 1_700_000_000,
            updatedAt: 1_700_000_000
          })
          expect(yield* repo.get("acc_crud", "breakout")).toEqual(Option.some(created))
          expect(yield* repo.get("acc_crud", "nope")).toEqual(Option.none())

          yield* TestClock.setTime(1_700_000_100_000)
          const patched = yield* repo.update("acc_crud", "breakout", { description: "above ten" })
          expect(Option.getOrThrow(patched)).toMatchObject({
            expr: "price > 10",
            description: "above ten",
            createdAt: 1_700_000_000,
            updatedAt: 1_700_000_100
          })
          const reexpr = yield* repo.update("acc_crud", "breakout", { expr: "price > 20" })
          expect(Option.getOrThrow(reexpr)).toMatchObject({ expr: "price > 20", description: "above ten" })
          const cleared = yield* repo.update("acc_crud", "breakout", { description: null })
          expect(Option.getOrThrow(cleared).description).toBeNull()
          expect(Option.isNone(yield* repo.update("acc_crud", "missing", { expr: "true" }))).toBe(true)

          expect(yield* repo.remove("acc_crud", "breakout")).toBe(true)
          expect(yield* repo.remove("acc_crud", "breakout")).toBe(false)
          expect(yield* repo.count("acc_crud")).toBe(0)
        })
      )

      it.effect("refuses a taken name and the plan cap; other accounts may reuse a name", () =>
        Effect.gen(function* () {
          const repo = yield* CustomSignals
          yield* account("acc_a")
          yield* account("acc_b")
          yield* repo.create("acc_a", { name: "s1", expr: "gap_up", description: null }, 2)
          const dup = yield* Effect.either(repo.create("acc_a", { name: "s1", expr: "gap_down", description: null }, 2))
          expect(Either.isLeft(dup) && dup.left._tag).toBe("CustomSignalExists")
          yield* repo.create("acc_a", { name: "s2", expr: "gap_up", description: null }, 2)
          const capped = yield* Effect.either(
            repo.create("acc_a", { name: "s3", expr: "gap_up", description: null }, 2)
          )
          expect(Either.isLeft(capped) && capped.left._tag).toBe("CustomSignalLimitReached")
          yield* repo.create("acc_b", { name: "s1", expr: "rsi_oversold", description: "b's" }, null)
          expect((yield* repo.get("acc_b", "s1")).pipe(Option.map((s) => s.expr))).toEqual(Option.some("rsi_oversold"))
          expect(yield* repo.count("acc_a")).toBe(2)
        })
      )

      it.effect("concurrent creates never pass the cap", () =>
        Effect.gen(function* () {
          const repo = yield* CustomSignals
          yield* account("acc_race")
          const results = yield* Effect.all(
            Array.from({ length: 8 }, (_, i) =>
              Effect.either(repo.create("acc_race", { name: `r${i}`, expr: "gap_up", description: null }, 3))
            ),
            { concurrency: "unbounded" }
          )
          expect(results.filter(Either.isRight)).toHaveLength(3)
          expect(yield* repo.count("acc_race")).toBe(3)
        })
      )

      it.effect("pages by name with a keyset and resolves name → expr", () =>
        Effect.gen(function* () {
          const repo = yield* CustomSignals
          yield* account("acc_page")
          for (const name of ["delta", "alpha", "echo", "charlie", "bravo"]) {
            yield* repo.create("acc_page", { name, expr: `price > ${name.length}`, description: null }, null)
          }
          const first = yield* repo.list("acc_page", undefined, 2)
          expect(first.signals.map((s) => s.name)).toEqual(["alpha", "bravo"])
          expect(first.more).toBe(true)
          const second = yield* repo.list("acc_page", "bravo", 2)
          expect(second.signals.map((s) => s.name)).toEqual(["charlie", "delta"])
          const last = yield* repo.list("acc_page", "delta", 2)
          expect(last.signals.map((s) => s.name)).toEqual(["echo"])
          expect(last.more).toBe(false)

          const resolver = yield* SignalResolver
          const signals = yield* resolver.signalsFor("acc_page")
          expect([...signals.names].sort()).toEqual(["alpha", "bravo", "charlie", "delta", "echo"])
          expect(signals.get("echo")).toBe("price > 4")
          expect((yield* resolver.signalsFor("acc_nobody")).names).toEqual([])
        })
      )

      it.effect("deleting the account deletes its signals", () =>
        Effect.gen(function* () {
          const repo = yield* CustomSignals
          const sql = yield* SqlClient.SqlClient
          yield* account("acc_gone")
          yield* repo.create("acc_gone", { name: "x", expr: "gap_up", description: null }, null)
          yield* sql`DELETE FROM accounts WHERE id = 'acc_gone'`
          expect(yield* repo.count("acc_gone")).toBe(0)
        })
      )
    })
  })
}
