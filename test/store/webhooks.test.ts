import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Webhooks } from "../../src/store/webhooks.js"
import { backends } from "../support/backends.js"
import { inAppConfig } from "../support/webhooks.js"

for (const backend of backends()) {
  describe(`webhooks store (${backend.name})`, () => {
    it.layer(Layer.fresh(Webhooks.Default).pipe(Layer.provideMerge(backend.layer())), { timeout: 60_000 })((it) => {
      it.effect("concurrent patches of different fields both hold: none writes back what it read", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const store = yield* Webhooks
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_w', 'pro', 1, 1)`
          const created = yield* store.create("acc_w", "wh_p", inAppConfig("n0", "price > 10", ["f0"]), null)
          expect(created._tag).toBe("Created")
          for (let i = 1; i <= 30; i++) {
            yield* Effect.all(
              [
                store.update("acc_w", "wh_p", { name: `n${i}` }),
                store.update("acc_w", "wh_p", { fields: [`f${i}`] }),
                store.update("acc_w", "wh_p", { cadence: i % 2 === 0 ? "realtime" : "hourly" })
              ],
              { concurrency: "unbounded" }
            )
            const after = yield* store.get("acc_w", "wh_p")
            expect([after?.name, after?.fields, after?.cadence]).toEqual([
              `n${i}`,
              [`f${i}`],
              i % 2 === 0 ? "realtime" : "hourly"
            ])
          }
          expect(yield* store.update("acc_w", "wh_missing", { name: "x" })).toBeUndefined()
        })
      )
    })
  })
}
