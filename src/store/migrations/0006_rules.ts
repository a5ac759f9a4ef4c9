import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Saved scan rules: named parameter sets of `POST /v2/scan`, scoped to an
 * account. `universe` keeps the slug as given (a universe deleted later makes
 * the rule's scans answer 404 `universe_not_found`); `fields` holds the extra
 * columns (`["*"]` for every column).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE scan_rules (
    account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    id text NOT NULL,
    name text NOT NULL,
    q text NOT NULL,
    universe text,
    order_by text NOT NULL,
    dir text NOT NULL CHECK (dir IN ('asc', 'desc')),
    fields text[] NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (account_id, id)
  )`
})
