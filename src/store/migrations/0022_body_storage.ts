import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Event bodies compressed with lz4 where the server has it (issue 16): `deliveries.payload`,
 * `notifications.payload` and `webhook_events.body` are JSON of up to `MAX_FIRE_ROWS` rows
 * (~2–20 KB), written by the thousand in one tick's commit, and PostgreSQL compresses such values
 * with pglz by default. On PostgreSQL built with lz4 (Debian's is), lz4 wrote 2,000 bodies of
 * 15 KB in 221–243 ms against pglz's 494–587 ms, to the same size (docs/benchmarks.md). PGlite has
 * no lz4 and keeps pglz: storing its bodies uncompressed (`STORAGE EXTERNAL`) was tried and not
 * kept — three times the disk, and no faster ticks. Rows written before keep their compression
 * until rewritten; reads are unchanged.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [has] = yield* sql<{ lz4: boolean }>`SELECT coalesce(
    (SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'), false) AS lz4`
  if (has?.lz4 !== true) return
  yield* sql`ALTER TABLE deliveries ALTER COLUMN payload SET COMPRESSION lz4`
  yield* sql`ALTER TABLE notifications ALTER COLUMN payload SET COMPRESSION lz4`
  yield* sql`ALTER TABLE webhook_events ALTER COLUMN body SET COMPRESSION lz4`
})
