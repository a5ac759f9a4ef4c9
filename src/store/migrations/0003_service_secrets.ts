import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Secrets every instance must share (e.g. the cursor signing key), created once. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE service_secrets (
    name text PRIMARY KEY,
    value bytea NOT NULL,
    created_at bigint NOT NULL
  )`
})
