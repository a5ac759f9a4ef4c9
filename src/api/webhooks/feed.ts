/**
 * A webhook's event feed and snooze (issue 16): `GET /v2/webhooks/{id}/events` pages the events
 * after a sequence (`WebhookEvents`); `POST`/`DELETE /v2/webhooks/{id}/snooze` set or end the
 * time until which events are written to the feed but not delivered.
 */
import { Clock, Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { DAY_MS } from "../../market/indicators/days.js"
import { WebhookEvents } from "../../store/webhookEvents.js"
import { Webhooks } from "../../store/webhooks.js"
import { nowIso } from "../common/clock.js"
import { pageSize } from "../common/params.js"
import { BadRequest, orUnavailable } from "../errors.js"
import { changed, notFound, owned } from "./access.js"

/** the furthest ahead a snooze may end */
const MAX_SNOOZE_MS = 30 * DAY_MS

/** A snooze's end: ISO 8601 or epoch seconds, in the future, at most 30 days ahead (epoch ms). */
const snoozeEnd = (raw: string | number, now: number) => {
  const ms =
    typeof raw === "number"
      ? raw * 1000
      : /^\d+(\.\d+)?$/.test(raw.trim())
        ? Number(raw.trim()) * 1000
        : /^\d{4}-\d{2}-\d{2}/.test(raw.trim())
          ? Date.parse(raw.trim())
          : Number.NaN
  if (!Number.isFinite(ms)) {
    return Effect.fail(
      new BadRequest({
        message: `until must be an ISO 8601 time (e.g. 2026-11-28T14:30:00Z) or epoch seconds (got ${JSON.stringify(raw)})`
      })
    )
  }
  if (ms <= now)
    return Effect.fail(new BadRequest({ message: `until must be in the future (got ${JSON.stringify(raw)})` }))
  if (ms > now + MAX_SNOOZE_MS) {
    return Effect.fail(new BadRequest({ message: `until must be at most 30 days ahead (got ${JSON.stringify(raw)})` }))
  }
  return Effect.succeed(Math.round(ms))
}

export const snooze = (key: AuthenticatedKey, id: string, until: string | number | null) =>
  Effect.gen(function* () {
    const w = yield* owned(key, id)
    const end = until === null ? null : yield* snoozeEnd(until, yield* Clock.currentTimeMillis)
    const updated = yield* orUnavailable((yield* Webhooks).snooze(key.account.id, w.id, end))
    if (updated === undefined) return yield* notFound("webhook", id)
    return yield* changed(updated)
  })

/** The webhook's event feed after sequence `after`, ascending (see `WebhookEvents`). */
export const eventsOf = (
  key: AuthenticatedKey,
  id: string,
  urlParams: { readonly after?: number | undefined; readonly limit?: number | undefined }
) =>
  Effect.gen(function* () {
    const w = yield* owned(key, id)
    const after = urlParams.after ?? 0
    if (!Number.isSafeInteger(after) || after < 0) {
      return yield* new BadRequest({ message: `after must be a sequence number, an integer ≥ 0 (got ${after})` })
    }
    const limit = yield* pageSize(urlParams.limit, 100, 50)
    const page = yield* orUnavailable((yield* WebhookEvents).page(w.id, after, limit))
    const last = page.events.at(-1)
    return {
      as_of: yield* nowIso,
      oldest_sequence: page.oldest,
      count: page.events.length,
      next_cursor: last !== undefined && page.events.length === limit ? String(last.sequence) : null,
      events: page.events.map((e) => ({
        sequence: e.sequence,
        type: e.type as "webhook.fired" | "webhook.cleared",
        created_at: Math.floor(e.createdAt / 1000),
        data_as_of: new Date(e.dataAsOf).toISOString(),
        suppressed: e.suppressed,
        body: JSON.parse(e.body) as unknown
      }))
    }
  })
