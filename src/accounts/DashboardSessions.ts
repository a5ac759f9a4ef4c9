/**
 * Dashboard sessions (issue 18, item 2): a signed-in browser holds a random token (256 bits) in an
 * `HttpOnly`, `SameSite=Strict` cookie; the store keeps only its SHA-256 hash, with the user and an
 * expiry `SESSION_TTL_MS` after sign-in (on the Effect Clock). A mutation also presents the
 * session's CSRF token, an HMAC of the session token under a secret shared by every instance
 * (`service_secrets`): derived, never stored, compared in constant time.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Effect, Option } from "effect"
import { sharedSecret } from "../store/serviceSecrets.js"
import type { Plan } from "./plans.js"
import type { DashboardUser } from "./Users.js"

/** how long a session lasts from sign-in */
export const SESSION_TTL_MS = 12 * 3_600_000
/** the session cookie's name */
export const SESSION_COOKIE = "vigil_session"

export interface DashboardSession {
  readonly user: DashboardUser
  readonly plan: Plan
  /** epoch ms */
  readonly expiresAt: number
}

const TOKEN = /^vds_[A-Za-z0-9_-]{43}$/

const tokenHash = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest()

export class DashboardSessions extends Effect.Service<DashboardSessions>()("vigil/DashboardSessions", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let secret: Buffer | undefined
    const csrfKey = Effect.suspend(() =>
      secret === undefined
        ? Effect.map(Effect.provideService(sharedSecret("dashboard_csrf"), SqlClient.SqlClient, sql), (s) => {
            secret = s
            return s
          })
        : Effect.succeed(secret)
    )

    /** A new session of `userId` (its earlier expired sessions are dropped): the token for the cookie. */
    const open = (userId: string) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const token = `vds_${randomBytes(32).toString("base64url")}`
        const expiresAt = now + SESSION_TTL_MS
        yield* sql`DELETE FROM dashboard_sessions WHERE user_id = ${userId} AND expires_at <= ${now}`
        yield* sql`INSERT INTO dashboard_sessions ${sql.insert({
          token_hash: tokenHash(token),
          user_id: userId,
          created_at: now,
          expires_at: expiresAt
        })}`
        return { token, expiresAt }
      })

    /** The session a token opened, while it lasts. */
    const find = (token: string): Effect.Effect<Option.Option<DashboardSession>, SqlError> =>
      Effect.gen(function* () {
        if (!TOKEN.test(token)) return Option.none()
        const now = yield* Clock.currentTimeMillis
        const rows = yield* sql<{
          id: string
          account_id: string
          email: string
          plan: Plan
          expires_at: number | string
        }>`SELECT u.id, u.account_id, u.email, a.plan, s.expires_at
          FROM dashboard_sessions s JOIN dashboard_users u ON u.id = s.user_id JOIN accounts a ON a.id = u.account_id
          WHERE s.token_hash = ${tokenHash(token)} AND s.expires_at > ${now}`
        const row = rows[0]
        if (row === undefined) return Option.none()
        return Option.some({
          user: { id: row.id, accountId: row.account_id, email: row.email },
          plan: row.plan,
          expiresAt: Number(row.expires_at)
        })
      })

    /** Ends a session (signing out); nothing when it is not open. */
    const close = (token: string) =>
      TOKEN.test(token)
        ? Effect.asVoid(sql`DELETE FROM dashboard_sessions WHERE token_hash = ${tokenHash(token)}`)
        : Effect.void

    /** The CSRF token of a session: what its mutations present in `x-csrf-token`. */
    const csrfOf = (token: string) =>
      Effect.map(csrfKey, (key) => createHmac("sha256", key).update(token, "utf8").digest("base64url"))

    /** Whether `presented` is the session's CSRF token (constant time). */
    const csrfMatches = (token: string, presented: string | undefined) =>
      Effect.map(csrfOf(token), (expected) => {
        const a = Buffer.from(expected)
        const b = Buffer.from(presented ?? "")
        return a.length === b.length && timingSafeEqual(a, b)
      })

    return { open, find, close, csrfOf, csrfMatches } as const
  })
}) {}
