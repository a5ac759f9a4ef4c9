/** The in-app inbox: an account's notifications (alerts of `in_app` webhooks), newest first, and read state. */
import { Clock, Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { Deliveries } from "../../store/deliveries.js"
import { requireFeature } from "../common/features.js"
import { pageSize } from "../common/params.js"
import { Cursors, readCursor } from "../cursor.js"
import { BadRequest, orUnavailable } from "../errors.js"

/** A `[created_at, id]` keyset position. */
const timeAndId = (p: unknown): readonly [number, string] | undefined =>
  Array.isArray(p) && p.length === 2 && typeof p[0] === "number" && typeof p[1] === "string" ? [p[0], p[1]] : undefined

export const listNotifications = (
  key: AuthenticatedKey,
  urlParams: {
    readonly unread?: "true" | "false" | undefined
    readonly limit?: number | undefined
    readonly cursor?: string | undefined
  }
) =>
  Effect.gen(function* () {
    yield* requireFeature(key, "webhooks", "using webhooks")
    const limit = yield* pageSize(urlParams.limit, 100, 50)
    const unread = urlParams.unread === "true"
    const codec = yield* orUnavailable((yield* Cursors).codec)
    const binding = { endpoint: "notifications", account: key.account.id, unread, limit }
    const after = yield* readCursor(codec, binding, urlParams.cursor, timeAndId)
    const store = yield* Deliveries
    const rows = yield* orUnavailable(store.notifications(key.account.id, unread, limit + 1, after))
    const unreadCount = yield* orUnavailable(store.unreadCount(key.account.id))
    const page = rows.slice(0, limit)
    const last = page[page.length - 1]
    return {
      as_of: new Date(yield* Clock.currentTimeMillis).toISOString(),
      count: page.length,
      unread_count: unreadCount,
      next_cursor: rows.length > limit && last !== undefined ? codec.encode(binding, [last.createdAt, last.id]) : null,
      notifications: page.map((n) => ({
        id: n.id,
        webhook_id: n.webhookId,
        title: n.title,
        body: n.body,
        event: JSON.parse(n.payload) as unknown,
        read: n.readAt !== null,
        read_at: n.readAt,
        created_at: n.createdAt
      }))
    }
  })

export const markRead = (key: AuthenticatedKey, ids: ReadonlyArray<string> | undefined) =>
  Effect.gen(function* () {
    yield* requireFeature(key, "webhooks", "using webhooks")
    if (ids !== undefined && ids.length > 1000)
      return yield* new BadRequest({ message: "ids: at most 1000 per request" })
    const marked = yield* orUnavailable((yield* Deliveries).markRead(key.account.id, ids))
    return { as_of: new Date(yield* Clock.currentTimeMillis).toISOString(), marked }
  })
