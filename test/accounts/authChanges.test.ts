/**
 * Key and account changes reach every instance: two `Accounts` services on
 * one PostgreSQL schema, each with its own pool and its own listening
 * connection, as two service processes would have. Keys are cached per
 * instance, yet a change made through one is seen by the other: on its very
 * next lookup with Redis (the epoch), within milliseconds through NOTIFY
 * alone. An instance that cannot listen reads every key from the database.
 */
import { randomBytes } from "node:crypto"
import { type AddressInfo, connect, createServer } from "node:net"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import type { Redis as IORedis } from "ioredis"
import { Accounts } from "../../src/accounts/Accounts.js"
import { AuthChanges, localAuthChanges, postgresAuthChanges } from "../../src/accounts/authChanges.js"
import { pgliteLayer, postgresLayer } from "../../src/store/Database.js"
import { runMigrations } from "../../src/store/migrate.js"
import { makeRedis } from "../../src/store/Redis.js"
import { isolatedSchemaUrl } from "../support/backends.js"
import { DATABASE_URL, NEEDS_POSTGRES, NEEDS_REDIS, REDIS_URL } from "../support/servers.js"

const planOf = (accounts: Accounts, apiKey: string) =>
  Effect.map(
    accounts.authenticate(apiKey),
    Option.map((k) => k.account.plan)
  )

const untilLive = (changes: Context.Tag.Service<AuthChanges>, wanted = true) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400 && changes.listening() !== wanted; i++)
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 25)))
    expect(changes.listening()).toBe(wanted)
  })

describe("key and account changes (embedded: one process)", () => {
  it.scopedLive(
    "a change through the service clears the cache; one made behind its back waits for the maximum age",
    () =>
      Effect.gen(function* () {
        const context = yield* Layer.build(
          Accounts.Default.pipe(
            Layer.provide(localAuthChanges),
            Layer.provideMerge(
              Layer.effectDiscard(runMigrations.pipe(Effect.orDie)).pipe(Layer.provideMerge(pgliteLayer(undefined)))
            )
          )
        )
        const accounts = Context.get(context, Accounts)
        const sql = Context.get(context, SqlClient.SqlClient)
        const created = yield* accounts.create("pro")
        expect(yield* planOf(accounts, created.apiKey)).toEqual(Option.some("pro"))
        // behind the service's back: the cached answer stands (for at most KEY_CACHE_MAX_AGE_MS)
        yield* sql`UPDATE accounts SET plan = 'scale' WHERE id = ${created.accountId}`
        expect(yield* planOf(accounts, created.apiKey)).toEqual(Option.some("pro"))
        // through the service: seen at once
        yield* accounts.update(created.accountId, "hobby")
        expect(yield* planOf(accounts, created.apiKey)).toEqual(Option.some("hobby"))
        yield* accounts.revokeKey(created.keyId)
        expect(Option.isNone(yield* accounts.authenticate(created.apiKey))).toBe(true)
      }),
    60_000
  )
})

// read only inside the suite below, which is skipped without DATABASE_URL
const url = DATABASE_URL ?? ""
describe.skipIf(DATABASE_URL === undefined)(
  `key and account changes (PostgreSQL: several instances) (${NEEDS_POSTGRES})`,
  () => {
    const instance = (schemaUrl: string, listenerName: string, redis: Option.Option<IORedis>) => {
      // one reference, so Accounts and the test see the same instance (layers are shared by reference)
      const changes = postgresAuthChanges(Redacted.make(url), redis, listenerName)
      return Layer.build(
        Layer.merge(Accounts.Default.pipe(Layer.provide(changes)), changes).pipe(
          Layer.provideMerge(postgresLayer(Redacted.make(schemaUrl)))
        )
      ).pipe(Effect.orDie)
    }

    /** two instances A and B on one fresh schema, both listening */
    const twoInstances = (redis: Option.Option<IORedis>) =>
      Effect.gen(function* () {
        const schemaUrl = yield* isolatedSchemaUrl(url)
        const tag = randomBytes(4).toString("hex")
        const a = yield* instance(schemaUrl, `vigil-test-a-${tag}`, redis)
        yield* runMigrations.pipe(Effect.provide(a), Effect.orDie)
        const b = yield* instance(schemaUrl, `vigil-test-b-${tag}`, redis)
        yield* untilLive(Context.get(a, AuthChanges))
        yield* untilLive(Context.get(b, AuthChanges))
        return { a, b, sql: Context.get(a, SqlClient.SqlClient) }
      })

    /** polls B until it sees `expected` (NOTIFY alone: delivery takes milliseconds) */
    const eventually = <A>(read: Effect.Effect<A, unknown>, expected: A) =>
      Effect.gen(function* () {
        let seen = yield* read
        for (let i = 0; i < 100 && !equalsOption(seen, expected); i++) {
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
          seen = yield* read
        }
        expect(seen).toEqual(expected)
      })
    const equalsOption = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y)

    it.scopedLive(
      "through NOTIFY alone: B caches keys, and a change made through A reaches B within milliseconds",
      () =>
        Effect.gen(function* () {
          const { a, b, sql } = yield* twoInstances(Option.none())
          const [accountsA, accountsB] = [Context.get(a, Accounts), Context.get(b, Accounts)]
          const created = yield* accountsA.create("pro")
          expect(yield* planOf(accountsB, created.apiKey)).toEqual(Option.some("pro"))
          // B caches: a change behind both services' backs is not seen
          yield* sql`UPDATE accounts SET plan = 'scale' WHERE id = ${created.accountId}`
          expect(yield* planOf(accountsB, created.apiKey)).toEqual(Option.some("pro"))
          yield* accountsA.update(created.accountId, "hobby")
          yield* eventually(planOf(accountsB, created.apiKey), Option.some("hobby"))
          expect(yield* accountsA.revokeKey(created.keyId)).toBe(true)
          yield* eventually(accountsB.authenticate(created.apiKey), Option.none())
        }),
      60_000
    )

    it.scopedLive.skipIf(REDIS_URL === undefined)(
      `with Redis: a change answered by A is seen by B on its very next lookup (${NEEDS_REDIS})`,
      () =>
        Effect.gen(function* () {
          const redis = yield* makeRedis(REDIS_URL!)
          const { a, b, sql } = yield* twoInstances(Option.some(redis))
          const [accountsA, accountsB] = [Context.get(a, Accounts), Context.get(b, Accounts)]
          for (let round = 0; round < 20; round++) {
            const created = yield* accountsA.create("pro")
            expect(yield* planOf(accountsB, created.apiKey)).toEqual(Option.some("pro"))
            yield* sql`UPDATE accounts SET plan = 'scale' WHERE id = ${created.accountId}`
            expect(yield* planOf(accountsB, created.apiKey)).toEqual(Option.some("pro"))
            yield* accountsA.update(created.accountId, "hobby")
            expect(yield* planOf(accountsB, created.apiKey)).toEqual(Option.some("hobby"))
            expect(yield* accountsA.revokeKey(created.keyId)).toBe(true)
            expect(Option.isNone(yield* accountsB.authenticate(created.apiKey))).toBe(true)
          }
        }),
      60_000
    )

    it.scopedLive(
      "a server that stops answering without closing the connection counts as down within seconds",
      () =>
        Effect.gen(function* () {
          // a TCP proxy to PostgreSQL that can freeze: it keeps every socket open and forwards nothing
          let frozen = false
          const target = new URL(url)
          const proxy = createServer((client) => {
            const upstream = connect(Number(target.port || 5432), target.hostname)
            client.on("data", (d) => frozen || upstream.write(d))
            upstream.on("data", (d) => frozen || client.write(d))
            client.on("error", () => upstream.destroy())
            upstream.on("error", () => client.destroy())
          })
          yield* Effect.acquireRelease(
            Effect.promise(() => new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r))),
            () => Effect.sync(() => proxy.close())
          )
          const proxied = new URL(url)
          proxied.host = `127.0.0.1:${(proxy.address() as AddressInfo).port}`
          const context = yield* Layer.build(
            postgresAuthChanges(Redacted.make(proxied.toString()), Option.none(), "vigil-test-frozen").pipe(
              Layer.provide(postgresLayer(Redacted.make(url)))
            )
          ).pipe(Effect.orDie)
          const changes = Context.get(context, AuthChanges)
          yield* untilLive(changes)
          frozen = true
          yield* untilLive(changes, false)
          expect(Option.isNone(yield* changes.stamp)).toBe(true)
          frozen = false
        }),
      60_000
    )

    it.scopedLive(
      "an instance whose listening connection is cut reads keys from the database until it listens again",
      () =>
        Effect.gen(function* () {
          const schemaUrl = yield* isolatedSchemaUrl(url)
          const name = `vigil-test-cut-${randomBytes(4).toString("hex")}`
          const b = yield* instance(schemaUrl, name, Option.none())
          yield* runMigrations.pipe(Effect.provide(b), Effect.orDie)
          const accounts = Context.get(b, Accounts)
          const sql = Context.get(b, SqlClient.SqlClient)
          yield* untilLive(Context.get(b, AuthChanges))
          const created = yield* accounts.create("pro")
          expect(yield* planOf(accounts, created.apiKey)).toEqual(Option.some("pro"))

          // cut its listening connection (only this test's, by its application name)
          yield* sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${name}`
          // from then on it sees changes made behind its back: it reads the database while it cannot
          // listen, and forgets its cache when it listens again
          let seen = false
          for (let i = 0; i < 200 && !seen; i++) {
            const plan = i % 2 === 0 ? "scale" : "hobby"
            yield* sql`UPDATE accounts SET plan = ${plan} WHERE id = ${created.accountId}`
            seen = Option.getOrNull(yield* planOf(accounts, created.apiKey)) === plan
            if (!seen) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 25)))
          }
          expect(seen).toBe(true)
          // it listens again by itself, and caches again
          yield* untilLive(Context.get(b, AuthChanges))
          yield* sql`UPDATE accounts SET plan = 'enterprise' WHERE id = ${created.accountId}`
          expect(yield* planOf(accounts, created.apiKey)).toEqual(Option.some("enterprise"))
          yield* sql`UPDATE accounts SET plan = 'pro' WHERE id = ${created.accountId}`
          expect(yield* planOf(accounts, created.apiKey)).toEqual(Option.some("enterprise"))
        }),
      60_000
    )
  }
)
