import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Universes } from "../../src/store/universes.js"
import { backends } from "../support/backends.js"

const account = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES (${id}, 'pro', 1, 1)`
  )

for (const backend of backends()) {
  describe(`universes store (${backend.name})`, () => {
    it.layer(Layer.fresh(Universes.Default).pipe(Layer.provideMerge(backend.layer())), { timeout: 60_000 })((it) => {
      it.effect("creates, reads, lists, updates and deletes, scoped to the account", () =>
        Effect.gen(function* () {
          const store = yield* Universes
          yield* account("acc_a")
          yield* account("acc_b")
          const created = yield* store.create({
            accountId: "acc_a",
            id: "tech",
            name: "Tech",
            description: null,
            tickers: ["AAPL", "MSFT"]
          })
          expect(created).toMatchObject({ id: "tech", name: "Tech", description: null, tickers: ["AAPL", "MSFT"] })
          if (created === "taken") throw new Error("unexpected")
          expect(typeof created.createdAt).toBe("number")
          expect(
            yield* store.create({ accountId: "acc_a", id: "tech", name: "Again", description: null, tickers: ["A"] })
          ).toBe("taken")
          // the same id in another account is another universe
          expect(
            yield* store.create({ accountId: "acc_b", id: "tech", name: "B", description: "d", tickers: ["NVDA"] })
          ).toMatchObject({ accountId: "acc_b", tickers: ["NVDA"] })
          expect((yield* store.get("acc_a", "tech"))?.tickers).toEqual(["AAPL", "MSFT"])
          expect(yield* store.get("acc_a", "nope")).toBeUndefined()

          for (const id of ["a1", "a2", "a3"]) {
            yield* store.create({ accountId: "acc_a", id, name: id, description: null, tickers: ["SPY"] })
          }
          expect((yield* store.list("acc_a", 2)).map((u) => u.id)).toEqual(["a1", "a2"])
          expect((yield* store.list("acc_a", 10, "a2")).map((u) => u.id)).toEqual(["a3", "tech"])

          const updated = yield* store.update("acc_a", "tech", { description: "big tech", tickers: ["AAPL"] })
          expect(updated).toMatchObject({ name: "Tech", description: "big tech", tickers: ["AAPL"] })
          expect(yield* store.update("acc_a", "missing", { name: "x" })).toBeUndefined()
          expect((yield* store.get("acc_b", "tech"))?.tickers).toEqual(["NVDA"])

          expect(yield* store.remove("acc_b", "a1")).toBe(false)
          expect(yield* store.remove("acc_a", "a1")).toBe(true)
          expect(yield* store.remove("acc_a", "a1")).toBe(false)
          expect(yield* store.get("acc_a", "a1")).toBeUndefined()
        })
      )

      it.effect("stores 5,000 tickers", () =>
        Effect.gen(function* () {
          const store = yield* Universes
          yield* account("acc_big")
          const tickers = Array.from({ length: 5000 }, (_, i) => `T${i}`)
          yield* store.create({ accountId: "acc_big", id: "big", name: "Big", description: null, tickers })
          expect((yield* store.get("acc_big", "big"))?.tickers).toEqual(tickers)
        })
      )
    })
  })
}
