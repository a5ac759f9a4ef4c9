/**
 * Custom signals of accounts: the repository behind `/v2/signals` (list by
 * name with keyset paging, get, create, update, delete) and the live
 * `SignalResolver` every compilation of a `q` uses to inline them.
 *
 * Creation checks the name and the plan cap under a per-account advisory lock
 * in one transaction, so concurrent creates can neither take the same name
 * nor go past the cap.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Data, Effect, Layer, Option } from "effect"
import { signalsOf } from "../query/index.js"
import { SignalResolver } from "../signals/SignalResolver.js"

export interface CustomSignal {
  readonly name: string
  readonly description: string | null
  readonly expr: string
  /** epoch seconds */
  readonly createdAt: number
  readonly updatedAt: number
}

/** The account already has a signal by that name. */
/** the first key of Vigil's two-key advisory locks that serialize an account's custom-signal creates */
const ADVISORY_CUSTOM_SIGNALS = 1

export class CustomSignalExists extends Data.TaggedError("CustomSignalExists")<{ readonly name: string }> {}
/** The account is at its plan's cap. */
export class CustomSignalLimitReached extends Data.TaggedError("CustomSignalLimitReached")<{
  readonly limit: number
}> {}

interface Row {
  name: string
  description: string | null
  expr: string
  created_at: number
  updated_at: number
}

const toSignal = (r: Row): CustomSignal => ({
  name: r.name,
  description: r.description,
  expr: r.expr,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at)
})

const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

export class CustomSignals extends Effect.Service<CustomSignals>()("vigil/CustomSignals", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** One page of the account's signals by name, after `after` (exclusive); `more` when another page follows. */
    const list = (
      accountId: string,
      after: string | undefined,
      limit: number
    ): Effect.Effect<{ readonly signals: ReadonlyArray<CustomSignal>; readonly more: boolean }, SqlError> =>
      Effect.map(
        after === undefined
          ? sql<Row>`SELECT name, description, expr, created_at, updated_at FROM custom_signals
              WHERE account_id = ${accountId} ORDER BY name LIMIT ${limit + 1}`
          : sql<Row>`SELECT name, description, expr, created_at, updated_at FROM custom_signals
              WHERE account_id = ${accountId} AND name > ${after} ORDER BY name LIMIT ${limit + 1}`,
        (rows) => ({ signals: rows.slice(0, limit).map(toSignal), more: rows.length > limit })
      )

    /** Every signal of the account, by name. */
    const all = (accountId: string): Effect.Effect<ReadonlyArray<CustomSignal>, SqlError> =>
      Effect.map(
        sql<Row>`SELECT name, description, expr, created_at, updated_at FROM custom_signals
          WHERE account_id = ${accountId} ORDER BY name`,
        (rows) => rows.map(toSignal)
      )

    const count = (accountId: string): Effect.Effect<number, SqlError> =>
      Effect.map(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM custom_signals WHERE account_id = ${accountId}`,
        (rows) => Number(rows[0]?.n ?? 0)
      )

    const get = (accountId: string, name: string): Effect.Effect<Option.Option<CustomSignal>, SqlError> =>
      Effect.map(
        sql<Row>`SELECT name, description, expr, created_at, updated_at FROM custom_signals
          WHERE account_id = ${accountId} AND name = ${name}`,
        (rows) => Option.map(Option.fromNullable(rows[0]), toSignal)
      )

    /** Creates a signal; `limit` is the plan's cap (null = unlimited). */
    const create = (
      accountId: string,
      input: { readonly name: string; readonly expr: string; readonly description: string | null },
      limit: number | null
    ): Effect.Effect<CustomSignal, CustomSignalExists | CustomSignalLimitReached | SqlError> =>
      Effect.gen(function* () {
        // the two-key form: a key space apart from single-key advisory locks such as the cluster's
        // shard locks (@effect/cluster's SqlRunnerStorage, `pg_try_advisory_lock(bigint)`)
        yield* sql`SELECT pg_advisory_xact_lock(${ADVISORY_CUSTOM_SIGNALS}, hashtext(${accountId}))`
        const existing = yield* sql<{ one: number }>`SELECT 1 AS one FROM custom_signals
          WHERE account_id = ${accountId} AND name = ${input.name}`
        if (existing.length > 0) return yield* new CustomSignalExists({ name: input.name })
        if (limit !== null && (yield* count(accountId)) >= limit) {
          return yield* new CustomSignalLimitReached({ limit })
        }
        const now = yield* nowSeconds
        const rows = yield* sql<Row>`INSERT INTO custom_signals
            (account_id, name, description, expr, created_at, updated_at)
          VALUES (${accountId}, ${input.name}, ${input.description}, ${input.expr}, ${now}, ${now})
          RETURNING name, description, expr, created_at, updated_at`
        return toSignal(rows[0])
      }).pipe(sql.withTransaction)

    /** Replaces `expr` and/or `description` (a null description clears it); none when the signal does not exist. */
    const update = (
      accountId: string,
      name: string,
      patch: { readonly expr?: string | undefined; readonly description?: string | null | undefined }
    ): Effect.Effect<Option.Option<CustomSignal>, SqlError> =>
      Effect.gen(function* () {
        const now = yield* nowSeconds
        const setDescription = patch.description !== undefined
        const rows = yield* sql<Row>`UPDATE custom_signals SET
            expr = COALESCE(${patch.expr ?? null}, expr),
            description = CASE WHEN ${setDescription} THEN ${patch.description ?? null} ELSE description END,
            updated_at = ${now}
          WHERE account_id = ${accountId} AND name = ${name}
          RETURNING name, description, expr, created_at, updated_at`
        return Option.map(Option.fromNullable(rows[0]), toSignal)
      })

    /** Deletes a signal; false when it did not exist. */
    const remove = (accountId: string, name: string): Effect.Effect<boolean, SqlError> =>
      Effect.map(
        sql<{ name: string }>`DELETE FROM custom_signals WHERE account_id = ${accountId} AND name = ${name}
          RETURNING name`,
        (rows) => rows.length > 0
      )

    return { list, all, count, get, create, update, remove } as const
  })
}) {}

/** The live resolver: an account's custom signals from the store, read on every compilation. */
export const SignalResolverLive: Layer.Layer<SignalResolver, never, CustomSignals> = Layer.effect(
  SignalResolver,
  Effect.map(CustomSignals, (repo) => ({
    signalsFor: (accountId: string) =>
      Effect.map(repo.all(accountId), (rows) => signalsOf(new Map(rows.map((r) => [r.name, r.expr]))))
  }))
)

/** The repository and the resolver over it. */
export const CustomSignalsLive: Layer.Layer<CustomSignals | SignalResolver, never, SqlClient.SqlClient> =
  SignalResolverLive.pipe(Layer.provideMerge(CustomSignals.Default))
