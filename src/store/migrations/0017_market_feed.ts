import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The market feed's switch (issue 16, the stale-data guard): `POST /admin/feed/pause` and
 * `/admin/feed/resume` through any process set it; every process's market reads it before
 * applying new data, so refresh ticks go on while no new data is applied.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE market_feed (
    id smallint PRIMARY KEY CHECK (id = 1),
    paused boolean NOT NULL,
    changed_at bigint NOT NULL
  )`
  yield* sql`INSERT INTO market_feed (id, paused, changed_at) VALUES (1, false, 0)`
})
