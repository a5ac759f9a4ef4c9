import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Firing options and the event feed (issue 16).
 *
 * - `webhooks` gains the subscription's firing options (`fire_on`, `pending_for`, `clear_q`,
 *   `cooldown`, `repeat_interval`; durations in ms) and `snoozed_until` (epoch ms). The defaults
 *   are today's behaviour.
 * - `webhook_states` gains `event_seq` (the last event's sequence: per webhook, gap-free from 1,
 *   written in the same guarded update as the state) and `memory` (per-ticker state of the alert
 *   machine — pending since, last fired, last sent — `src/alerts/firing/machine.ts`'s text; empty
 *   for webhooks without pending, cooldown or repeat).
 * - `webhook_events`: every `webhook.fired` and `webhook.cleared` with its body, byte for byte
 *   what was (or, snoozed, would have been) sent, kept `EVENT_RETENTION` for the pull feed.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhooks
    ADD COLUMN fire_on text NOT NULL DEFAULT 'enter',
    ADD COLUMN pending_for_ms bigint NOT NULL DEFAULT 0,
    ADD COLUMN clear_q text,
    ADD COLUMN cooldown_ms bigint NOT NULL DEFAULT 0,
    ADD COLUMN repeat_interval_ms bigint,
    ADD COLUMN snoozed_until bigint`
  yield* sql`ALTER TABLE webhook_states
    ADD COLUMN event_seq bigint NOT NULL DEFAULT 0,
    ADD COLUMN memory text NOT NULL DEFAULT ''`
  yield* sql`CREATE TABLE webhook_events (
    webhook_id text NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    sequence bigint NOT NULL,
    type text NOT NULL,
    created_at bigint NOT NULL,
    data_as_of bigint NOT NULL,
    suppressed boolean NOT NULL,
    body text NOT NULL,
    PRIMARY KEY (webhook_id, sequence)
  )`
  yield* sql`CREATE INDEX webhook_events_created ON webhook_events (created_at)`
  // the view's w.* is expanded when it is made: made again to carry the new columns
  yield* sql`DROP VIEW webhook_records`
  yield* sql`CREATE VIEW webhook_records AS
    SELECT w.*, coalesce(s.base, '') AS match_base, coalesce(s.delta, '') AS match_delta,
      coalesce(s.deltas, 0) AS match_deltas, coalesce(s.state_seq, 0) AS state_seq,
      s.evaluated_at AS state_evaluated_at, s.fired_at AS last_fired,
      coalesce(s.event_seq, 0) AS event_seq, coalesce(s.memory, '') AS memory
    FROM webhooks w LEFT JOIN webhook_states s ON s.webhook_id = w.id`
})
