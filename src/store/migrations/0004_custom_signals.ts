import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Custom signals: named boolean expressions owned by an account. The key is
 * (account, name); the catalog pages by name within an account, which the
 * primary key's index serves. `expr` is stored as the caller wrote it: reads
 * always compile the current definition (subscriptions freeze their own copy).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE custom_signals (
    account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name text NOT NULL CHECK (name ~ '^[a-z][a-z0-9_]{0,63}$'),
    description text CHECK (char_length(description) <= 500),
    expr text NOT NULL CHECK (char_length(expr) <= 4000),
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (account_id, name)
  )`
})
