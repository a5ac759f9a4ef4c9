/**
 * Dashboard sessions (issue 18, item 2): a signed-in browser holds a random token (256 bits) in an
 * `HttpOnly`, `SameSite=Strict` cookie; the store keeps only its SHA-256 hash, with the user and an
 * expiry `SESSION_TTL_MS` after sign-in (on the Effect Clock). A mutation also presents the
 * session's CSRF token, an HMAC of the session token under a secret shared by every instance
 * (`service_secrets`): derived, never stored, compared in constant time.
 *
 * Each session has an API key of its own, which the dashboard's calls to `/v2` carry (through
 * `/dashboard/v2/…`, `src/api/dashboard/proxy.ts`): derived from the session token under another
 * shared secret, so it is never stored in clear nor handed to the page; the store keeps its hash
 * like any key's. Signing out revokes it, as does the next sign-in of the user after the session
 * expired (an expired session's key is refused anyway: only the proxy can derive it, and the proxy
 * reads the session first).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Effect, Option } from "effect"
import { sharedSecret } from "../store/serviceSecrets.js"
import { Accounts } from "./Accounts.js"
import { base62Of } from "./apiKeys.js"
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
    const accounts = yield* Accounts
    const secrets = new Map<string, Buffer>()
    const secretOf = (name: string) =>
      Effect.suspend(() => {
        const held = secrets.get(name)
        if (held !== undefined) return Effect.succeed(held)
        return Effect.map(Effect.provideService(sharedSecret(name), SqlClient.SqlClient, sql), (s) => {
          secrets.set(name, s)
          return s
        })
      })
    const csrfKey = secretOf("dashboard_csrf")

    /** the session's own API key: derived from its token, never stored in clear */
    const keyOf = (token: string) =>
      Effect.map(
        secretOf("dashboard_session_key"),
        (secret) => `vigil_live_${base62Of(createHmac("sha256", secret).update(token, "utf8").digest())}`
      )

    /**
     * A new session of `user` with its own API key (the user's expired sessions are dropped, their
     * keys revoked): the token for the cookie.
     */
    const open = (user: { readonly id: string; readonly accountId: string }) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const token = `vds_${randomBytes(32).toString("base64url")}`
        const expiresAt = now + SESSION_TTL_MS
        const expired = yield* sql<{ token_hash: Uint8Array }>`DELETE FROM dashboard_sessions
          WHERE user_id = ${user.id} AND expires_at <= ${now} RETURNING token_hash`
        yield* accounts.revokeSessionKeys(expired.map((r) => Buffer.from(r.token_hash)))
        yield* sql`INSERT INTO dashboard_sessions ${sql.insert({
          token_hash: tokenHash(token),
          user_id: user.id,
          created_at: now,
          expires_at: expiresAt
        })}`
        yield* accounts.insertSessionKey(user.accountId, yield* keyOf(token), tokenHash(token))
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

    return { open, find, close, csrfOf, csrfMatches, keyOf } as const
  })
}) {}
