/**
 * A tick whose changes take several transactions (`src/alerts/commit.ts`: at most 2,000 webhooks
 * each). Every state is written and every fire queued exactly once, in order, and the actors hold
 * what was stored: the next ticks fire only what is new, and an unchanged market fires nothing.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Alerts } from "../../src/alerts/Alerts.js"
import { DEFAULT_FIRING } from "../../src/alerts/firing/options.js"
import { Webhooks } from "../../src/store/webhooks.js"
import { backends } from "../support/backends.js"
import { layerFor, snapshot } from "./support.js"

const MIN = 60_000
const T0 = Date.UTC(2026, 10, 23, 15)
/** more than one transaction's 2,000: two transactions */
const WEBHOOKS = 2_400

for (const backend of backends()) {
  describe(`a tick committed in several transactions (${backend.name})`, () => {
    it.scoped(
      "each webhook's state and fires stored once, in sequence; the actors hold what was stored",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'scale', 1, 1)`
          yield* TestClock.setTime(T0)
          const webhooks = yield* Webhooks
          const items = Array.from({ length: WEBHOOKS }, (_, k) => ({
            id: `wh_${String(k).padStart(4, "0")}`,
            config: {
              name: `w${k}`,
              // half with exit events: two events a change for those
              q: "rsi_14 < 30",
              universeId: null,
              cadence: "realtime" as const,
              channel: "in_app" as const,
              targetUrl: null,
              chatUrl: null,
              deviceId: null,
              signingSecret: null,
              fields: ["rsi_14"],
              origin: { type: "query" as const, ref: null, condition: "rsi_14 < 30" },
              firing: k % 2 === 0 ? DEFAULT_FIRING : { ...DEFAULT_FIRING, fireOn: "both" as const }
            }
          }))
          const created = yield* webhooks.createBatch("acc_a", items, null)
          expect(created._tag).toBe("Created")
          const alerts = yield* Alerts
          const at = (minute: number, rsi: Record<string, number>) =>
            Effect.gen(function* () {
              yield* TestClock.setTime(T0 + minute * MIN)
              const r = yield* alerts.evaluate(snapshot(T0 + minute * MIN - 5_000, {}, rsi))
              expect(r).not.toHaveProperty("error")
              return r
            })

          const first = yield* at(1, { AAA: 20 })
          expect(first.fires).toBe(WEBHOOKS)
          const second = yield* at(2, { AAA: 20, BBB: 25 })
          expect(second.fires).toBe(WEBHOOKS)
          // nothing new: nothing fires, nothing is written
          const third = yield* at(3, { AAA: 20, BBB: 25 })
          expect(third.fires).toBe(0)
          expect(third.phases?.changed ?? 0).toBe(0)
          // both leave: only the `fire_on: both` half sends an event
          const fourth = yield* at(4, {})
          expect(fourth.fires).toBe(0)

          const events = yield* sql<{ webhook_id: string; sequence: number | string; type: string }>`
            SELECT webhook_id, sequence, type FROM webhook_events ORDER BY webhook_id, sequence`
          const byWebhook = new Map<string, Array<string>>()
          for (const e of events) {
            const list = byWebhook.get(e.webhook_id) ?? []
            list.push(`${Number(e.sequence)} ${e.type}`)
            byWebhook.set(e.webhook_id, list)
          }
          expect(byWebhook.size).toBe(WEBHOOKS)
          for (const [k, item] of items.entries()) {
            expect(byWebhook.get(item.id), item.id).toEqual(
              k % 2 === 0
                ? ["1 webhook.fired", "2 webhook.fired"]
                : ["1 webhook.fired", "2 webhook.fired", "3 webhook.cleared"]
            )
          }
          const queued = yield* sql<{ n: number | string }>`SELECT count(*) AS n FROM deliveries`
          expect(Number(queued[0]!.n)).toBe(2 * WEBHOOKS + WEBHOOKS / 2)
          const states = yield* sql<{ n: number | string }>`SELECT count(*) AS n FROM webhook_states
            WHERE evaluated_at = ${T0 + 4 * MIN}`
          expect(Number(states[0]!.n)).toBe(WEBHOOKS)
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      120_000
    )
  })
}
