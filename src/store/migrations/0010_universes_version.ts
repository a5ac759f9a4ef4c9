import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A counter of changes to `universes`, bumped in the same transaction as every
 * insert, update or delete (cascaded deletes included), so it is visible
 * exactly when the change is. The evaluator reads it each tick and asks for
 * the digests of its webhooks' universes only when it moved (with 2,000
 * universes, hashing every list each tick cost 90–240 ms of a tick).
 *
 * A row, not a sequence: a sequence moves before the transaction commits, so
 * a reader could take the new number with the old lists and never look again.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE universes_version (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    version bigint NOT NULL
  )`
  yield* sql`INSERT INTO universes_version (one, version) VALUES (true, 0)`
  yield* sql`CREATE FUNCTION bump_universes_version() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE universes_version SET version = version + 1;
      RETURN NULL;
    END
  $$`
  yield* sql`CREATE TRIGGER universes_version_bump
    AFTER INSERT OR UPDATE OR DELETE ON universes
    FOR EACH STATEMENT EXECUTE FUNCTION bump_universes_version()`
})
