import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Per webhook slice, the last refresh asked for through an API process (`POST /admin/refresh`)
 * that the slice was evaluated for: written by the evaluator holding the slice, read by the API
 * process, which answers once every slice has a row at or past its request (issue 15).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE slice_refreshes (slice smallint PRIMARY KEY, request bigint NOT NULL)`
})
