import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The slice of each webhook (issue 15): a stable hash of its id into 1,024
 * slices, the unit the evaluator is split by and the cluster moves between
 * runners. Computed by the database (`hashtext`, immutable; the same on
 * PostgreSQL and PGlite) and stored, so it is never recomputed — by this
 * process, another version, or a database upgrade — and rows inserted by any
 * means have it. A runner that takes a slice reads its active webhooks
 * through the partial index.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhooks ADD COLUMN slice smallint
    GENERATED ALWAYS AS ((hashtext(id)::bigint & 1023)::smallint) STORED`
  yield* sql`CREATE INDEX webhooks_active_slice ON webhooks (slice) WHERE status = 'active'`
  // the view's w.* is expanded when it is made: made again to carry the new column
  yield* sql`DROP VIEW webhook_records`
  yield* sql`CREATE VIEW webhook_records AS
    SELECT w.*, coalesce(s.base, '') AS match_base, coalesce(s.delta, '') AS match_delta,
      coalesce(s.deltas, 0) AS match_deltas, coalesce(s.state_seq, 0) AS state_seq,
      s.evaluated_at AS state_evaluated_at, s.fired_at AS last_fired
    FROM webhooks w LEFT JOIN webhook_states s ON s.webhook_id = w.id`
})
