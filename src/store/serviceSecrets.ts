/**
 * Secrets shared by every instance on one database: made at random by the
 * first instance that needs one (insert-if-absent, then read back, so racing
 * instances agree) and never returned by any endpoint.
 */

import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"

export const sharedSecret = (name: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    yield* sql`INSERT INTO service_secrets (name, value, created_at) VALUES (${name}, ${randomBytes(32)}, ${now})
      ON CONFLICT (name) DO NOTHING`
    const rows = yield* sql<{ value: Uint8Array }>`SELECT value FROM service_secrets WHERE name = ${name}`
    return Buffer.from(rows[0].value)
  })
