/**
 * Saved scan rules, account-scoped: named, stored parameter sets of a scan
 * (`q`, `universe`, `order`, `dir`, `fields`). The store keeps what it is
 * given; validation (compiling `q`, columns, universe) is the API's, run by
 * `update` on the rule as locked in its transaction.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"

export interface RuleParams {
  readonly name: string
  readonly q: string
  readonly universe: string | null
  readonly order: string
  readonly dir: "asc" | "desc"
  readonly fields: ReadonlyArray<string>
}

export interface RuleRecord extends RuleParams {
  readonly accountId: string
  readonly id: string
  /** epoch seconds */
  readonly createdAt: number
  readonly updatedAt: number
}

interface Row {
  account_id: string
  id: string
  name: string
  q: string
  universe: string | null
  order_by: string
  dir: string
  fields: ReadonlyArray<string>
  created_at: number | string
  updated_at: number | string
}

const toRecord = (r: Row): RuleRecord => ({
  accountId: r.account_id,
  id: r.id,
  name: r.name,
  q: r.q,
  universe: r.universe,
  order: r.order_by,
  dir: r.dir === "asc" ? "asc" : "desc",
  fields: r.fields,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at)
})

const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

export class Rules extends Effect.Service<Rules>()("vigil/Rules", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Own rules by id ascending, after `afterId` when given. */
    const list = (accountId: string, limit: number, afterId?: string) =>
      Effect.map(
        afterId === undefined
          ? sql<Row>`SELECT * FROM scan_rules WHERE account_id = ${accountId} ORDER BY id LIMIT ${limit}`
          : sql<Row>`SELECT * FROM scan_rules WHERE account_id = ${accountId} AND id > ${afterId}
              ORDER BY id LIMIT ${limit}`,
        (rows) => rows.map(toRecord)
      )

    const get = (accountId: string, id: string) =>
      Effect.map(sql<Row>`SELECT * FROM scan_rules WHERE account_id = ${accountId} AND id = ${id}`, (rows) =>
        rows.length === 0 ? undefined : toRecord(rows[0]!)
      )

    const create = (accountId: string, id: string, params: RuleParams) =>
      Effect.gen(function* () {
        const now = yield* nowSeconds
        const rows = yield* sql<Row>`INSERT INTO scan_rules
            (account_id, id, name, q, universe, order_by, dir, fields, created_at, updated_at)
          VALUES (${accountId}, ${id}, ${params.name}, ${params.q}, ${params.universe}, ${params.order},
            ${params.dir}, ${params.fields}::text[], ${now}, ${now})
          RETURNING *`
        return toRecord(rows[0]!)
      })

    /** Replaces the parameters; undefined when the rule does not exist. */
    const replace = (accountId: string, id: string, params: RuleParams) =>
      Effect.gen(function* () {
        const now = yield* nowSeconds
        const rows = yield* sql<Row>`UPDATE scan_rules
          SET name = ${params.name}, q = ${params.q}, universe = ${params.universe}, order_by = ${params.order},
            dir = ${params.dir}, fields = ${params.fields}::text[], updated_at = ${now}
          WHERE account_id = ${accountId} AND id = ${id}
          RETURNING *`
        return rows.length === 0 ? undefined : toRecord(rows[0]!)
      })

    /**
     * The read-modify-write of a rule: `edit` gets the rule as locked (`FOR UPDATE`) in the
     * transaction that writes the parameters it returns, so concurrent edits queue instead of
     * writing back what they read; a failing edit writes nothing. Undefined when the rule does not
     * exist (`edit` is not run).
     */
    const update = <E, R>(
      accountId: string,
      id: string,
      edit: (current: RuleRecord) => Effect.Effect<RuleParams, E, R>
    ) =>
      Effect.gen(function* () {
        const locked = yield* sql<Row>`SELECT * FROM scan_rules WHERE account_id = ${accountId} AND id = ${id}
          FOR UPDATE`
        if (locked.length === 0) return undefined
        return yield* replace(accountId, id, yield* edit(toRecord(locked[0]!)))
      }).pipe(sql.withTransaction)

    /** true when a rule was deleted. */
    const remove = (accountId: string, id: string) =>
      Effect.map(
        sql<{ id: string }>`DELETE FROM scan_rules WHERE account_id = ${accountId} AND id = ${id} RETURNING id`,
        (rows) => rows.length > 0
      )

    return { list, get, create, replace, update, remove } as const
  })
}) {}
