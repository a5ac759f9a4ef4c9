import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The active webhooks of each account, for the plan cap a create checks
 * (issue 13): counted through `webhooks_account` the count read every webhook
 * the account ever kept, disabled ones included; through this index it reads
 * the active ones only, which the cap bounds.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX webhooks_active_account ON webhooks (account_id) WHERE status = 'active'`
})
