import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { type RuleParams, Rules } from "../../src/store/rules.js"
import { backends } from "../support/backends.js"

const account = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES (${id}, 'pro', 1, 1)`
  )

const params = {
  name: "Movers",
  q: "price > 10",
  universe: null,
  order: "day_change_pct",
  dir: "desc" as const,
  fields: [] as Array<string>
}

for (const backend of backends()) {
  describe(`rules store (${backend.name})`, () => {
    it.layer(Layer.fresh(Rules.Default).pipe(Layer.provideMerge(backend.layer())), { timeout: 60_000 })((it) => {
      it.effect("creates, reads, lists, replaces and deletes, scoped to the account", () =>
        Effect.gen(function* () {
          const store = yield* Rules
          yield* account("acc_a")
          yield* account("acc_b")
          const created = yield* store.create("acc_a", "rule_1", params)
          expect(created).toMatchObject({ ...params, id: "rule_1", accountId: "acc_a" })
          expect(typeof created.createdAt).toBe("number")
          yield* store.create("acc_a", "rule_2", { ...params, universe: "top_10", fields: ["rsi_14", "pe_ratio"] })
          yield* store.create("acc_b", "rule_3", params)
          expect(yield* store.get("acc_b", "rule_1")).toBeUndefined()
          expect((yield* store.get("acc_a", "rule_2"))?.fields).toEqual(["rsi_14", "pe_ratio"])
          expect((yield* store.list("acc_a", 1)).map((r) => r.id)).toEqual(["rule_1"])
          expect((yield* store.list("acc_a", 10, "rule_1")).map((r) => r.id)).toEqual(["rule_2"])
          const replaced = yield* store.replace("acc_a", "rule_1", { ...params, dir: "asc", universe: "mine" })
          expect(replaced).toMatchObject({ dir: "asc", universe: "mine" })
          expect(yield* store.replace("acc_b", "rule_1", params)).toBeUndefined()
          expect(yield* store.remove("acc_b", "rule_1")).toBe(false)
          expect(yield* store.remove("acc_a", "rule_1")).toBe(true)
          expect(yield* store.get("acc_a", "rule_1")).toBeUndefined()
        })
      )

      it.effect("concurrent edits of different parameters all hold: none writes back what it read", () =>
        Effect.gen(function* () {
          const store = yield* Rules
          yield* account("acc_c")
          yield* store.create("acc_c", "rule_c", { ...params, name: "n0", q: "q0" })
          const patch = (changes: Partial<RuleParams>) =>
            store.update("acc_c", "rule_c", (current) =>
              Effect.succeed({ ...current, ...changes } satisfies RuleParams)
            )
          for (let i = 1; i <= 30; i++) {
            const dir = i % 2 === 0 ? "desc" : "asc"
            yield* Effect.all(
              [patch({ name: `n${i}` }), patch({ q: `q${i}` }), patch({ dir }), patch({ fields: [`f${i}`] })],
              {
                concurrency: "unbounded"
              }
            )
            expect(yield* store.get("acc_c", "rule_c")).toMatchObject({
              name: `n${i}`,
              q: `q${i}`,
              dir,
              fields: [`f${i}`]
            })
          }
          // a failing edit writes nothing; a missing rule is not edited
          const failed = yield* Effect.either(store.update("acc_c", "rule_c", () => Effect.fail("invalid")))
          expect(failed).toMatchObject({ _tag: "Left", left: "invalid" })
          expect(yield* store.get("acc_c", "rule_c")).toMatchObject({ name: "n30" })
          expect(yield* store.update("acc_c", "rule_missing", () => Effect.die("not run"))).toBeUndefined()
        })
      )
    })
  })
}
