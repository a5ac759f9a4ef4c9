import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Responses of POSTs sent with an Idempotency-Key, kept 24 hours for replay. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE idempotency_keys (
    scope text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    status integer,
    content_type text,
    body text,
    created_at bigint NOT NULL,
    PRIMARY KEY (scope, key)
  )`
  yield* sql`CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)`
})
