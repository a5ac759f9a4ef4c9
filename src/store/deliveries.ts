/**
 * The delivery queue (outbox) and delivery records, plus the in-app inbox and
 * registered devices.
 *
 * Workers claim due deliveries with a lease (`FOR UPDATE SKIP LOCKED`, so
 * several workers and instances never take the same one); a delivery whose
 * worker died is taken again when its lease expires, keeping its `event_id`
 * (at-least-once, deduplicable by the receiver).
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { textList } from "./textList.js"

/** A delivery to enqueue. */
export interface NewDelivery {
  readonly id: string
  readonly webhookId: string
  readonly accountId: string
  /** `webhook.fired` or `webhook.cleared` */
  readonly event: string
  readonly eventId: string
  readonly channel: Channel
  readonly targetUrl: string
  readonly test: boolean
  readonly payload: string
  /** epoch ms */
  readonly dueAt: number
}

export const insertDeliveries = (sql: SqlClient.SqlClient, deliveries: ReadonlyArray<NewDelivery>, nowS: number) =>
  deliveries.length === 0
    ? Effect.void
    : sql`INSERT INTO deliveries (id, webhook_id, account_id, event, event_id, channel, target_url, test, payload,
          attempt, status, due_at, created_at)
        SELECT d.id, d.webhook_id, d.account_id, d.event, d.event_id, d.channel, d.target_url, d.test, d.payload,
          0, 'pending', d.due_at, ${nowS}
        FROM unnest(${deliveries.map((d) => d.id)}::text[], ${deliveries.map((d) => d.webhookId)}::text[],
          ${deliveries.map((d) => d.event)}::text[],
          ${deliveries.map((d) => d.accountId)}::text[], ${deliveries.map((d) => d.eventId)}::text[],
          ${deliveries.map((d) => d.channel)}::text[], ${deliveries.map((d) => d.targetUrl)}::text[],
          ${deliveries.map((d) => d.test)}::boolean[], ${textList(
            sql,
            deliveries.map((d) => d.payload)
          )},
          ${deliveries.map((d) => d.dueAt)}::bigint[])
          AS d(id, webhook_id, event, account_id, event_id, channel, target_url, test, payload, due_at)`.pipe(
        Effect.asVoid
      )

import type { Channel } from "./webhooks.js"

export type DeliveryStatus = "pending" | "delivered" | "permanent_failure"

export interface DeliveryRecord {
  readonly id: string
  readonly webhookId: string
  readonly accountId: string
  readonly event: string
  readonly eventId: string
  readonly channel: Channel
  readonly targetUrl: string
  readonly test: boolean
  readonly payload: string
  readonly attempt: number
  readonly status: DeliveryStatus
  /** epoch ms */
  readonly dueAt: number
  readonly lastStatusCode: number | null
  readonly lastError: string | null
  /** epoch seconds */
  readonly createdAt: number
  readonly deliveredAt: number | null
}

interface Row {
  id: string
  webhook_id: string
  account_id: string
  event: string
  event_id: string
  channel: Channel
  target_url: string
  test: boolean
  payload: string
  attempt: number
  status: DeliveryStatus
  due_at: number | string
  last_status_code: number | null
  last_error: string | null
  created_at: number | string
  delivered_at: number | string | null
}

const toRecord = (r: Row): DeliveryRecord => ({
  id: r.id,
  webhookId: r.webhook_id,
  accountId: r.account_id,
  event: r.event,
  eventId: r.event_id,
  channel: r.channel,
  targetUrl: r.target_url,
  test: r.test,
  payload: r.payload,
  attempt: Number(r.attempt),
  status: r.status,
  dueAt: Number(r.due_at),
  lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code),
  lastError: r.last_error,
  createdAt: Number(r.created_at),
  deliveredAt: r.delivered_at === null ? null : Number(r.delivered_at)
})

/** The result of one attempt, as the worker decided it. */
export type AttemptResult =
  | { readonly _tag: "Delivered"; readonly statusCode: number | null }
  | {
      readonly _tag: "Retry"
      readonly statusCode: number | null
      readonly error: string | null
      /** epoch ms of the next attempt */
      readonly dueAt: number
    }
  | {
      readonly _tag: "Failed"
      readonly statusCode: number | null
      readonly error: string | null
      /** disable the webhook too (schedule exhausted or 410 Gone; never for test pings) */
      readonly disableWebhook: boolean
    }

export interface Notification {
  readonly id: string
  readonly webhookId: string
  readonly title: string
  readonly body: string
  readonly payload: string
  readonly createdAt: number
  readonly readAt: number | null
}

export interface Device {
  readonly id: string
  readonly platform: string
  readonly token: string
  readonly name: string | null
  readonly createdAt: number
}

export class Deliveries extends Effect.Service<Deliveries>()("vigil/Deliveries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Takes up to `limit` due deliveries for `leaseMs`; attempt counts the attempt about to be made. */
    const claimDue = (limit: number, leaseMs: number) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const rows = yield* sql<Row>`UPDATE deliveries d SET lease_until = ${now + leaseMs}, attempt = d.attempt + 1
          FROM (SELECT id FROM deliveries WHERE status = 'pending' AND due_at <= ${now}
              AND (lease_until IS NULL OR lease_until <= ${now})
            ORDER BY due_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED) due
          WHERE d.id = due.id
          RETURNING d.*`
        return rows.map(toRecord)
      })

    /** When the next pending delivery is due (epoch ms), if any. */
    const nextDue = Effect.map(
      sql<{ due: number | string | null }>`SELECT min(greatest(due_at, coalesce(lease_until, 0))) AS due
        FROM deliveries WHERE status = 'pending'`,
      (rows) => (rows[0]?.due === null || rows[0]?.due === undefined ? undefined : Number(rows[0].due))
    )

    /** Records an attempt's result; a failure that disables its webhook does both in one transaction. */
    const complete = (delivery: DeliveryRecord, result: AttemptResult) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const nowS = Math.floor(now / 1000)
        switch (result._tag) {
          case "Delivered":
            yield* sql`UPDATE deliveries SET status = 'delivered', delivered_at = ${nowS}, lease_until = NULL,
                last_status_code = ${result.statusCode}, last_error = NULL
              WHERE id = ${delivery.id} AND status = 'pending'`
            return undefined
          case "Retry":
            yield* sql`UPDATE deliveries SET due_at = ${result.dueAt}, lease_until = NULL,
                last_status_code = ${result.statusCode}, last_error = ${result.error}
              WHERE id = ${delivery.id} AND status = 'pending'`
            return undefined
          case "Failed": {
            yield* sql`UPDATE deliveries SET status = 'permanent_failure', lease_until = NULL,
                last_status_code = ${result.statusCode}, last_error = ${result.error}
              WHERE id = ${delivery.id} AND status = 'pending'`
            if (!result.disableWebhook) return undefined
            const rows = yield* sql<{ id: string }>`UPDATE webhooks SET status = 'disabled',
                disabled_reason = ${result.statusCode === 410 ? "gone" : "delivery_failed"},
                updated_at = ${nowS}, version = nextval('webhook_version')
              WHERE id = ${delivery.webhookId} AND status = 'active' RETURNING id`
            return rows[0]?.id
          }
        }
      }).pipe(sql.withTransaction)

    /**
     * Records many attempts' results in one statement each for deliveries
     * and retries (the worker's batched completion); a failure that disables
     * its webhook goes through `complete` (its own transaction). Returns the
     * webhooks disabled.
     */
    const completeMany = (results: ReadonlyArray<readonly [DeliveryRecord, AttemptResult]>) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const nowS = Math.floor(now / 1000)
        const delivered = results.filter(([, r]) => r._tag === "Delivered")
        const later = results.flatMap(([d, r]) => (r._tag === "Retry" ? [[d, r] as const] : []))
        const failed = results.filter(([, r]) => r._tag === "Failed")
        if (delivered.length > 0) {
          yield* sql`UPDATE deliveries d SET status = 'delivered', delivered_at = ${nowS}, lease_until = NULL,
              last_status_code = i.code, last_error = NULL
            FROM unnest(${delivered.map(([d]) => d.id)}::text[],
              ${delivered.map(([, r]) => r.statusCode)}::integer[]) AS i(id, code)
            WHERE d.id = i.id AND d.status = 'pending'`
        }
        if (later.length > 0) {
          yield* sql`UPDATE deliveries d SET due_at = i.due, lease_until = NULL, last_status_code = i.code,
              last_error = i.error
            FROM unnest(${later.map(([d]) => d.id)}::text[], ${later.map(([, r]) => r.dueAt)}::bigint[],
              ${later.map(([, r]) => r.statusCode)}::integer[], ${later.map(([, r]) => r.error)}::text[])
              AS i(id, due, code, error)
            WHERE d.id = i.id AND d.status = 'pending'`
        }
        const disabled: Array<string> = []
        for (const [d, r] of failed) {
          const id = yield* complete(d, r)
          if (id !== undefined) disabled.push(id)
        }
        return disabled
      })

    /** Enqueues deliveries (test pings, manual retries of a copy). */
    const enqueue = (deliveries: ReadonlyArray<NewDelivery>) =>
      Effect.gen(function* () {
        const nowS = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        yield* insertDeliveries(sql, deliveries, nowS)
      })

    const get = (accountId: string, webhookId: string, id: string) =>
      Effect.map(
        sql<Row>`SELECT * FROM deliveries WHERE account_id = ${accountId} AND webhook_id = ${webhookId} AND id = ${id}`,
        (rows) => (rows.length === 0 ? undefined : toRecord(rows[0]!))
      )

    /** A webhook's deliveries newest first, after the (created_at, id) position when given. */
    const list = (
      accountId: string,
      webhookId: string,
      status: DeliveryStatus | undefined,
      limit: number,
      after?: readonly [number, string]
    ) =>
      Effect.map(
        sql<Row>`SELECT * FROM deliveries WHERE account_id = ${accountId} AND webhook_id = ${webhookId}
          ${status === undefined ? sql`` : sql`AND status = ${status}`}
          ${after === undefined ? sql`` : sql`AND (created_at < ${after[0]} OR (created_at = ${after[0]} AND id < ${after[1]}))`}
          ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
        (rows) => rows.map(toRecord)
      )

    /** Sends a failed delivery again: pending now, attempts counted afresh, same event id. */
    const retry = (accountId: string, webhookId: string, id: string) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const rows = yield* sql<Row>`UPDATE deliveries SET status = 'pending', attempt = 0, due_at = ${now},
            lease_until = NULL
          WHERE account_id = ${accountId} AND webhook_id = ${webhookId} AND id = ${id} AND status = 'permanent_failure'
          RETURNING *`
        return rows.length === 0 ? undefined : toRecord(rows[0]!)
      })

    const addNotification = (accountId: string, n: Omit<Notification, "readAt" | "createdAt">, deliveryId: string) =>
      Effect.gen(function* () {
        const nowS = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        yield* sql`INSERT INTO notifications (id, account_id, webhook_id, delivery_id, title, body, payload, created_at)
          VALUES (${n.id}, ${accountId}, ${n.webhookId}, ${deliveryId}, ${n.title}, ${n.body}, ${n.payload}, ${nowS})
          ON CONFLICT (delivery_id) DO NOTHING`
      })

    const notifications = (accountId: string, unreadOnly: boolean, limit: number, after?: readonly [number, string]) =>
      Effect.map(
        sql<{
          id: string
          webhook_id: string
          title: string
          body: string
          payload: string
          created_at: number | string
          read_at: number | string | null
        }>`SELECT id, webhook_id, title, body, payload, created_at, read_at FROM notifications
          WHERE account_id = ${accountId} ${unreadOnly ? sql`AND read_at IS NULL` : sql``}
          ${after === undefined ? sql`` : sql`AND (created_at < ${after[0]} OR (created_at = ${after[0]} AND id < ${after[1]}))`}
          ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
        (rows): Array<Notification> =>
          rows.map((r) => ({
            id: r.id,
            webhookId: r.webhook_id,
            title: r.title,
            body: r.body,
            payload: r.payload,
            createdAt: Number(r.created_at),
            readAt: r.read_at === null ? null : Number(r.read_at)
          }))
      )

    const unreadCount = (accountId: string) =>
      Effect.map(
        sql<{ n: number | string }>`SELECT count(*) AS n FROM notifications
          WHERE account_id = ${accountId} AND read_at IS NULL`,
        (rows) => Number(rows[0]?.n ?? 0)
      )

    /** Marks notifications read (all of the account's when `ids` is undefined); returns how many changed. */
    const markRead = (accountId: string, ids: ReadonlyArray<string> | undefined) =>
      Effect.gen(function* () {
        const nowS = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const rows = yield* sql<{ id: string }>`UPDATE notifications SET read_at = ${nowS}
          WHERE account_id = ${accountId} AND read_at IS NULL
          ${ids === undefined ? sql`` : sql`AND id = ANY(${ids}::text[])`} RETURNING id`
        return rows.length
      })

    const registerDevice = (accountId: string, id: string, platform: string, token: string, name: string | null) =>
      Effect.gen(function* () {
        const nowS = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const rows = yield* sql<{ id: string; created_at: number | string; name: string | null }>`INSERT INTO devices
            (id, account_id, platform, token, name, created_at)
          VALUES (${id}, ${accountId}, ${platform}, ${token}, ${name}, ${nowS})
          ON CONFLICT (account_id, platform, token) DO UPDATE SET name = coalesce(EXCLUDED.name, devices.name)
          RETURNING id, created_at, name`
        const r = rows[0]!
        return { id: r.id, platform, token, name: r.name, createdAt: Number(r.created_at) } satisfies Device
      })

    const device = (accountId: string, id: string) =>
      Effect.map(
        sql<{ id: string; platform: string; token: string; name: string | null; created_at: number | string }>`
          SELECT id, platform, token, name, created_at FROM devices WHERE account_id = ${accountId} AND id = ${id}`,
        (rows): Device | undefined =>
          rows.length === 0
            ? undefined
            : {
                id: rows[0]!.id,
                platform: rows[0]!.platform,
                token: rows[0]!.token,
                name: rows[0]!.name,
                createdAt: Number(rows[0]!.created_at)
              }
      )

    return {
      claimDue,
      nextDue,
      complete,
      completeMany,
      enqueue,
      get,
      list,
      retry,
      addNotification,
      notifications,
      unreadCount,
      markRead,
      registerDevice,
      device
    } as const
  })
}) {}
