import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * An event's body is stored once (issue 16): a delivered event's body is its delivery's
 * `payload` (`delivery_id`), and `webhook_events.body` holds only the bodies nothing delivers (a
 * snoozed webhook's suppressed events). Deliveries are kept for the webhook's life (nothing
 * prunes them), so the feed reads every body it lists; writing each body twice made a first
 * evaluation of 100,000 webhooks ~50% slower (docs/benchmarks.md).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_events ALTER COLUMN body DROP NOT NULL, ADD COLUMN delivery_id text`
})
