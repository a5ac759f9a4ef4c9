/**
 * `COPY … FROM STDIN` on PostgreSQL, inside an `@effect/sql` transaction. `@effect/sql-pg` has
 * no COPY; its transaction connection holds the node-postgres client it reserved (`pg`, a field
 * of its connection class, not of the `Connection` type), and node-postgres runs any object with
 * `submit` as a query — the protocol `pg-copy-streams` speaks, written out here: the statement,
 * then on `CopyInResponse` the data and `CopyDone`. The bulk import writes a whole-market day in
 * PostgreSQL's binary format with it (no number written or read as text).
 *
 * `copyFromStdinOf` answers undefined when the connection is not one it knows (another driver, a
 * future `@effect/sql-pg` that moved the client): the caller then inserts as before.
 */
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"

/** the parts of node-postgres' client and its connection this uses */
interface PgClientLike {
  readonly query: (submittable: object) => unknown
}
interface PgConnectionLike {
  readonly query: (text: string) => void
  readonly sendCopyFromChunk: (chunk: Buffer) => void
  readonly endCopyFrom: () => void
}

export const copyFromStdinOf = (
  connection: Connection
): ((sql: string, data: Uint8Array) => Effect.Effect<void, SqlError>) | undefined => {
  const client = (connection as { readonly pg?: unknown }).pg as PgClientLike | undefined
  if (client === undefined || client === null || typeof client.query !== "function" || !("connection" in client)) {
    return undefined
  }
  return (sql, data) =>
    Effect.async<void, SqlError>((resume) => {
      let done = false
      const finish = (error?: unknown) => {
        if (done) return
        done = true
        resume(
          error === undefined
            ? Effect.void
            : Effect.fail(new SqlError({ cause: error, message: "Failed to execute statement" }))
        )
      }
      client.query({
        submit: (c: PgConnectionLike) => c.query(sql),
        handleCopyInResponse: (c: PgConnectionLike) => {
          c.sendCopyFromChunk(Buffer.from(data.buffer, data.byteOffset, data.byteLength))
          c.endCopyFrom()
        },
        handleCommandComplete: () => {},
        // after an error node-postgres drops the query: `ReadyForQuery` is not handed to it
        handleError: (error: unknown) => finish(error),
        handleReadyForQuery: () => finish(),
        handleRowDescription: () => {},
        handleDataRow: () => {},
        handleEmptyQuery: () => {},
        handlePortalSuspended: () => {},
        handleCopyData: () => {}
      })
    })
}
