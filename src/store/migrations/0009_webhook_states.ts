import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The match state of each webhook moves to a narrow table of its own, written as deltas.
 *
 * An evaluation tick with 100,000 webhooks changes the state of thousands of
 * them (every whole-market predicate moves a little on most refreshes);
 * rewriting each one's whole `last_match_set` (hundreds of tickers) in the
 * wide `webhooks` row was most of a tick's time. Now:
 *
 * - `webhook_states` holds, per webhook, `base` (the tickers of a full write,
 *   comma-separated) and `delta` (the changes appended since, `;>A,B;<C`:
 *   `>` tickers that came in, `<` tickers that left, in order) with their
 *   count `deltas`. A tick appends a few bytes to a short row (HOT updates:
 *   `fillfactor` leaves room and no indexed column changes); every so often
 *   (`deltas` ≥ 16, or a big change) the evaluator writes the set in full
 *   again. `last_match_set` is `base` with `delta` applied (`decodeMatchSet`).
 * - `state_seq` (optimistic writes) and a copy of `armed_at` live here too, so
 *   a tick's write touches this row only; `enable` resets both tables in one
 *   transaction. `evaluated_at` and `fired_at` are the state change's
 *   `last_evaluated_at` and `last_fired`; `webhooks.last_evaluated_at` keeps
 *   the value frozen at disable.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE webhook_states (
    webhook_id text PRIMARY KEY REFERENCES webhooks(id) ON DELETE CASCADE,
    armed_at bigint NOT NULL,
    state_seq bigint NOT NULL DEFAULT 0,
    base text NOT NULL DEFAULT '',
    delta text NOT NULL DEFAULT '',
    deltas integer NOT NULL DEFAULT 0,
    evaluated_at bigint,
    fired_at bigint
  ) WITH (fillfactor = 50)`
  yield* sql`INSERT INTO webhook_states (webhook_id, armed_at, state_seq, base, evaluated_at, fired_at)
    SELECT id, armed_at, state_seq, array_to_string(last_match_set, ','), last_evaluated_at, last_fired FROM webhooks`
  yield* sql`ALTER TABLE webhooks DROP COLUMN last_match_set, DROP COLUMN state_seq, DROP COLUMN last_fired`
  yield* sql`CREATE VIEW webhook_records AS
    SELECT w.*, coalesce(s.base, '') AS match_base, coalesce(s.delta, '') AS match_delta,
      coalesce(s.deltas, 0) AS match_deltas, coalesce(s.state_seq, 0) AS state_seq,
      s.evaluated_at AS state_evaluated_at, s.fired_at AS last_fired
    FROM webhooks w LEFT JOIN webhook_states s ON s.webhook_id = w.id`
})
