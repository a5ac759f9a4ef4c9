/**
 * Accounts and their API keys. A key that authenticated is cached in process
 * by its hash (src/accounts/keyCache.ts) under the stamp of the changes it
 * was read under; every change to keys or accounts is made through
 * `AuthChanges.announce`, which moves the stamp of every instance before it
 * is answered — so a revocation through any instance is refused by every
 * instance from its next request on (see authChanges.ts for how, per store).
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Data, Duration, Effect, Option, Schedule } from "effect"
import { numberArray, textList } from "../store/textList.js"
import {
  generateApiKey,
  hashApiKey,
  hashApiKeyHex,
  hashesEqual,
  isWellFormedKey,
  type KeyMode,
  randomId
} from "./apiKeys.js"
import { AuthChanges } from "./authChanges.js"
import { makeKeyCache } from "./keyCache.js"
import { type Plan, rateLimitFor } from "./plans.js"

export interface Account {
  readonly id: string
  readonly plan: Plan
  readonly rateLimitPerMinute: number
  /** the per-account override (enterprise), null when the plan's applies */
  readonly customRateLimit: number | null
}

export interface AuthenticatedKey {
  readonly account: Account
  readonly keyId: string
  readonly mode: KeyMode
}

interface AccountRow {
  readonly id: string
  readonly plan: Plan
  readonly rate_limit_per_minute: number | null
}

const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  plan: row.plan,
  customRateLimit: row.rate_limit_per_minute,
  rateLimitPerMinute: rateLimitFor(row.plan, row.rate_limit_per_minute)
})

/** keys cached per instance (the oldest leave first) */
export const KEY_CACHE_ENTRIES = 10_000
/** a cached key is read again after this long, whatever happens: a safety net for changes made outside the service */
export const KEY_CACHE_MAX_AGE_MS = 30_000

/** Longest a key that is not cached is looked up for before the request is answered 503. */
export const KEY_LOOKUP_DEADLINE = Duration.seconds(3)

/** The key's lookup (database, or the stamp in Redis) did not answer by `KEY_LOOKUP_DEADLINE`. */
export class KeyLookupTimeout extends Data.TaggedError("KeyLookupTimeout") {}

const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

/** how often an instance writes the last use of the keys it authenticated (and once more as it stops) */
export const LAST_USE_FLUSH = Duration.seconds(30)

/** What the keys page lists of a key (never the key). */
export interface KeyInfo {
  readonly id: string
  readonly prefix: string
  readonly mode: KeyMode
  /** epoch seconds */
  readonly createdAt: number
  readonly lastUsedAt: number | null
  readonly revokedAt: number | null
}

/** the visible start of a key: brand, mode and 4 characters of the secret */
export const keyPrefix = (apiKey: string): string => apiKey.slice(0, apiKey.lastIndexOf("_") + 5)

export class Accounts extends Effect.Service<Accounts>()("vigil/Accounts", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const changes = yield* AuthChanges
    const cache = makeKeyCache({ maxEntries: KEY_CACHE_ENTRIES, maxAgeMs: KEY_CACHE_MAX_AGE_MS })
    /** keys authenticated since the last flush: id → epoch ms of the last use */
    let used = new Map<string, number>()
    const noteUse = (key: AuthenticatedKey, nowMs: number): AuthenticatedKey => {
      used.set(key.keyId, nowMs)
      return key
    }
    const flushUses = Effect.suspend(() => {
      if (used.size === 0) return Effect.void
      const batch = used
      used = new Map()
      const ids = [...batch.keys()]
      const at = ids.map((id) => Math.floor(batch.get(id)! / 1000))
      return sql`UPDATE api_keys AS k SET last_used_at = GREATEST(coalesce(k.last_used_at, 0), u.at)
        FROM unnest(${textList(sql, ids)}, ${numberArray(at)}::bigint[]) AS u(id, at) WHERE k.id = u.id`.pipe(
        Effect.asVoid,
        Effect.catchAllCause((cause) => Effect.logWarning("keys' last use not written", cause))
      )
    })
    yield* flushUses.pipe(Effect.repeat(Schedule.spaced(LAST_USE_FLUSH)), Effect.forkScoped)
    yield* Effect.addFinalizer(() => flushUses)

    const insertKey = (accountId: string, mode: KeyMode, now: number) =>
      Effect.gen(function* () {
        const apiKey = generateApiKey(mode)
        const keyId = randomId("key")
        yield* sql`INSERT INTO api_keys ${sql.insert({
          id: keyId,
          account_id: accountId,
          mode,
          key_hash: hashApiKey(apiKey),
          prefix: keyPrefix(apiKey),
          created_at: now
        })}`
        return { keyId, apiKey, prefix: keyPrefix(apiKey), createdAt: now }
      })

    const create = (plan: Plan, mode: KeyMode = "test") =>
      Effect.gen(function* () {
        const now = yield* nowSeconds
        const accountId = randomId("acc")
        yield* sql`INSERT INTO accounts ${sql.insert({ id: accountId, plan, created_at: now, updated_at: now })}`
        const key = yield* insertKey(accountId, mode, now)
        return { accountId, plan, keyId: key.keyId, apiKey: key.apiKey }
      }).pipe(sql.withTransaction)

    /** An account without a key (a dashboard user's: keys are issued from the dashboard). */
    const createBare = (plan: Plan) =>
      Effect.gen(function* () {
        const now = yield* nowSeconds
        const accountId = randomId("acc")
        yield* sql`INSERT INTO accounts ${sql.insert({ id: accountId, plan, created_at: now, updated_at: now })}`
        return accountId
      })

    const find = (accountId: string): Effect.Effect<Option.Option<Account>, SqlError> =>
      Effect.map(
        sql<AccountRow>`SELECT id, plan, rate_limit_per_minute FROM accounts WHERE id = ${accountId}`,
        (rows) => Option.map(Option.fromNullable(rows[0]), toAccount)
      )

    /** Changes the plan, and the per-account rate limit when given (null clears it). */
    const update = (accountId: string, plan: Plan, rateLimitPerMinute?: number | null) =>
      changes.announce(
        `account ${accountId}`,
        Effect.gen(function* () {
          const now = yield* nowSeconds
          const rows =
            rateLimitPerMinute === undefined
              ? yield* sql<AccountRow>`UPDATE accounts SET plan = ${plan}, updated_at = ${now}
                WHERE id = ${accountId} RETURNING id, plan, rate_limit_per_minute`
              : yield* sql<AccountRow>`UPDATE accounts SET plan = ${plan}, rate_limit_per_minute = ${rateLimitPerMinute},
                updated_at = ${now} WHERE id = ${accountId} RETURNING id, plan, rate_limit_per_minute`
          return Option.map(Option.fromNullable(rows[0]), toAccount)
        })
      )

    const createKey = (accountId: string, mode: KeyMode) =>
      Effect.gen(function* () {
        const account = yield* find(accountId)
        if (Option.isNone(account)) return Option.none()
        const now = yield* nowSeconds
        return Option.some(yield* insertKey(accountId, mode, now))
      })

    /** Revokes a key; false when no such key (or already revoked). */
    const revokeKey = (keyId: string) =>
      changes.announce(
        `key ${keyId}`,
        Effect.gen(function* () {
          const now = yield* nowSeconds
          const rows = yield* sql<{ id: string }>`UPDATE api_keys SET revoked_at = ${now}
          WHERE id = ${keyId} AND revoked_at IS NULL RETURNING id`
          return rows.length > 0
        })
      )

    /** The account behind a presented key, if the key is well formed, known and not revoked. */
    const lookup = (apiKey: string): Effect.Effect<Option.Option<AuthenticatedKey>, SqlError> =>
      Effect.gen(function* () {
        if (!isWellFormedKey(apiKey)) return Option.none()
        const hash = hashApiKey(apiKey)
        const hashHex = hash.toString("hex")
        const now = yield* Clock.currentTimeMillis
        // read before the database: an answer read while a change commits is stored under the old stamp
        const stamp = yield* changes.stamp
        if (Option.isSome(stamp)) {
          const cached = cache.get(hashHex, stamp.value, now)
          if (cached !== undefined) return Option.some(noteUse(cached, now))
        }
        const rows = yield* sql<AccountRow & { key_id: string; mode: KeyMode; key_hash: Uint8Array }>`
          SELECT a.id, a.plan, a.rate_limit_per_minute, k.id AS key_id, k.mode, k.key_hash
          FROM api_keys k JOIN accounts a ON a.id = k.account_id
          WHERE k.key_hash = ${hash} AND k.revoked_at IS NULL`
        const row = rows[0]
        if (row === undefined || !hashesEqual(Buffer.from(row.key_hash), hash)) return Option.none()
        const key: AuthenticatedKey = { account: toAccount(row), keyId: row.key_id, mode: row.mode }
        if (Option.isSome(stamp)) cache.set(hashHex, key, stamp.value, now)
        return Option.some(noteUse(key, now))
      })

    /**
     * `authenticate`'s answer when it is a cache hit that needs no waiting (the stamp is known at
     * once: not with Redis); undefined when only `authenticate` can tell.
     */
    const authenticateCached = (apiKey: string, nowMs: number): AuthenticatedKey | undefined => {
      if (changes.stampNow === undefined || !isWellFormedKey(apiKey)) return undefined
      const stamp = changes.stampNow()
      const hit = Option.isSome(stamp) ? cache.get(hashApiKeyHex(apiKey), stamp.value, nowMs) : undefined
      return hit === undefined ? undefined : noteUse(hit, nowMs)
    }

    /**
     * The key's account, from the cache when it answers at once, else read (and the stamp of key
     * and account changes, with Redis) under `KEY_LOOKUP_DEADLINE`: a database or Redis that
     * stopped answering fails with `KeyLookupTimeout`, not a hung request.
     */
    const authenticate = (
      apiKey: string
    ): Effect.Effect<Option.Option<AuthenticatedKey>, SqlError | KeyLookupTimeout> =>
      Effect.clockWith((clock) => {
        const hit = authenticateCached(apiKey, clock.unsafeCurrentTimeMillis())
        return hit !== undefined
          ? Effect.succeed(Option.some(hit))
          : lookup(apiKey).pipe(
              Effect.timeoutFail({ duration: KEY_LOOKUP_DEADLINE, onTimeout: () => new KeyLookupTimeout() })
            )
      })

    /** An account's keys, newest first (what the dashboard's keys page lists). */
    const listKeys = (accountId: string) =>
      Effect.map(
        sql<{
          id: string
          prefix: string | null
          mode: KeyMode
          created_at: number | string
          last_used_at: number | string | null
          revoked_at: number | string | null
        }>`SELECT id, prefix, mode, created_at, last_used_at, revoked_at FROM api_keys
          WHERE account_id = ${accountId} AND session_hash IS NULL ORDER BY created_at DESC, id`,
        (rows): Array<KeyInfo> =>
          rows.map((r) => ({
            id: r.id,
            // keys made before prefixes were kept show their brand and mode only
            prefix: r.prefix ?? `vigil_${r.mode}_`,
            mode: r.mode,
            createdAt: Number(r.created_at),
            lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
            revokedAt: r.revoked_at === null ? null : Number(r.revoked_at)
          }))
      )

    /** Revokes one of an account's own keys; false when it has no such key (another account's included). */
    const revokeOwnKey = (accountId: string, keyId: string) =>
      changes.announce(
        `key ${keyId}`,
        Effect.gen(function* () {
          const now = yield* nowSeconds
          const rows = yield* sql<{ id: string }>`UPDATE api_keys SET revoked_at = ${now}
            WHERE id = ${keyId} AND account_id = ${accountId} AND revoked_at IS NULL RETURNING id`
          return rows.length > 0
        })
      )

    /** A dashboard session's own key (`DashboardSessions`): stored by its hash, tied to the session. */
    const insertSessionKey = (accountId: string, apiKey: string, sessionHash: Buffer) =>
      Effect.gen(function* () {
        const now = yield* nowSeconds
        yield* sql`INSERT INTO api_keys ${sql.insert({
          id: randomId("key"),
          account_id: accountId,
          mode: "live",
          key_hash: hashApiKey(apiKey),
          prefix: keyPrefix(apiKey),
          created_at: now,
          session_hash: sessionHash
        })}`
      })

    /** Revokes the keys of ended dashboard sessions (refused from the next request, by every instance). */
    const revokeSessionKeys = (sessionHashes: ReadonlyArray<Buffer>) =>
      sessionHashes.length === 0
        ? Effect.void
        : changes.announce(
            "dashboard session keys",
            Effect.forEach(
              sessionHashes,
              (h) =>
                Effect.flatMap(
                  nowSeconds,
                  (now) => sql`UPDATE api_keys SET revoked_at = ${now} WHERE session_hash = ${h} AND revoked_at IS NULL`
                ),
              { discard: true }
            )
          )

    return {
      insertSessionKey,
      revokeSessionKeys,
      listKeys,
      revokeOwnKey,
      flushUses,
      create,
      createBare,
      find,
      update,
      createKey,
      revokeKey,
      authenticate,
      authenticateCached
    } as const
  })
}) {}
