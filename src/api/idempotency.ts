/**
 * `Idempotency-Key` on POSTs under /v2: the first request with a key runs and
 * its response (any status below 500) is kept for 24 hours; a retry with the
 * same key and the same request gets that response again (with
 * `Idempotent-Replayed: true`) instead of creating a second resource. The
 * same key with a different request is 422 `idempotency_key_reused`; a retry
 * while the first is still running is 409 `idempotency_key_in_progress`.
 * Keys are scoped to the API key that sent them (stored as a hash, never the
 * key itself); a 5xx frees the key for a retry.
 *
 * Nothing is looked up before the request is authenticated and counted
 * against its key's rate limit (`makeAuthenticate`, whose outcome the
 * Authentication middleware then takes as its own): a revoked key, or an
 * account without a plan, gets its 401/402 and never a stored answer; a replay
 * counts against the limit and carries the `X-RateLimit-*` headers. Only the
 * API-key routes under /v2 take part (the unauthenticated sandbox does not).
 */

import { createHash } from "node:crypto"
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { SqlClient, type SqlError } from "@effect/sql"
import { Clock, Effect, Exit } from "effect"
import type { AuthenticatedKey } from "../accounts/Accounts.js"
import { type AuthenticationFailure, preAuthenticated } from "./middleware/Authentication.js"
import { authenticatedByKey } from "./requestMiddleware.js"

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600
const KEY = /^[\x21-\x7e]{1,255}$/

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

const problem = (status: number, code: string, message: string) =>
  HttpServerResponse.unsafeJson({ error: { code, message, request_id: "" } }, { status })

export const idempotency = <E, R>(
  app: HttpApp.Default<E, R>,
  /** `makeAuthenticate` (middleware/Authentication.ts) */
  authenticate: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<AuthenticatedKey, AuthenticationFailure>
): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest | SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const key = request.headers["idempotency-key"]
    const path = request.url.split("?")[0]
    if (request.method !== "POST" || key === undefined || !authenticatedByKey(request.method, path)) return yield* app
    // authenticated (and counted) first; the endpoint's middleware answers a failure as usual
    const outcome = yield* Effect.exit(authenticate(request))
    const served = Effect.locally(app, preAuthenticated, outcome)
    if (Exit.isFailure(outcome)) return yield* served
    if (!KEY.test(key)) {
      return problem(400, "bad_request", "Idempotency-Key must be 1 to 255 printable ASCII characters")
    }
    // a valid key's own header: the scope is that one API key (so one account), never another's
    const authorization = request.headers.authorization!
    // every body that reaches this far is JSON (other media types are refused first, see bodyGuard.ts)
    const sql = yield* SqlClient.SqlClient
    const scope = sha256(authorization)
    const body = yield* Effect.orElseSucceed(request.text, () => "")
    const fingerprint = sha256(`${request.method} ${request.url}\n${body}`)
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)

    const claim = Effect.gen(function* () {
      yield* sql`DELETE FROM idempotency_keys WHERE scope = ${scope} AND key = ${key}
        AND created_at < ${now - IDEMPOTENCY_TTL_SECONDS}`
      const inserted = yield* sql<{ key: string }>`INSERT INTO idempotency_keys (scope, key, fingerprint, created_at)
        VALUES (${scope}, ${key}, ${fingerprint}, ${now}) ON CONFLICT (scope, key) DO NOTHING RETURNING key`
      if (inserted.length > 0) return undefined
      const rows = yield* sql<{
        fingerprint: string
        status: number | null
        content_type: string | null
        body: string | null
      }>`
        SELECT fingerprint, status, content_type, body FROM idempotency_keys WHERE scope = ${scope} AND key = ${key}`
      const row = rows[0]
      if (row === undefined)
        return problem(409, "idempotency_key_in_progress", "retry: the first request with this key just ended")
      if (row.fingerprint !== fingerprint) {
        return problem(422, "idempotency_key_reused", "this Idempotency-Key was used with a different request")
      }
      if (row.status === null) {
        return problem(409, "idempotency_key_in_progress", "a request with this Idempotency-Key is still running")
      }
      return HttpServerResponse.text(row.body ?? "", {
        status: row.status,
        contentType: row.content_type ?? "application/json",
        headers: { "idempotent-replayed": "true" }
      })
    })

    const early = yield* claim.pipe(
      Effect.catchTag("SqlError", () =>
        Effect.succeed(
          problem(503, "service_unavailable", "the database is unavailable; retry shortly").pipe(
            HttpServerResponse.setHeader("retry-after", "5")
          )
        )
      )
    )
    if (early !== undefined) return early

    const release = sql`DELETE FROM idempotency_keys WHERE scope = ${scope} AND key = ${key}`.pipe(Effect.ignore)
    const response = yield* served.pipe(Effect.onError(() => release))
    const stored: Effect.Effect<unknown, SqlError.SqlError> =
      response.status < 500 && response.body._tag === "Uint8Array"
        ? sql`UPDATE idempotency_keys SET status = ${response.status}, content_type = ${response.body.contentType},
            body = ${new TextDecoder().decode(response.body.body)} WHERE scope = ${scope} AND key = ${key}`
        : release
    yield* Effect.ignore(stored)
    return response
  })
