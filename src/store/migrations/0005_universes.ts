import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Caller-owned universes: named ticker lists, scoped to an account. `id` is
 * the slug the caller (or the generator) chose, unique within the account;
 * `tickers` holds canonical symbols in the caller's order.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE universes (
    account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    id text NOT NULL CHECK (id ~ '^[a-z0-9_]{1,64}$'),
    name text NOT NULL,
    description text,
    tickers text[] NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (account_id, id)
  )`
})
