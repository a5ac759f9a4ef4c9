/**
 * Runs the schema migrations (the `@effect/sql` Migrator; on PostgreSQL it
 * takes an exclusive lock on its table, so several instances starting at
 * once migrate exactly once).
 */
import { Migrator } from "@effect/sql"
import { Effect } from "effect"
import accounts from "./migrations/0001_accounts.js"
import importedBars from "./migrations/0002_imported_bars.js"
import serviceSecrets from "./migrations/0003_service_secrets.js"
import customSignals from "./migrations/0004_custom_signals.js"
import universes from "./migrations/0005_universes.js"
import rules from "./migrations/0006_rules.js"
import idempotencyKeys from "./migrations/0007_idempotency_keys.js"
import webhooks from "./migrations/0008_webhooks.js"
import webhookStates from "./migrations/0009_webhook_states.js"
import universesVersion from "./migrations/0010_universes_version.js"
import universeMemberships from "./migrations/0011_universe_memberships.js"
import webhooksActive from "./migrations/0012_webhooks_active.js"
import webhookSlices from "./migrations/0013_webhook_slices.js"
import sliceRefreshes from "./migrations/0014_slice_refreshes.js"
import ticks from "./migrations/0015_ticks.js"
import firing from "./migrations/0016_firing.js"
import marketFeed from "./migrations/0017_market_feed.js"
import eventBodiesOnce from "./migrations/0018_event_bodies_once.js"
import importedSplits from "./migrations/0019_imported_splits.js"
import feedInputs from "./migrations/0020_feed_inputs.js"
import dashboardUsers from "./migrations/0021_dashboard_users.js"
import bodyStorage from "./migrations/0022_body_storage.js"

export const migrations = {
  "0001_accounts": accounts,
  "0002_imported_bars": importedBars,
  "0003_service_secrets": serviceSecrets,
  "0004_custom_signals": customSignals,
  "0005_universes": universes,
  "0006_rules": rules,
  "0007_idempotency_keys": idempotencyKeys,
  "0008_webhooks": webhooks,
  "0009_webhook_states": webhookStates,
  "0010_universes_version": universesVersion,
  "0011_universe_memberships": universeMemberships,
  "0012_webhooks_active": webhooksActive,
  "0013_webhook_slices": webhookSlices,
  "0014_slice_refreshes": sliceRefreshes,
  "0015_ticks": ticks,
  "0016_firing": firing,
  "0017_market_feed": marketFeed,
  "0018_event_bodies_once": eventBodiesOnce,
  "0019_imported_splits": importedSplits,
  "0020_feed_inputs": feedInputs,
  "0021_dashboard_users": dashboardUsers,
  "0022_body_storage": bodyStorage
}

export const runMigrations = Migrator.make({})({
  loader: Migrator.fromRecord(migrations),
  table: "vigil_migrations"
}).pipe(Effect.withSpan("migrations"))
