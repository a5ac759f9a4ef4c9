/**
 * Who may touch a webhook: the plan gate (`webhooks` in `PLAN_LIMITS`), the caller's own webhook by
 * id (another account's is a 404), and a change told to the evaluator with the record answered.
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { Alerts } from "../../alerts/Alerts.js"
import { type WebhookRecord, Webhooks } from "../../store/webhooks.js"
import { requireFeature } from "../common/features.js"
import { BadRequest, NotFound, orUnavailable } from "../errors.js"
import { webhookRenderer } from "./render.js"

export const WEBHOOK_ID = /^wh_[A-Za-z0-9_-]{1,64}$/
export const notFound = (what: string, id: string) =>
  new NotFound({ message: `${what} ${JSON.stringify(id)} not found` })

/** 403 `webhook_tier_required` unless the account's plan has webhooks (`PLAN_LIMITS`). */
export const requireWebhooks = (key: AuthenticatedKey) => requireFeature(key, "webhooks", "using webhooks")

const checkId = (key: AuthenticatedKey, id: string) =>
  Effect.zipRight(
    requireWebhooks(key),
    WEBHOOK_ID.test(id)
      ? Effect.void
      : Effect.fail(new BadRequest({ message: `invalid webhook id ${JSON.stringify(id)}: ids look like wh_…` }))
  )

/** The caller's webhook `id` as `read` finds it: 403 without webhooks, 400 for a malformed id, 404 for another's. */
const ownedVia = <A>(
  key: AuthenticatedKey,
  id: string,
  read: (store: Webhooks) => Effect.Effect<A | undefined, SqlError>
) =>
  Effect.gen(function* () {
    yield* checkId(key, id)
    const found = yield* orUnavailable(read(yield* Webhooks))
    if (found === undefined) return yield* notFound("webhook", id)
    return found
  })

/** The caller's webhook `id`: 403 without webhooks on the plan, 400 for a malformed id, 404 for another's. */
export const owned = (key: AuthenticatedKey, id: string) => ownedVia(key, id, (store) => store.get(key.account.id, id))

/** `owned`, with the evaluation ticks read in the same statement (for `last_evaluated_at`). */
export const ownedWithTicks = (key: AuthenticatedKey, id: string) =>
  ownedVia(key, id, (store) => store.getWithTicks(key.account.id, id))

/** A webhook's change told to the evaluator at once, and the record as answered. */
export const changed = (w: WebhookRecord) =>
  Effect.flatMap(Alerts, (alerts) =>
    Effect.zipRight(
      alerts.changed(w),
      Effect.map(webhookRenderer, (doc) => doc(w))
    )
  )
