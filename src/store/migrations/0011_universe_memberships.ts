import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The membership history of own universes, for as-of reads: one row per list
 * a universe has had, numbered from 1 (`version`), `effective_at` (epoch
 * seconds, the Effect Clock's) the moment it took effect. Create writes
 * version 1 and every update that changes the tickers the next, in the same
 * transaction as the `universes` row; `effective_at` never decreases with
 * `version`. A universe's rows go with it (`ON DELETE CASCADE`), so a slug
 * created again starts a history of its own. The primary key is the one index:
 * the list in effect at a moment, the first list and the latest (for the next
 * version) are each one descent of (account_id, universe_id, effective_at).
 *
 * Existing universes get one row: their current list, effective at `created_at`.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE universe_memberships (
    account_id text NOT NULL,
    universe_id text NOT NULL,
    version integer NOT NULL,
    effective_at bigint NOT NULL,
    tickers text[] NOT NULL,
    PRIMARY KEY (account_id, universe_id, effective_at, version),
    FOREIGN KEY (account_id, universe_id) REFERENCES universes(account_id, id) ON DELETE CASCADE
  )`
  yield* sql`INSERT INTO universe_memberships (account_id, universe_id, version, effective_at, tickers)
    SELECT account_id, id, 1, created_at, tickers FROM universes`
})
