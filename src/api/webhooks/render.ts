/** Webhook and delivery records as the API shows them (`Webhook`, `Delivery` in Api.ts). */
import { Clock, Effect } from "effect"
import { nextInstant } from "../../alerts/cadence.js"
import { Market } from "../../market/Market.js"
import type { DeliveryRecord } from "../../store/deliveries.js"
import { type Cadence, effectiveLastEvaluated, type WebhookRecord, Webhooks } from "../../store/webhooks.js"
import { orUnavailable } from "../errors.js"
import { firingDoc } from "./firing.js"

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000))

const toDoc = (w: WebhookRecord, ticks: ReadonlyMap<Cadence, number>, refreshMs: number, now: number) => {
  const last = effectiveLastEvaluated(w, ticks)
  return {
    id: w.id,
    name: w.name,
    q: w.q,
    universe_id: w.universeId,
    cadence: w.cadence,
    target_url: w.channel === "webhook" ? w.targetUrl : null,
    channel: w.channel,
    delivery: w.channel,
    channel_config_present: w.chatUrl !== null,
    device_id: w.deviceId,
    fields: [...w.fields],
    status: w.status,
    disabled_reason: w.disabledReason,
    source: "v2" as const,
    subscription_origin: { type: w.origin.type, ref: w.origin.ref, condition: w.origin.condition },
    created_at: w.createdAt,
    updated_at: w.updatedAt,
    last_match_set: [...w.lastMatchSet],
    last_evaluated_at: seconds(last),
    next_eval_at:
      w.status === "active" ? seconds(nextInstant(w.cadence, Math.max(last ?? now, now - 1), refreshMs)) : null,
    last_fired: w.lastFired,
    ...firingDoc(w.firing),
    snoozed_until: seconds(w.snoozedUntil)
  }
}

export const deliveryDoc = (d: DeliveryRecord) => ({
  id: d.id,
  webhook_id: d.webhookId,
  event: d.event,
  event_id: d.eventId,
  target_url: d.targetUrl,
  test: d.test,
  attempt: d.attempt,
  status: d.status,
  next_attempt_at: d.status === "pending" ? Math.floor(d.dueAt / 1000) : null,
  last_status_code: d.lastStatusCode,
  last_error: d.lastError,
  created_at: d.createdAt,
  delivered_at: d.deliveredAt
})

/** Renders records with the evaluator's tick times `ticks`. */
export const webhookRendererWith = (ticks: ReadonlyMap<Cadence, number>) =>
  Effect.gen(function* () {
    const market = yield* Market
    const now = yield* Clock.currentTimeMillis
    return (w: WebhookRecord) => toDoc(w, ticks, market.refreshInterval, now)
  })

/** Renders records with the evaluator's tick times (read from the store). */
export const webhookRenderer = Effect.flatMap(
  Effect.flatMap(Webhooks, (w) => orUnavailable(w.ticks)),
  webhookRendererWith
)
