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
import { Clock, Context, Effect, Exit, FiberRef, Layer } from "effect"
import type { AuthenticatedKey } from "../accounts/Accounts.js"
import { makeGroupCommit } from "../store/groupCommit.js"
import { textList } from "../store/textList.js"
import { CurrentRequestId, withRequestId } from "./envelope.js"
import {
  BadRequest,
  errorResponse,
  IdempotencyKeyInProgress,
  IdempotencyKeyReused,
  ServiceUnavailable
} from "./errors.js"
import { IDEMPOTENCY_KEY } from "./headerPatterns.js"
import { type AuthenticationFailure, preAuthenticated } from "./middleware/Authentication.js"
import { authenticatedByKey } from "./requestMiddleware.js"

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/** The scope of a key: the API key that sent it (its `Authorization` header, hashed), never another's. */
export const idempotencyScope = (authorization: string): string => sha256(authorization)

/** What a retry must repeat to be the same request: method, URL and body. */
export const idempotencyFingerprint = (method: string, url: string, body: string): string =>
  sha256(`${method} ${url}\n${body}`)

export interface Claim {
  readonly scope: string
  readonly key: string
  readonly fingerprint: string
  /** epoch seconds */
  readonly now: number
}

/** What a claim found: the key is this request's now, or the stored row of an earlier request, or none (it just left). */
export type Claimed =
  | { readonly _tag: "Claimed" }
  | {
      readonly _tag: "Existing"
      readonly fingerprint: string
      readonly status: number | null
      readonly contentType: string | null
      readonly body: string | null
    }
  | { readonly _tag: "Missing" }

export interface Stored {
  readonly scope: string
  readonly key: string
  readonly status: number
  readonly contentType: string
  readonly body: string
}

/**
 * The stored answer of an earlier request with the same key, replayed: an error body carries
 * this request's id (the spec: every error names the request it answers; the request middleware
 * adds a 429/503's Retry-After as for any answer), a success body is sent exactly as stored.
 */
const replay = (status: number, body: string, contentType: string, requestId: string) => {
  const headers = { "idempotent-replayed": "true" }
  const stamped = status >= 400 ? withRequestId(body, requestId) : undefined
  return stamped === undefined
    ? HttpServerResponse.text(body, { status, contentType, headers })
    : HttpServerResponse.unsafeJson(stamped, { status, headers })
}

/** At most this many claims (or stored answers) share one statement. */
const GROUP = 256

/**
 * The key store, grouped (src/store/groupCommit.ts): the claims waiting at the same time are made
 * by one statement, and so are the answers stored and the keys released, so concurrent POSTs with
 * keys share a round trip instead of taking three each.
 */
const makeKeyStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  /**
   * Each key is taken when free or expired (the row replaced), else its row is read as it was;
   * a key twice in the group: the later ones find the first's claim (running).
   */
  const claim = yield* makeGroupCommit(
    (group: ReadonlyArray<Claim>) =>
      Effect.gen(function* () {
        const first = new Map<string, number>()
        const unique: Array<Claim> = []
        const slot = group.map((c) => {
          const id = `${c.scope}\u0000${c.key}`
          let at = first.get(id)
          if (at === undefined) {
            at = unique.length
            first.set(id, at)
            unique.push(c)
            return { at, repeat: false }
          }
          return { at, repeat: true }
        })
        const rows = yield* sql<{
          n: number | string
          claimed: boolean
          fingerprint: string | null
          status: number | null
          content_type: string | null
          body: string | null
        }>`WITH input AS (
          SELECT * FROM unnest(${unique.map((c) => c.scope)}::text[], ${unique.map((c) => c.key)}::text[],
            ${unique.map((c) => c.fingerprint)}::text[], ${unique.map((c) => c.now)}::bigint[])
            WITH ORDINALITY AS i(scope, key, fingerprint, created_at, n)),
        taken AS (
          INSERT INTO idempotency_keys (scope, key, fingerprint, created_at)
          SELECT scope, key, fingerprint, created_at FROM input ORDER BY n
          ON CONFLICT (scope, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, created_at = EXCLUDED.created_at,
            status = NULL, content_type = NULL, body = NULL
            WHERE idempotency_keys.created_at < EXCLUDED.created_at - ${IDEMPOTENCY_TTL_SECONDS}
          RETURNING scope, key)
        SELECT i.n, t.key IS NOT NULL AS claimed, k.fingerprint, k.status, k.content_type, k.body
        FROM input i
          LEFT JOIN taken t ON t.scope = i.scope AND t.key = i.key
          LEFT JOIN idempotency_keys k ON k.scope = i.scope AND k.key = i.key
        ORDER BY i.n`
        const found = rows.map(
          (r): Claimed =>
            r.claimed
              ? { _tag: "Claimed" }
              : r.fingerprint === null
                ? { _tag: "Missing" }
                : {
                    _tag: "Existing",
                    fingerprint: r.fingerprint,
                    status: r.status,
                    contentType: r.content_type,
                    body: r.body
                  }
        )
        return group.map((_, i): Claimed => {
          const { at, repeat } = slot[i]!
          const mine = found[at]!
          if (!repeat) return mine
          // the first of the group holds the key now (or holds what it found)
          return mine._tag === "Claimed"
            ? { _tag: "Existing", fingerprint: unique[at]!.fingerprint, status: null, contentType: null, body: null }
            : mine
        })
      }),
    GROUP
  )
  const store = yield* makeGroupCommit(
    (group: ReadonlyArray<Stored>) =>
      Effect.as(
        sql`UPDATE idempotency_keys k SET status = i.status, content_type = i.content_type, body = i.body
          FROM unnest(${group.map((g) => g.scope)}::text[], ${group.map((g) => g.key)}::text[],
            ${group.map((g) => g.status)}::int[], ${group.map((g) => g.contentType)}::text[],
            ${textList(
              sql,
              group.map((g) => g.body)
            )}) AS i(scope, key, status, content_type, body)
          WHERE k.scope = i.scope AND k.key = i.key`,
        group.map(() => undefined)
      ),
    GROUP
  )
  const release = yield* makeGroupCommit(
    (group: ReadonlyArray<{ readonly scope: string; readonly key: string }>) =>
      Effect.as(
        sql`DELETE FROM idempotency_keys k
          USING unnest(${group.map((g) => g.scope)}::text[], ${group.map((g) => g.key)}::text[]) AS i(scope, key)
          WHERE k.scope = i.scope AND k.key = i.key`,
        group.map(() => undefined)
      ),
    GROUP
  )
  return { claim, store, release } as const
})

export type KeyStore = Effect.Effect.Success<typeof makeKeyStore>

/**
 * The key store, one per service: the middleware and the direct create (direct/create.ts) claim,
 * store and release keys through it, so their claims share statements.
 */
export class IdempotencyKeys extends Context.Tag("vigil/api/IdempotencyKeys")<IdempotencyKeys, KeyStore>() {
  static readonly Live = Layer.scoped(IdempotencyKeys, makeKeyStore)
}

/** The middleware, over the service's key store. */
export const makeIdempotency = Effect.map(
  IdempotencyKeys,
  (keys) =>
    <E, R>(
      app: HttpApp.Default<E, R>,
      /** `makeAuthenticate` (middleware/Authentication.ts) */
      authenticate: (
        request: HttpServerRequest.HttpServerRequest
      ) => Effect.Effect<AuthenticatedKey, AuthenticationFailure>
    ): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const key = request.headers["idempotency-key"]
        const path = request.url.split("?")[0]
        if (request.method !== "POST" || key === undefined || !authenticatedByKey(request.method, path)) {
          return yield* app
        }
        // authenticated (and counted) first; the endpoint's middleware answers a failure as usual
        const outcome = yield* Effect.exit(authenticate(request))
        const requestId = yield* FiberRef.get(CurrentRequestId)
        const served = Effect.locally(app, preAuthenticated, outcome)
        if (Exit.isFailure(outcome)) return yield* served
        if (!IDEMPOTENCY_KEY.test(key)) {
          return errorResponse(
            new BadRequest({ message: "Idempotency-Key must be 1 to 255 printable ASCII characters" }),
            requestId
          )
        }
        // a valid key's own header: the scope is that one API key (so one account), never another's
        const authorization = request.headers.authorization!
        // every body that reaches this far is JSON (other media types are refused first, see bodyGuard.ts)
        const scope = idempotencyScope(authorization)
        const body = yield* Effect.orElseSucceed(request.text, () => "")
        const fingerprint = idempotencyFingerprint(request.method, request.url, body)
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)

        const early = yield* keys.claim({ scope, key, fingerprint, now }).pipe(
          Effect.map((found) => {
            if (found._tag === "Claimed") return undefined
            if (found._tag === "Missing") {
              return errorResponse(
                new IdempotencyKeyInProgress({ message: "retry: the first request with this key just ended" }),
                requestId
              )
            }
            if (found.fingerprint !== fingerprint) {
              return errorResponse(
                new IdempotencyKeyReused({ message: "this Idempotency-Key was used with a different request" }),
                requestId
              )
            }
            if (found.status === null) {
              return errorResponse(
                new IdempotencyKeyInProgress({ message: "a request with this Idempotency-Key is still running" }),
                requestId
              )
            }
            return replay(found.status, found.body ?? "", found.contentType ?? "application/json", requestId)
          }),
          Effect.catchTag("SqlError", () =>
            Effect.succeed(
              errorResponse(
                new ServiceUnavailable({ message: "the database is unavailable; retry shortly" }),
                requestId,
                {
                  "retry-after": "5"
                }
              )
            )
          )
        )
        if (early !== undefined) return early

        const release = keys.release({ scope, key }).pipe(Effect.ignore)
        const response = yield* served.pipe(Effect.onError(() => release))
        const stored: Effect.Effect<unknown, SqlError.SqlError> =
          response.status < 500 && response.body._tag === "Uint8Array"
            ? keys.store({
                scope,
                key,
                status: response.status,
                contentType: response.body.contentType,
                body: new TextDecoder().decode(response.body.body)
              })
            : release
        yield* Effect.ignore(stored)
        return response
      })
)
