import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Dashboard users (issue 18): people who sign in to the dashboard, each of one account. The email
 * is kept lower-cased (unique); the password only as its scrypt hash (`src/accounts/passwords.ts`).
 * `failed_attempts` and `locked_until` (epoch ms) are the sign-in lockout, kept here so every
 * instance applies the same one. A signed-in browser holds a session token in a cookie; the
 * store keeps only its SHA-256 hash, until it expires (epoch ms) or the user signs out.
 * API keys gain what the dashboard's keys page shows: a `prefix` (the brand, the mode and the
 * first 4 characters of the secret, enough to tell keys apart and nothing to use) and
 * `last_used_at` (epoch seconds, written at most every `LAST_USE_FLUSH` by each instance). A
 * session's own key (what the dashboard's calls to `/v2` carry, derived from the session token
 * and never stored in clear) names its session by `session_hash`; the keys page leaves it out.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE dashboard_users (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    email text NOT NULL UNIQUE CHECK (email = lower(email)),
    password_hash text NOT NULL,
    failed_attempts integer NOT NULL DEFAULT 0,
    locked_until bigint NOT NULL DEFAULT 0,
    created_at bigint NOT NULL
  )`
  yield* sql`CREATE INDEX dashboard_users_account ON dashboard_users (account_id)`
  yield* sql`CREATE TABLE dashboard_sessions (
    token_hash bytea PRIMARY KEY,
    user_id text NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
  )`
  yield* sql`CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id)`
  yield* sql`ALTER TABLE api_keys ADD COLUMN prefix text`
  yield* sql`ALTER TABLE api_keys ADD COLUMN last_used_at bigint`
  yield* sql`ALTER TABLE api_keys ADD COLUMN session_hash bytea`
  yield* sql`CREATE INDEX api_keys_session ON api_keys (session_hash) WHERE session_hash IS NOT NULL`
})
