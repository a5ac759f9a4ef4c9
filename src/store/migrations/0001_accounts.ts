import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE accounts (
    id text PRIMARY KEY,
    plan text NOT NULL,
    rate_limit_per_minute integer,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  )`
  yield* sql`CREATE TABLE api_keys (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    mode text NOT NULL,
    key_hash bytea NOT NULL UNIQUE,
    created_at bigint NOT NULL,
    revoked_at bigint
  )`
  yield* sql`CREATE INDEX api_keys_account ON api_keys (account_id)`
})
