/**
 * Caller-owned universes, account-scoped: a universe of another account is
 * indistinguishable from a missing one. Ids are unique per account; `create`
 * reports a taken id as `"taken"` rather than failing, so the caller can try
 * the next generated slug.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"

export interface UniverseRecord {
  readonly accountId: string
  readonly id: string
  readonly name: string
  readonly description: string | null
  readonly tickers: ReadonlyArray<string>
  /** epoch seconds */
  readonly createdAt: number
  readonly updatedAt: number
}

export interface UniverseChanges {
  readonly name?: string | undefined
  readonly description?: string | null | undefined
  readonly tickers?: ReadonlyArray<string> | undefined
}

interface Row {
  account_id: string
  id: string
  name: string
  description: string | null
  tickers: ReadonlyArray<string>
  created_at: number | string
  updated_at: number | string
}

const toRecord = (r: Row): UniverseRecord => ({
  accountId: r.account_id,
  id: r.id,
  name: r.name,
  description: r.description,
  tickers: r.tickers,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at)
})

const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

export class Universes extends Effect.Service<Universes>()("vigil/Universes", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Own universes by id ascending, after `afterId` when given. */
    const list = (accountId: string, limit: number, afterId?: string) =>
      Effect.map(
        afterId === undefined
          ? sql<Row>`SELECT * FROM universes WHERE account_id = ${accountId} ORDER BY id LIMIT ${limit}`
          : sql<Row>`SELECT * FROM universes WHERE account_id = ${accountId} AND id > ${afterId}
              ORDER BY id LIMIT ${limit}`,
        (rows) => rows.map(toRecord)
      )

    const get = (accountId: string, id: string) =>
      Effect.map(sql<Row>`SELECT * FROM universes WHERE account_id = ${accountId} AND id = ${id}`, (rows) =>
        rows.length === 0 ? undefined : toRecord(rows[0]!)
      )

    /** Inserts a universe; `"taken"` when the account already has the id. */
    const create = (input: {
      readonly accountId: string
      readonly id: string
      readonly name: string
      readonly description: string | null
      readonly tickers: ReadonlyArray<string>
    }) =>
      Effect.gen(function* () {
        const now = yield* nowSeconds
        const rows = yield* sql<Row>`INSERT INTO universes
            (account_id, id, name, description, tickers, created_at, updated_at)
          VALUES (${input.accountId}, ${input.id}, ${input.name}, ${input.description},
            ${input.tickers}::text[], ${now}, ${now})
          ON CONFLICT (account_id, id) DO NOTHING
          RETURNING *`
        return rows.length === 0 ? ("taken" as const) : toRecord(rows[0]!)
      })

    /** Applies changes; undefined when the universe does not exist. */
    const update = (accountId: string, id: string, changes: UniverseChanges) =>
      Effect.gen(function* () {
        const current = yield* get(accountId, id)
        if (current === undefined) return undefined
        const now = yield* nowSeconds
        const name = changes.name ?? current.name
        const description = changes.description === undefined ? current.description : changes.description
        const tickers = changes.tickers ?? current.tickers
        const rows = yield* sql<Row>`UPDATE universes
          SET name = ${name}, description = ${description}, tickers = ${tickers}::text[], updated_at = ${now}
          WHERE account_id = ${accountId} AND id = ${id}
          RETURNING *`
        return rows.length === 0 ? undefined : toRecord(rows[0]!)
      }).pipe(sql.withTransaction)

    /** true when a universe was deleted. */
    const remove = (accountId: string, id: string) =>
      Effect.map(
        sql<{ id: string }>`DELETE FROM universes WHERE account_id = ${accountId} AND id = ${id} RETURNING id`,
        (rows) => rows.length > 0
      )

    return { list, get, create, update, remove } as const
  })
}) {}
