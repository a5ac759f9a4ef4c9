/**
 * Errors are data: one `Schema.TaggedError` class per HTTP status, each
 * carrying the spec's error `code` (defaulted per class: `bad_request`,
 * `not_found`, …, or a specific one such as `invalid_query`,
 * `universe_not_found`, `webhook_limit_reached`), a message that names the
 * problem, and optional details (`errors`, `disallowed`, `max_history_days`,
 * `retry_after`, …).
 *
 * On the wire every one is the spec's envelope
 * `{ "error": { "code", "message", "request_id", ...details } }`, by a schema
 * transformation annotated with the status; handlers fail with typed errors
 * and never build envelopes, and the same schemas give the OpenAPI document
 * and let the typed client decode errors back into classes.
 *
 * `request_id` is encoded empty here and filled in by the request middleware
 * (which knows the request id) on the way out; a numeric `retry_after` detail
 * also becomes the `Retry-After` header there.
 */
import { HttpApiSchema } from "@effect/platform"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, ParseResult, Schema } from "effect"

const Details = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const fields = (defaultCode: string) => ({
  code: Schema.optionalWith(Schema.String, { default: () => defaultCode }),
  message: Schema.String,
  details: Schema.optional(Details)
})

export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", fields("bad_request")) {}
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()(
  "Unauthenticated",
  fields("unauthenticated")
) {}
export class SubscriptionRequired extends Schema.TaggedError<SubscriptionRequired>()(
  "SubscriptionRequired",
  fields("subscription_required")
) {}
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", fields("forbidden")) {}
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", fields("not_found")) {}
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", fields("conflict")) {}
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  fields("payload_too_large")
) {}
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()("RequestTimeout", fields("request_timeout")) {}
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  fields("unsupported_media_type")
) {}
export class RequestHeaderTooLarge extends Schema.TaggedError<RequestHeaderTooLarge>()(
  "RequestHeaderTooLarge",
  fields("request_header_too_large")
) {}
export class IdempotencyKeyInProgress extends Schema.TaggedError<IdempotencyKeyInProgress>()(
  "IdempotencyKeyInProgress",
  fields("idempotency_key_in_progress")
) {}
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()(
  "IdempotencyKeyReused",
  fields("idempotency_key_reused")
) {}
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", fields("rate_limited")) {}
export class NotImplemented extends Schema.TaggedError<NotImplemented>()("NotImplemented", fields("not_implemented")) {}
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  fields("service_unavailable")
) {}
export class Internal extends Schema.TaggedError<Internal>()("Internal", fields("internal")) {}

/** The envelope; with `code`, only that code (so a client tells apart errors sharing a status, e.g. 409s). */
const wire = (code?: string) =>
  Schema.Struct({
    error: Schema.Struct(
      {
        code: code === undefined ? Schema.String : Schema.Literal(code),
        message: Schema.String,
        request_id: Schema.String
      },
      Schema.Record({ key: Schema.String, value: Schema.Unknown })
    )
  })
const Wire = wire()

/** Puts a tagged error class on the wire in the envelope, with its HTTP status. */
const envelope = <A extends { readonly _tag: string; readonly message: string }, I>(
  cls: Schema.Schema<A, I, never>,
  tag: A["_tag"],
  status: number,
  description: string,
  /** the one code this class is sent with (by the request policy, not a handler) */
  code?: string
) =>
  Schema.transformOrFail(code === undefined ? Wire : wire(code), Schema.typeSchema(cls), {
    strict: false,
    decode: (wire) => {
      const { request_id: _id, code, message, ...details } = wire.error
      return ParseResult.decodeUnknown(cls)({
        _tag: tag,
        code,
        message,
        ...(Object.keys(details).length > 0 ? { details } : {})
      }) as Effect.Effect<A, ParseResult.ParseIssue>
    },
    encode: (value) =>
      Effect.map(ParseResult.encodeUnknown(cls)(value) as Effect.Effect<any, ParseResult.ParseIssue>, (encoded) => ({
        error: {
          code: encoded.code as string,
          message: encoded.message as string,
          ...(encoded.details ?? {}),
          request_id: ""
        }
      }))
  }).annotations({ ...HttpApiSchema.annotations({ status }), description })

export const BadRequestError = envelope(
  BadRequest,
  "BadRequest",
  400,
  "Bad request (bad_request, invalid_query, compile_failed, …)"
)
export const UnauthenticatedError = envelope(
  Unauthenticated,
  "Unauthenticated",
  401,
  "Missing, malformed or revoked key"
)
export const SubscriptionRequiredError = envelope(
  SubscriptionRequired,
  "SubscriptionRequired",
  402,
  "The account has no active plan"
)
export const ForbiddenError = envelope(
  Forbidden,
  "Forbidden",
  403,
  "Outside the plan (…_tier_required, …_limit_reached)"
)
export const NotFoundError = envelope(NotFound, "NotFound", 404, "Not found or not accessible to this account")
export const ConflictError = envelope(Conflict, "Conflict", 409, "Conflicts with an existing resource")
export const PayloadTooLargeError = envelope(
  PayloadTooLarge,
  "PayloadTooLarge",
  413,
  "Request body over 1 MB",
  "payload_too_large"
)
export const RequestTimeoutError = envelope(
  RequestTimeout,
  "RequestTimeout",
  408,
  "The request did not arrive in time (its headers within 10 s, the whole request within 30 s)",
  "request_timeout"
)
export const UnsupportedMediaTypeError = envelope(
  UnsupportedMediaType,
  "UnsupportedMediaType",
  415,
  "A request body in a media type other than JSON (`application/json`, or a `+json` type)",
  "unsupported_media_type"
)
export const RequestHeaderTooLargeError = envelope(
  RequestHeaderTooLarge,
  "RequestHeaderTooLarge",
  431,
  "The request headers exceed 16 KB",
  "request_header_too_large"
)
export const IdempotencyKeyInProgressError = envelope(
  IdempotencyKeyInProgress,
  "IdempotencyKeyInProgress",
  409,
  "A request with this Idempotency-Key is still running",
  "idempotency_key_in_progress"
)
export const IdempotencyKeyReusedError = envelope(
  IdempotencyKeyReused,
  "IdempotencyKeyReused",
  422,
  "This Idempotency-Key was used with a different request",
  "idempotency_key_reused"
)
export const RateLimitedError = envelope(RateLimited, "RateLimited", 429, "Per-minute limit exceeded; see Retry-After")
export const NotImplementedError = envelope(NotImplemented, "NotImplemented", 501, "Reserved and not available")
export const ServiceUnavailableError = envelope(
  ServiceUnavailable,
  "ServiceUnavailable",
  503,
  "Temporarily unavailable; see Retry-After"
)
export const InternalError = envelope(Internal, "Internal", 500, "Server fault; retry with exponential backoff")

/** The error every handler may fail with when the database cannot answer. */
export const unavailable = (message = "the database is unavailable; retry shortly") =>
  new ServiceUnavailable({ message, details: { retry_after: 5 } })

const isSqlError = (e: unknown): e is SqlError =>
  typeof e === "object" && e !== null && (e as { readonly _tag?: unknown })._tag === "SqlError"

/**
 * A store fault (`SqlError`: the database cannot answer) as the 503 every endpoint answers it
 * with (`unavailable`); every other failure passes through. The one mapping of store faults.
 */
export const orUnavailable = <A, E, R>(
  effect: Effect.Effect<A, E | SqlError, R>
): Effect.Effect<A, Exclude<E, SqlError> | ServiceUnavailable, R> =>
  Effect.catchIf(effect, isSqlError, () => Effect.fail(unavailable())) as Effect.Effect<
    A,
    Exclude<E, SqlError> | ServiceUnavailable,
    R
  >
