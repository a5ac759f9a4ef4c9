/**
 * Each webhook's event feed (`webhook_events`, migrations 0016 and 0018):
 * every `webhook.fired` and `webhook.cleared`, written by the evaluator's
 * commit in the transaction of the state it came from (see
 * `EvaluatorState.commitTick`), read back in sequence order by the pull feed,
 * and pruned after `EVENT_RETENTION`. A body is stored once: a delivered
 * event's is its delivery's payload (deliveries live as long as their
 * webhook), a suppressed event's is kept with the event. `forTicker` reads an account's events
 * naming one ticker across all its webhooks (the dashboard's chart markers).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** A stored event. */
export interface StoredEvent {
  readonly sequence: number
  readonly type: string
  /** epoch ms it was written */
  readonly createdAt: number
  /** epoch ms of the market data evaluated */
  readonly dataAsOf: number
  readonly suppressed: boolean
  /** the body, byte for byte what was (or would have been) sent */
  readonly body: string
}

/** An event naming one ticker, with its webhook (`forTicker`). */
export interface TickerEvent {
  readonly webhookId: string
  readonly webhookName: string
  readonly type: "webhook.fired" | "webhook.cleared"
  /** epoch ms of the market data evaluated */
  readonly dataAsOf: number
}

/** events deleted per statement when pruning (a long backlog goes in several) */
const PRUNE_BATCH = 10_000

export class WebhookEvents extends Effect.Service<WebhookEvents>()("vigil/WebhookEvents", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** The events of a webhook after `after`, in ascending sequence (at most `limit`), and the oldest kept. */
    const page = (webhookId: string, after: number, limit: number) =>
      Effect.gen(function* () {
        const rows = yield* sql<{
          sequence: number | string
          type: string
          created_at: number | string
          data_as_of: number | string
          suppressed: boolean
          body: string
        }>`SELECT e.sequence, e.type, e.created_at, e.data_as_of, e.suppressed, coalesce(e.body, d.payload) AS body
          FROM webhook_events e LEFT JOIN deliveries d ON d.id = e.delivery_id
          WHERE e.webhook_id = ${webhookId} AND e.sequence > ${after} ORDER BY e.sequence LIMIT ${limit}`
        const oldest = yield* sql<{ s: number | string | null }>`SELECT min(sequence) AS s FROM webhook_events
          WHERE webhook_id = ${webhookId}`
        return {
          oldest: oldest[0]?.s == null ? null : Number(oldest[0].s),
          events: rows.map(
            (r): StoredEvent => ({
              sequence: Number(r.sequence),
              type: r.type,
              createdAt: Number(r.created_at),
              dataAsOf: Number(r.data_as_of),
              suppressed: r.suppressed,
              body: r.body
            })
          )
        }
      })

    /**
     * The newest `limit` events (fired and cleared, suppressed ones too) of account `accountId`'s
     * webhooks whose rows carry `ticker` (canonical), newest data first. A body's text is searched
     * for the ticker's row before it is parsed, so only the candidates are.
     */
    const forTicker = (accountId: string, ticker: string, limit: number) =>
      Effect.gen(function* () {
        const needle = `"ticker":${JSON.stringify(ticker)}`
        const contains = JSON.stringify([{ ticker }])
        const rows = yield* sql<{
          webhook_id: string
          name: string
          type: string
          data_as_of: number | string
        }>`SELECT e.webhook_id, w.name, e.type, e.data_as_of
          FROM webhooks w
            JOIN webhook_events e ON e.webhook_id = w.id
            LEFT JOIN deliveries d ON d.id = e.delivery_id
          WHERE w.account_id = ${accountId}
            AND e.type IN ('webhook.fired', 'webhook.cleared')
            AND strpos(coalesce(e.body, d.payload), ${needle}) > 0
            AND (coalesce(e.body, d.payload))::jsonb -> 'data' -> 'matches' @> ${contains}::jsonb
          ORDER BY e.data_as_of DESC, e.created_at DESC, e.webhook_id, e.sequence DESC
          LIMIT ${limit}`
        return rows.map(
          (r): TickerEvent => ({
            webhookId: r.webhook_id,
            webhookName: r.name,
            type: r.type as TickerEvent["type"],
            dataAsOf: Number(r.data_as_of)
          })
        )
      })

    /** Deletes the events written before `before` (epoch ms); how many went. */
    const prune = (before: number) =>
      Effect.gen(function* () {
        let total = 0
        for (;;) {
          const rows = yield* sql<{ n: number | string }>`WITH gone AS (DELETE FROM webhook_events
              WHERE ctid IN (SELECT ctid FROM webhook_events WHERE created_at < ${before} LIMIT ${PRUNE_BATCH})
              RETURNING 1)
            SELECT count(*) AS n FROM gone`
          const n = Number(rows[0]?.n ?? 0)
          total += n
          if (n < PRUNE_BATCH) return total
        }
      })

    return { page, forTicker, prune } as const
  })
}) {}
