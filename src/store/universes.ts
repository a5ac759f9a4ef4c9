/**
 * Caller-owned universes, account-scoped: a universe of another account is
 * indistinguishable from a missing one. Ids are unique per account; `create`
 * reports a taken id as `"taken"` rather than failing, so the caller can try
 * the next generated slug.
 *
 * Each universe keeps its membership history (`universe_memberships`): create
 * and every update that changes the tickers write a version effective at the
 * Clock's now, in the same transaction as the universe; delete takes the
 * history with it. `membership` reads the versions in effect over a span of
 * days, for as-of reads.
 *
 * `update` is the one read-modify-write of a universe: it locks the row
 * (`SELECT … FOR UPDATE`) and derives the new values — an edit of the list
 * included — from what it read under the lock, in the transaction that writes
 * them and the version, so concurrent updates queue instead of losing changes.
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

/**
 * An edit of a universe's list: given the list read under the row's lock, the new one (or a failure,
 * which leaves the universe as it was).
 */
export type TickersEdit<E = never> = (current: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>, E>

export interface UniverseChanges<E = never> {
  readonly name?: string | undefined
  readonly description?: string | null | undefined
  /** the new list, or an edit of the current one */
  readonly tickers?: ReadonlyArray<string> | TickersEdit<E> | undefined
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

/** A list an own universe has had, from `effectiveAt` (epoch seconds) until the next version's. */
export interface MembershipVersion {
  readonly effectiveAt: number
  readonly tickers: ReadonlyArray<string>
}

const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

const DAY_S = 86_400

/** The last second of an epoch day (UTC): the as-of moment of that date. */
const endOfDay = (day: number): number => (day + 1) * DAY_S - 1

const sameList = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && a.every((t, i) => t === b[i])

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

    /**
     * Records `tickers` as the universe's next version, effective now: never before its latest one (a
     * clock that stepped back still leaves the current list last, so versions and times go together).
     */
    const recordVersion = (accountId: string, id: string, tickers: ReadonlyArray<string>, now: number) =>
      sql`INSERT INTO universe_memberships (account_id, universe_id, version, effective_at, tickers)
        SELECT ${accountId}, ${id}, COALESCE(max(version), 0) + 1, GREATEST(${now}, COALESCE(max(effective_at), ${now})),
          ${tickers}::text[]
        FROM (SELECT version, effective_at FROM universe_memberships
          WHERE account_id = ${accountId} AND universe_id = ${id}
          ORDER BY effective_at DESC, version DESC LIMIT 1) latest`

    /** Inserts a universe with its first version; `"taken"` when the account already has the id. */
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
        if (rows.length === 0) return "taken" as const
        yield* recordVersion(input.accountId, input.id, input.tickers, now)
        return toRecord(rows[0]!)
      }).pipe(sql.withTransaction)

    /**
     * Applies changes (a new version when the tickers change) to the universe as locked in this
     * transaction; undefined when the universe does not exist. A failing edit of the list fails the
     * update and writes nothing.
     */
    const update = <E = never>(accountId: string, id: string, changes: UniverseChanges<E>) =>
      Effect.gen(function* () {
        const locked =
          yield* sql<Row>`SELECT * FROM universes WHERE account_id = ${accountId} AND id = ${id} FOR UPDATE`
        if (locked.length === 0) return undefined
        const current = toRecord(locked[0]!)
        const now = yield* nowSeconds
        const name = changes.name ?? current.name
        const description = changes.description === undefined ? current.description : changes.description
        const tickers =
          changes.tickers === undefined
            ? current.tickers
            : typeof changes.tickers === "function"
              ? yield* changes.tickers(current.tickers)
              : changes.tickers
        const rows = yield* sql<Row>`UPDATE universes
          SET name = ${name}, description = ${description}, tickers = ${tickers}::text[], updated_at = ${now}
          WHERE account_id = ${accountId} AND id = ${id}
          RETURNING *`
        if (rows.length === 0) return undefined
        if (!sameList(tickers, current.tickers)) yield* recordVersion(accountId, id, tickers, now)
        return toRecord(rows[0]!)
      }).pipe(sql.withTransaction)

    /**
     * The versions of a universe in effect on the days `fromDay`..`toDay` (epoch days, UTC; a day's
     * list is the one in effect at its end), oldest first: the one in effect at the end of `fromDay`
     * (the first version when the universe did not exist yet; with any of the same second before it)
     * and every later one up to the end of `toDay`; the last of those effective by a day is its list. Undefined when the universe does not exist. One statement, on the primary keys.
     */
    const membership = (accountId: string, id: string, fromDay: number, toDay: number) =>
      Effect.map(
        sql<{ effective_at: number | string | null; tickers: ReadonlyArray<string> }>`
          WITH since AS (
            SELECT effective_at FROM (
              (SELECT effective_at, version, 0 AS pick FROM universe_memberships
                WHERE account_id = ${accountId} AND universe_id = ${id} AND effective_at <= ${endOfDay(fromDay)}
                ORDER BY effective_at DESC, version DESC LIMIT 1)
              UNION ALL
              (SELECT effective_at, version, 1 AS pick FROM universe_memberships
                WHERE account_id = ${accountId} AND universe_id = ${id}
                ORDER BY effective_at, version LIMIT 1)
            ) candidates ORDER BY pick LIMIT 1
          )
          SELECT v.effective_at, COALESCE(v.tickers, u.tickers) AS tickers
          FROM universes u
          LEFT JOIN universe_memberships v ON v.account_id = u.account_id AND v.universe_id = u.id
            AND v.effective_at >= (SELECT effective_at FROM since)
            AND v.effective_at <= GREATEST(${endOfDay(toDay)}, (SELECT effective_at FROM since))
          WHERE u.account_id = ${accountId} AND u.id = ${id}
          ORDER BY v.effective_at, v.version`,
        (rows): ReadonlyArray<MembershipVersion> | undefined =>
          rows.length === 0
            ? undefined
            : rows.map((r) => ({
                effectiveAt: r.effective_at === null ? Number.NEGATIVE_INFINITY : Number(r.effective_at),
                tickers: r.tickers
              }))
      )

    /** true when a universe was deleted (its history with it). */
    const remove = (accountId: string, id: string) =>
      Effect.map(
        sql<{ id: string }>`DELETE FROM universes WHERE account_id = ${accountId} AND id = ${id} RETURNING id`,
        (rows) => rows.length > 0
      )

    return { list, get, create, update, membership, remove } as const
  })
}) {}
