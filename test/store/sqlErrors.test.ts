/**
 * The SQLSTATEs the stores answer by (`src/store/sqlErrors.ts`) reach them from both drivers: a
 * delivery queued for a webhook deleted meanwhile is a foreign-key violation (the test ping's
 * 404), a key stored twice a unique violation.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Deliveries } from "../../src/store/deliveries.js"
import { isForeignKeyViolation, isUniqueViolation } from "../../src/store/sqlErrors.js"
import { backends } from "../support/backends.js"

const delivery = (webhookId: string) => ({
  id: "dlv_1",
  webhookId,
  accountId: "acc_a",
  event: "webhook.fired",
  eventId: "evt_1",
  channel: "in_app" as const,
  targetUrl: "https://example.test/hook",
  test: true,
  payload: "{}",
  dueAt: 1
})

for (const backend of backends()) {
  describe(`SQL error codes (${backend.name})`, () => {
    it.layer(Deliveries.Default.pipe(Layer.provideMerge(backend.layer())), { timeout: 120_000 })((it) => {
      it.effect("a delivery for a webhook that is gone: foreign key; the same key twice: unique", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const deliveries = yield* Deliveries
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'pro', 1, 1)`
          const gone = yield* Effect.flip(deliveries.enqueue([delivery("wh_gone")]))
          expect(isForeignKeyViolation(gone)).toBe(true)
          expect(isUniqueViolation(gone)).toBe(false)
          const twice = yield* Effect.flip(
            sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'pro', 1, 1)`
          )
          expect(isUniqueViolation(twice)).toBe(true)
          expect(isForeignKeyViolation(twice)).toBe(false)
        })
      )
    })
  })
}
