/**
 * Changes to API keys and accounts (revocations, plan and limit changes) and
 * how each instance knows whether what it cached about keys still holds.
 *
 * Every change goes through `announce`, which makes it in a transaction and
 * moves the `stamp`: a cached key is served only under the stamp it was read
 * under (src/accounts/keyCache.ts). How far the stamp reaches:
 *
 * - Embedded store: one process, so a counter moved after each commit.
 * - PostgreSQL: the transaction also sends `NOTIFY vigil_auth_<schema hash>`,
 *   which PostgreSQL delivers at commit (never for a rollback) to every
 *   instance; each keeps one connection `LISTEN`ing (reconnected with
 *   backoff) and moves its counter on each notification. While that
 *   connection is down the instance cannot vouch for its cache and reads
 *   every key from the database (the connection also checks every 2 s that
 *   the server answers within 2 s, so a hung server counts as down). Delivery
 *   takes milliseconds, so the instance
 *   that made a change waits (up to a second) for its own notification to
 *   come back before it answers.
 * - PostgreSQL and Redis (REDIS_URL): after the commit the change also
 *   increments `vigil:auth:epoch:<schema hash>` in Redis before it is
 *   answered, and every lookup reads that epoch (one GET, ~0.1 ms) into its
 *   stamp — so a change answered by one instance is seen by every other on
 *   its very next request, strictly. When Redis does not answer within
 *   1 s, lookups read keys from the database (without asking Redis for the
 *   next 5 s).
 */
import { createHash, randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Deferred, Duration, Effect, Exit, Layer, Option, Redacted, Schedule } from "effect"
import type { Redis as IORedis } from "ioredis"
import pg from "pg"
import { AppConfig } from "../config/AppConfig.js"
import { Redis, redisBreaker } from "../store/Redis.js"

export interface AuthChangesShape {
  /** whether changes made through other instances reach this one as they happen */
  readonly listening: () => boolean
  /** what this instance can vouch for about changes to keys and accounts; None when it cannot */
  readonly stamp: Effect.Effect<Option.Option<string>>
  /** `stamp` when it can be known without waiting (not with Redis, whose epoch is read per lookup) */
  readonly stampNow?: () => Option.Option<string>
  /** makes `change` in a transaction and announces it to every instance before returning */
  readonly announce: <A, E, R>(what: string, change: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
}

export class AuthChanges extends Context.Tag("vigil/AuthChanges")<AuthChanges, AuthChangesShape>() {}

/** One process (the embedded store). */
export const localAuthChanges: Layer.Layer<AuthChanges, never, SqlClient.SqlClient> = Layer.effect(
  AuthChanges,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let generation = 0
    const stampNow = () => Option.some(`${generation}`)
    return {
      listening: () => true,
      stamp: Effect.sync(stampNow),
      stampNow,
      announce: (_what, change) => sql.withTransaction(change).pipe(Effect.ensuring(Effect.sync(() => generation++)))
    } satisfies AuthChangesShape
  })
)

const ECHO_TIMEOUT = "1 second"
/** how often, and how patiently, the listening connection checks that the server still answers */
const PROBE_INTERVAL = "2 seconds"
const PROBE_TIMEOUT = "2 seconds"
/** as the rate limiter's bound on Redis (a tighter one mistakes a busy event loop for an outage) */
const EPOCH_TIMEOUT_MS = 1_000
/** after Redis failed to answer, lookups read keys from the database for this long without asking it (as the rate limiter's cooldown) */
const EPOCH_COOLDOWN_MS = 5_000
const EPOCH_TTL_SECONDS = 7 * 24 * 3600

const deploymentHash = (schema: string) => createHash("sha256").update(schema).digest("hex").slice(0, 16)

/**
 * Every instance on one PostgreSQL database (schema): `NOTIFY` at commit and
 * one `LISTEN`ing connection each, plus the Redis epoch when there is Redis.
 */
export const postgresAuthChanges = (
  url: Redacted.Redacted<string>,
  redis: Option.Option<IORedis>,
  applicationName = "vigil-auth-listener"
): Layer.Layer<AuthChanges, never, SqlClient.SqlClient> =>
  Layer.scoped(
    AuthChanges,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // notifications are database-wide: name the channel after the schema the tables live in
      const [{ schema }] = yield* sql<{ schema: string }>`SELECT current_schema() AS schema`.pipe(Effect.orDie)
      const channel = `vigil_auth_${deploymentHash(schema)}`
      const epochKey = `vigil:auth:epoch:${deploymentHash(schema)}`
      const echoes = new Map<string, () => void>()
      let generation = 0
      let live = false

      const onNotification = (message: pg.Notification) => {
        if (message.channel !== channel) return
        generation++
        const id = message.payload?.split(" ", 1)[0]
        if (id !== undefined) echoes.get(id)?.()
      }

      /** one listening session: ends when the connection breaks */
      const session = Effect.acquireUseRelease(
        Effect.tryPromise(async () => {
          const client = new pg.Client({
            connectionString: Redacted.value(url),
            keepAlive: true,
            connectionTimeoutMillis: 5_000,
            application_name: applicationName
          })
          const broken = { value: false, wake: () => {} }
          const onBroken = () => {
            broken.value = true
            broken.wake()
          }
          client.on("error", onBroken)
          client.on("end", onBroken)
          try {
            await client.connect()
            await client.query(`LISTEN ${channel}`)
          } catch (error) {
            client.end().catch(() => {})
            throw error
          }
          return { client, broken }
        }),
        ({ client, broken }) =>
          Effect.raceFirst(
            Effect.async<void>((resume) => {
              client.on("notification", onNotification)
              // changes made while it was not listening were missed: nothing cached before holds
              generation++
              live = true
              if (broken.value) return resume(Effect.void)
              broken.wake = () => resume(Effect.void)
            }),
            // a server that hangs (frozen, or cut off without a reset) keeps the socket open: probe it,
            // so that the instance stops trusting its cache and requests meet the database's timeouts
            Effect.tryPromise(() => client.query("SELECT 1")).pipe(
              Effect.timeoutFail({ duration: PROBE_TIMEOUT, onTimeout: () => new Error("no answer") }),
              Effect.zipRight(Effect.sleep(PROBE_INTERVAL)),
              Effect.forever,
              Effect.ignore
            )
          ).pipe(Effect.zipRight(Effect.logWarning("lost the connection that listens for key and account changes"))),
        ({ client }) =>
          Effect.sync(() => {
            live = false
            generation++
            client.removeListener("notification", onNotification)
            client.end().catch(() => {})
          })
      )
      yield* session.pipe(
        Effect.catchAll((error) =>
          Effect.logWarning("cannot listen for key and account changes; keys are read from the database").pipe(
            Effect.annotateLogs({ error: String(error) })
          )
        ),
        Effect.repeat(Schedule.exponential("200 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))),
        Effect.forkScoped
      )
      yield* Effect.addFinalizer(() => Effect.sync(() => (live = false)))

      /** without Redis: what the listening connection vouches for */
      const listenedStamp = (): Option.Option<string> => (live ? Option.some(`${generation}`) : Option.none())
      const stamp: Effect.Effect<Option.Option<string>> = Option.match(redis, {
        onNone: () => Effect.sync(listenedStamp),
        onSome: (client) => {
          // the connection's breaker is shared with the rate limiter: one outage, one wait per request
          const breaker = redisBreaker(client)
          return Effect.suspend(() => {
            // not listening: the database may be unreachable or hung, so let lookups meet it
            if (!live || breaker.open()) return Effect.succeed(Option.none<string>())
            return Effect.tryPromise(() => client.get(epochKey)).pipe(
              Effect.timeout(Duration.millis(EPOCH_TIMEOUT_MS)),
              Effect.map((epoch) => Option.some(`${generation}:${epoch ?? 0}`)),
              Effect.orElse(() =>
                Effect.sync(() => {
                  breaker.trip(EPOCH_COOLDOWN_MS)
                  return Option.none<string>()
                })
              )
            )
          })
        }
      })

      const bumpEpoch = Option.match(redis, {
        onNone: () => Effect.succeed(false),
        onSome: (client) =>
          // a TTL like every key of ours; should it lapse, the epoch restarts at 0, which also misses
          Effect.tryPromise(() => client.multi().incr(epochKey).expire(epochKey, EPOCH_TTL_SECONDS).exec()).pipe(
            Effect.timeout("1 second"),
            Effect.as(true),
            Effect.catchAll((error) =>
              Effect.logWarning("could not move the key-change epoch in Redis; other instances rely on NOTIFY").pipe(
                Effect.annotateLogs({ error: String(error) }),
                Effect.as(false)
              )
            )
          )
      })

      return {
        listening: () => live,
        stamp,
        ...(Option.isNone(redis) ? { stampNow: listenedStamp } : {}),
        announce: (what, change) => {
          const id = randomBytes(9).toString("base64url")
          return Effect.gen(function* () {
            const wasLive = live
            // registered before the commit: the echo may arrive before the commit's answer does
            const echoed = yield* Deferred.make<void>()
            echoes.set(id, () => Deferred.unsafeDone(echoed, Exit.void))
            const result = yield* sql.withTransaction(
              Effect.zipLeft(change, sql`SELECT pg_notify(${channel}, ${`${id} ${what}`})`)
            )
            generation++
            const strict = yield* bumpEpoch
            if (!strict && wasLive && live) {
              const done = yield* Deferred.await(echoed).pipe(Effect.timeoutOption(ECHO_TIMEOUT))
              if (Option.isNone(done)) {
                yield* Effect.logWarning("a key or account change was not echoed back in time").pipe(
                  Effect.annotateLogs({ change_id: id })
                )
              }
            }
            return result
          }).pipe(
            Effect.onError(() => Effect.sync(() => generation++)),
            Effect.ensuring(Effect.sync(() => echoes.delete(id)))
          )
        }
      } satisfies AuthChangesShape
    })
  )

/** Chooses from the configuration, as the database itself is chosen. */
export const AuthChangesLive: Layer.Layer<AuthChanges, never, SqlClient.SqlClient | AppConfig | Redis> =
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const config = yield* AppConfig
      const redis = yield* Redis
      return Option.match(config.databaseUrl, {
        onNone: () => localAuthChanges,
        onSome: (url) => postgresAuthChanges(url, redis)
      })
    })
  )
