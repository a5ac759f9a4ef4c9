/**
 * The direct create: `POST /v2/webhooks` answered before the HttpApi router
 * (lane.ts), by the service functions its handler runs, in one fiber. Through
 * the API a create paid ~0.9 ms of the event loop for the router, the
 * middlewares' fibers and context copies and the schema round trips, more than
 * the create's own work (docs/benchmarks.md, "Issue 13: the direct create").
 *
 * The request is the API's until the direct create owns it; before that,
 * anything unusual goes on to the API untouched, nothing done and nothing
 * counted: a body the endpoint's schema refuses, any check of the create that
 * fails (`prepareCreate` of Subscriptions.ts: the plan, `q` or `rule_id`, universe,
 * delivery settings, firing options — the API answers each error as always),
 * an `Idempotency-Key` that is malformed or already taken (the API replays, or
 * answers 409/422), a refusal by the rate limiter (the API counts it and
 * answers the 429). In the middleware's order — the check of the key's claim
 * before the count — a replay is counted once, by the API.
 *
 * Once the key (if any) is claimed and the request counted, the direct create
 * owns it: `commitCreate` stores the webhook under the plan's
 * cap, and the answer — 201 with the endpoint's success schema, or the error's
 * envelope (the 403 of a full plan, the 503 of a database that failed) — is
 * kept for the key (a status under 500) or the key released, as the
 * middleware does (idempotency.ts).
 */
import { Effect, Either, Schema } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import type { Decision } from "../../ratelimit/RateLimiter.js"
import { RateLimiter } from "../../ratelimit/RateLimiter.js"
import { envelopeBody } from "../envelope.js"
import { type ApiErrorInstance, retryAfterHeader, statusOf } from "../errors.js"
import { IDEMPOTENCY_KEY } from "../headerPatterns.js"
import { IdempotencyKeys, idempotencyFingerprint, idempotencyScope } from "../idempotency.js"
import { rateLimitOf } from "../requestPolicy.js"
import { CreateWebhook, WebhookDoc } from "../webhooks/Api.js"
import { commitCreate, prepareCreate, type SubscriptionNeeds } from "../webhooks/Subscriptions.js"
import { jsonBodyOf } from "./answers.js"

/** What the direct create did: pass the request on to the API (nothing done), or answer it. */
export type CreateOutcome =
  | { readonly _tag: "PassOn" }
  | {
      readonly _tag: "Answer"
      readonly status: number
      readonly body: string
      readonly headers: Readonly<Record<string, string>>
      readonly decision: Decision
    }

/** A create as the lane hands it over. */
export interface CreateRequest {
  readonly key: AuthenticatedKey
  /** the `Authorization` header (an Idempotency-Key's scope) */
  readonly authorization: string
  readonly url: string
  readonly body: string
  readonly idempotencyKey: string | undefined
  readonly requestId: string
}

const PASS_ON: CreateOutcome = { _tag: "PassOn" }

const encodeDoc = Schema.encodeSync(WebhookDoc)

/** The body of `POST /v2/webhooks` as the endpoint decodes it, or undefined when the API must answer. */
const payloadOf = jsonBodyOf(Schema.decodeUnknownEither(CreateWebhook))

/** An error's answer as the API writes it: its status, the envelope, `Retry-After` from `retry_after`. */
export const errorAnswer = (error: ApiErrorInstance, requestId: string) => ({
  status: statusOf(error),
  body: JSON.stringify(envelopeBody(error.code, error.message, requestId, error.details)),
  headers: retryAfterHeader(error.details)
})

export const makeDirectCreate = Effect.gen(function* () {
  const keys = yield* IdempotencyKeys
  const limiter = yield* RateLimiter

  /** run by a runtime that holds the webhook rules' services (lane.ts): no context to add per create */
  return (request: CreateRequest): Effect.Effect<CreateOutcome, never, SubscriptionNeeds> =>
    Effect.gen(function* () {
      const { key, requestId } = request
      const payload = payloadOf(request.body)
      if (payload === undefined) return PASS_ON
      const prepared = yield* Effect.either(prepareCreate(key, payload))
      if (Either.isLeft(prepared)) return PASS_ON

      let claim: { readonly scope: string; readonly key: string } | undefined
      if (request.idempotencyKey !== undefined) {
        if (!IDEMPOTENCY_KEY.test(request.idempotencyKey)) return PASS_ON
        const scope = idempotencyScope(request.authorization)
        const fingerprint = idempotencyFingerprint("POST", request.url, request.body)
        const now = Math.floor((yield* Effect.clockWith((c) => c.currentTimeMillis)) / 1000)
        const found = yield* Effect.either(keys.claim({ scope, key: request.idempotencyKey, fingerprint, now }))
        // taken (a replay, a request still running or another request), or the database failed: the API's
        if (Either.isLeft(found) || found.right._tag !== "Claimed") return PASS_ON
        claim = { scope, key: request.idempotencyKey }
      }
      const release = claim === undefined ? Effect.void : Effect.ignore(keys.release(claim))

      return yield* Effect.gen(function* () {
        const decision = yield* limiter.check(...rateLimitOf(key, "general"))
        if (!decision.allowed) {
          yield* release
          return PASS_ON
        }
        const created = yield* Effect.either(commitCreate(key, prepared.right))
        const answer = Either.isRight(created)
          ? { status: 201, body: JSON.stringify(encodeDoc(created.right)), headers: {} }
          : errorAnswer(created.left, requestId)
        if (claim !== undefined) {
          yield* answer.status < 500
            ? Effect.ignore(
                keys.store({ ...claim, status: answer.status, contentType: "application/json", body: answer.body })
              )
            : release
        }
        return { _tag: "Answer", ...answer, decision } satisfies CreateOutcome
        // interrupted by the lane's deadline, or a defect: the key is free for a retry (the middleware's rule)
      }).pipe(Effect.onError(() => release))
    })
})
