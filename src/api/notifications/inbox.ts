/** The in-app inbox: an account's notifications (alerts of `in_app` webhooks), newest first, and read state. */
import { Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { Deliveries, type Notification } from "../../store/deliveries.js"
import { nowIso } from "../common/clock.js"
import { requireFeature } from "../common/features.js"
import { pageSize } from "../common/params.js"
import { keysetPage, timeAndIdPosition } from "../cursor.js"
import { BadRequest, orUnavailable } from "../errors.js"

/** A notification as `/v2/notifications` lists it (and the dashboard's live inbox sends it). */
export const notificationDoc = (n: Notification) => ({
  id: n.id,
  webhook_id: n.webhookId,
  title: n.title,
  body: n.body,
  event: JSON.parse(n.payload) as unknown,
  read: n.readAt !== null,
  read_at: n.readAt,
  created_at: n.createdAt
})

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
    const store = yield* Deliveries
    const page = yield* keysetPage({
      binding: { endpoint: "notifications", account: key.account.id, unread, limit },
      cursor: urlParams.cursor,
      limit,
      position: timeAndIdPosition,
      keyOf: (n: Notification) => [n.createdAt, n.id] as const,
      read: (after, count) => orUnavailable(store.notifications(key.account.id, unread, count, after))
    })
    const unreadCount = yield* orUnavailable(store.unreadCount(key.account.id))
    return {
      as_of: yield* nowIso,
      count: page.rows.length,
      unread_count: unreadCount,
      next_cursor: page.next_cursor,
      notifications: page.rows.map(notificationDoc)
    }
  })

export const markRead = (key: AuthenticatedKey, ids: ReadonlyArray<string> | undefined) =>
  Effect.gen(function* () {
    yield* requireFeature(key, "webhooks", "using webhooks")
    if (ids !== undefined && ids.length > 1000)
      return yield* new BadRequest({ message: "ids: at most 1000 per request" })
    const marked = yield* orUnavailable((yield* Deliveries).markRead(key.account.id, ids))
    return { as_of: yield* nowIso, marked }
  })
