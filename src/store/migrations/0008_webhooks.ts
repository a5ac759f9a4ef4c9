import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Webhook subscriptions, their delivery queue, the in-app inbox and the
 * devices registered for mobile push.
 *
 * - `webhooks.q` is the frozen condition (custom signals expanded at
 *   creation). `chat_url`, `signing_secret` and `previous_secret` are
 *   secrets: written here, never returned after creation.
 * - `armed_at` (ms) is when the webhook last became active (creation or
 *   enable); an evaluation tick at or after it counts as its
 *   `last_evaluated_at` (see `evaluation_ticks`), so a tick needs no write per
 *   webhook when nothing changed. `last_evaluated_at` here holds the value
 *   frozen at the last state change or disable.
 * - `state_seq` counts writes of the match state: an evaluator writes a new
 *   `last_match_set` only if the row still has the `state_seq` its diff
 *   started from (optimistic concurrency), so two instances evaluating the
 *   same tick fire each transition once.
 * - `leases` elects the one instance that evaluates on its own refreshes.
 * - `created_seq` orders webhooks by creation (newest first in lists, and
 *   a downgrade disables the most recently created), finer than the
 *   seconds of `created_at`.
 * - `version` takes a new value of `webhook_version` on every change of
 *   configuration or status, so the evaluator picks up changes made through
 *   any instance by reading the rows with a higher version.
 * - `deliveries` is the outbox: a fire is inserted in the same transaction as
 *   the new `last_match_set`. `due_at` (ms) orders the queue; `lease_until`
 *   (ms) marks a delivery a worker is sending, so a crashed worker's
 *   delivery is taken again (with the same `event_id`) once it expires.
 *   `payload` is the body sent (the API never shows it).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE SEQUENCE webhook_version`
  yield* sql`CREATE TABLE webhooks (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name text NOT NULL,
    q text NOT NULL,
    universe_id text,
    cadence text NOT NULL CHECK (cadence IN ('realtime', 'hourly', 'exchange_open')),
    channel text NOT NULL CHECK (channel IN ('webhook', 'chat', 'in_app', 'mobile_push')),
    target_url text,
    chat_url text,
    device_id text,
    signing_secret text,
    previous_secret text,
    previous_secret_until bigint,
    fields text[] NOT NULL,
    status text NOT NULL CHECK (status IN ('active', 'disabled')),
    disabled_reason text,
    origin_type text NOT NULL,
    origin_ref text,
    origin_condition text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    armed_at bigint NOT NULL,
    last_match_set text[] NOT NULL DEFAULT '{}',
    state_seq bigint NOT NULL DEFAULT 0,
    last_evaluated_at bigint,
    last_fired bigint,
    version bigint NOT NULL DEFAULT nextval('webhook_version'),
    created_seq bigint NOT NULL DEFAULT nextval('webhook_version')
  )`
  yield* sql`CREATE INDEX webhooks_account ON webhooks (account_id, created_seq)`
  yield* sql`CREATE INDEX webhooks_version ON webhooks (version)`
  yield* sql`CREATE TABLE leases (
    name text PRIMARY KEY,
    holder text NOT NULL,
    until bigint NOT NULL
  )`
  yield* sql`CREATE TABLE evaluation_ticks (
    cadence text PRIMARY KEY,
    evaluated_at bigint NOT NULL
  )`
  yield* sql`CREATE TABLE deliveries (
    id text PRIMARY KEY,
    webhook_id text NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    account_id text NOT NULL,
    event text NOT NULL,
    event_id text NOT NULL,
    channel text NOT NULL,
    target_url text NOT NULL,
    test boolean NOT NULL,
    payload text NOT NULL,
    attempt integer NOT NULL DEFAULT 0,
    status text NOT NULL CHECK (status IN ('pending', 'delivered', 'permanent_failure')),
    due_at bigint NOT NULL,
    lease_until bigint,
    last_status_code integer,
    last_error text,
    created_at bigint NOT NULL,
    delivered_at bigint
  )`
  yield* sql`CREATE INDEX deliveries_due ON deliveries (due_at) WHERE status = 'pending'`
  yield* sql`CREATE INDEX deliveries_webhook ON deliveries (webhook_id, created_at DESC, id DESC)`
  yield* sql`CREATE TABLE notifications (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    webhook_id text NOT NULL,
    delivery_id text NOT NULL UNIQUE,
    title text NOT NULL,
    body text NOT NULL,
    payload text NOT NULL,
    created_at bigint NOT NULL,
    read_at bigint
  )`
  yield* sql`CREATE INDEX notifications_account ON notifications (account_id, created_at DESC, id DESC)`
  yield* sql`CREATE TABLE devices (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    platform text NOT NULL,
    token text NOT NULL,
    name text,
    created_at bigint NOT NULL,
    UNIQUE (account_id, platform, token)
  )`
})
