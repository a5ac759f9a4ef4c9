/**
 * Errors are data: one `Schema.TaggedError` class per error code — the codes
 * of the spec's error table that Vigil sends, and Vigil's own (`forbidden`,
 * `service_unavailable`, `payload_too_large`, …) — each carrying its code and
 * HTTP status, a message that names the problem, and optional details
 * (`errors`, `disallowed`, `max_history_days`, `retry_after`, …).
 *
 * A new error is one class here. An endpoint declares the errors it can
 * return by class (`.pipe(withErrors(NotFound, InvalidQuery))` in its
 * `Api.ts`; errors every endpoint of a group returns, on the group); handlers
 * fail with instances and never build bodies: `wire(Class)` is the class on
 * the wire, the spec's envelope built by `envelope.ts` (the one place it is
 * built) with the request's id, annotated with the status — the same schema
 * gives the OpenAPI document one component per code and lets the typed client
 * decode errors back into classes.
 */
import { type HttpApiEndpoint, type HttpApiGroup, HttpApiSchema, HttpServerResponse } from "@effect/platform"
import type { HttpMethod } from "@effect/platform/HttpMethod"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, FiberRef, ParseResult, Schema } from "effect"
import { CurrentRequestId, envelopeBody, refusalBody } from "./envelope.js"

const Details = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const Fields = { message: Schema.String, details: Schema.optional(Details) }

/** What the wire and the OpenAPI document know of an error class. */
export interface ErrorSpec {
  /** the spec's `code` */
  readonly code: string
  readonly status: number
  /** the OpenAPI description of the code */
  readonly description: string
  /**
   * the body's shape: the spec's envelope `{error: {code, message, ...}}` (the default), or its
   * delete-refusal variant `{error: <code>, message, ...fields}` whose fields beside `message` are
   * the class's own
   */
  readonly form?: "envelope" | "refusal"
}

/**
 * The base of an error class: `class X extends ApiError<X>()("X", {code, status, description}) {}`;
 * its instances carry `code` (the class's), `message` and optional `details`.
 */
const ApiError =
  <Self>() =>
  <Tag extends string>(tag: Tag, spec: ErrorSpec) => {
    const Tagged = Schema.TaggedError<Self>()(tag, Fields) as unknown as Schema.TaggedErrorClass<
      Self,
      Tag,
      { readonly _tag: Schema.tag<Tag> } & typeof Fields
    >
    class Base extends Tagged {
      static readonly spec: ErrorSpec = spec
      readonly code: string = spec.code
    }
    return Base
  }

// 400

export class BadRequest extends ApiError<BadRequest>()("BadRequest", {
  code: "bad_request",
  status: 400,
  description: "Malformed request: a missing parameter, a bad format or a value out of range"
}) {}
export class InvalidQuery extends ApiError<InvalidQuery>()("InvalidQuery", {
  code: "invalid_query",
  status: 400,
  description: "`q` fails to parse, names an unknown column, or uses a disallowed feature; `errors` lists why"
}) {}
export class CompileFailed extends ApiError<CompileFailed>()("CompileFailed", {
  code: "compile_failed",
  status: 400,
  description: "An expression (a custom signal's `expr`, a scan `q`) fails to compile; `errors` lists why"
}) {}
export class RecursionDepthExceeded extends ApiError<RecursionDepthExceeded>()("RecursionDepthExceeded", {
  code: "recursion_depth_exceeded",
  status: 400,
  description: "Custom signals inline deeper than 5 levels (or in a cycle)"
}) {}
export class SignalNotAvailableAtInterval extends ApiError<SignalNotAvailableAtInterval>()(
  "SignalNotAvailableAtInterval",
  {
    code: "signal_not_available_at_interval",
    status: 400,
    description: "A daily-only signal asked at `1h`/`1m`"
  }
) {}
export class HistoryWindowExceeded extends ApiError<HistoryWindowExceeded>()("HistoryWindowExceeded", {
  code: "history_window_exceeded",
  status: 400,
  description:
    "A date earlier than the data or the plan's window; `max_history_days` and `earliest_allowed_from` say the limit"
}) {}
export class UnknownTickers extends ApiError<UnknownTickers>()("UnknownTickers", {
  code: "unknown_tickers",
  status: 400,
  description: "Untracked symbols in a universe; `disallowed` lists them"
}) {}
export class NotSupportedForCustomSignal extends ApiError<NotSupportedForCustomSignal>()(
  "NotSupportedForCustomSignal",
  {
    code: "not_supported_for_custom_signal",
    status: 400,
    description: "The endpoint does not take a custom signal"
  }
) {}
export class TickerNotInMinuteTier extends ApiError<TickerNotInMinuteTier>()("TickerNotInMinuteTier", {
  code: "ticker_not_in_minute_tier",
  status: 400,
  description: "Minute bars are kept for the minute tier of tickers only"
}) {}

// 401, 402

export class Unauthenticated extends ApiError<Unauthenticated>()("Unauthenticated", {
  code: "unauthenticated",
  status: 401,
  description: "Missing, malformed or revoked key"
}) {}
export class SubscriptionRequired extends ApiError<SubscriptionRequired>()("SubscriptionRequired", {
  code: "subscription_required",
  status: 402,
  description: "The account has no active plan"
}) {}

// 403

export class Forbidden extends ApiError<Forbidden>()("Forbidden", {
  code: "forbidden",
  status: 403,
  description: "Not allowed on this resource (a system universe cannot be changed)"
}) {}
export class WebhookTierRequired extends ApiError<WebhookTierRequired>()("WebhookTierRequired", {
  code: "webhook_tier_required",
  status: 403,
  description: "The plan has no webhooks"
}) {}
export class WebhookLimitReached extends ApiError<WebhookLimitReached>()("WebhookLimitReached", {
  code: "webhook_limit_reached",
  status: 403,
  description: "The plan's webhook cap is reached"
}) {}
export class ResourceLimitReached extends ApiError<ResourceLimitReached>()("ResourceLimitReached", {
  code: "resource_limit_reached",
  status: 403,
  description: "The plan's cap on a resource is reached"
}) {}
export class CustomSignalsTierRequired extends ApiError<CustomSignalsTierRequired>()("CustomSignalsTierRequired", {
  code: "custom_signals_tier_required",
  status: 403,
  description: "Custom signals (creating, changing, deleting or consuming one) need Pro or above"
}) {}

export class NewsArchiveTierRequired extends ApiError<NewsArchiveTierRequired>()("NewsArchiveTierRequired", {
  code: "news_archive_tier_required",
  status: 403,
  description: "News older than the plan's window needs a plan with the archive"
}) {}

// 404

export class NotFound extends ApiError<NotFound>()("NotFound", {
  code: "not_found",
  status: 404,
  description: "Not found or not accessible to this account"
}) {}
export class UnknownSignal extends ApiError<UnknownSignal>()("UnknownSignal", {
  code: "unknown_signal",
  status: 404,
  description: "The signal name is not a column"
}) {}
export class UniverseNotFound extends ApiError<UniverseNotFound>()("UniverseNotFound", {
  code: "universe_not_found",
  status: 404,
  description: "The `universe` slug is neither a system universe nor one of the account's"
}) {}

// 409

export class AlreadyExists extends ApiError<AlreadyExists>()("AlreadyExists", {
  code: "already_exists",
  status: 409,
  description: "The account already has a custom signal of this name"
}) {}
export class NameCollision extends ApiError<NameCollision>()("NameCollision", {
  code: "name_collision",
  status: 409,
  description: "A custom signal's name is a built-in column"
}) {}
export class SlugTaken extends ApiError<SlugTaken>()("SlugTaken", {
  code: "slug_taken",
  status: 409,
  description: "The universe id is taken (by the account, or by a system universe)"
}) {}
export class EmailTaken extends ApiError<EmailTaken>()("EmailTaken", {
  code: "email_taken",
  status: 409,
  description: "A dashboard user with this email exists"
}) {}
export class DeliveryNotFailed extends ApiError<DeliveryNotFailed>()("DeliveryNotFailed", {
  code: "delivery_not_failed",
  status: 409,
  description: "Only a delivery in permanent_failure can be sent again"
}) {}
export class IdempotencyKeyInProgress extends ApiError<IdempotencyKeyInProgress>()("IdempotencyKeyInProgress", {
  code: "idempotency_key_in_progress",
  status: 409,
  description: "A request with this Idempotency-Key is still running"
}) {}

/**
 * The spec's delete-refusal variant: `error` is the code string, `message`
 * and `referencing_signals` sit at the top level beside `request_id`.
 */
export class SignalReferenced extends Schema.TaggedError<SignalReferenced>()("SignalReferenced", {
  message: Schema.String,
  referencing_signals: Schema.Array(Schema.String)
}) {
  static readonly spec: ErrorSpec = {
    code: "signal_referenced",
    status: 409,
    description: "Delete refused: other custom signals of the account reference this one (pass force=true)",
    form: "refusal"
  }
  readonly code: string = "signal_referenced"
}

// the request policy's answers, and the server's

export class RequestTimeout extends ApiError<RequestTimeout>()("RequestTimeout", {
  code: "request_timeout",
  status: 408,
  description: "The request did not arrive in time (its headers within 10 s, the whole request within 30 s)"
}) {}
export class PayloadTooLarge extends ApiError<PayloadTooLarge>()("PayloadTooLarge", {
  code: "payload_too_large",
  status: 413,
  description: "Request body over 1 MB"
}) {}
export class UnsupportedMediaType extends ApiError<UnsupportedMediaType>()("UnsupportedMediaType", {
  code: "unsupported_media_type",
  status: 415,
  description: "A request body in a media type other than JSON (`application/json`, or a `+json` type)"
}) {}
export class IdempotencyKeyReused extends ApiError<IdempotencyKeyReused>()("IdempotencyKeyReused", {
  code: "idempotency_key_reused",
  status: 422,
  description: "This Idempotency-Key was used with a different request"
}) {}
export class SignInLocked extends ApiError<SignInLocked>()("SignInLocked", {
  code: "sign_in_locked",
  status: 429,
  description: "Too many wrong passwords for this email: sign-in is locked until the time given; see Retry-After"
}) {}
export class RateLimited extends ApiError<RateLimited>()("RateLimited", {
  code: "rate_limited",
  status: 429,
  description: "Per-minute limit exceeded; see Retry-After"
}) {}
export class RequestHeaderTooLarge extends ApiError<RequestHeaderTooLarge>()("RequestHeaderTooLarge", {
  code: "request_header_too_large",
  status: 431,
  description: "The request headers exceed 16 KB"
}) {}
export class Internal extends ApiError<Internal>()("Internal", {
  code: "internal",
  status: 500,
  description: "Server fault; retry with exponential backoff"
}) {}
export class ChannelNotImplemented extends ApiError<ChannelNotImplemented>()("ChannelNotImplemented", {
  code: "channel_not_implemented",
  status: 501,
  description: "The channel is reserved and not available"
}) {}
export class ServiceUnavailable extends ApiError<ServiceUnavailable>()("ServiceUnavailable", {
  code: "service_unavailable",
  status: 503,
  description: "Temporarily unavailable; see Retry-After"
}) {}

/** An error class of this module. */
export interface ApiErrorClass {
  readonly spec: ErrorSpec
  new (...args: ReadonlyArray<any>): { readonly _tag: string; readonly message: string }
}

type Envelope = { readonly error: { readonly code: string; readonly message: string; readonly request_id: string } }
type Refusal = { readonly error: string; readonly message: string; readonly request_id: string }

const envelopeSchema = (code: string) =>
  Schema.Struct({
    error: Schema.Struct(
      { code: Schema.Literal(code), message: Schema.String, request_id: Schema.String },
      Schema.Record({ key: Schema.String, value: Schema.Unknown })
    )
  })

/** The delete-refusal form of a class: `{error: <code>, message, ...the class's own fields, request_id}`. */
const refusalSchema = (cls: ApiErrorClass & Schema.Schema.Any, code: string) => {
  const { _tag, message, ...own } = (cls as unknown as { readonly fields: Schema.Struct.Fields }).fields
  return Schema.Struct({ error: Schema.Literal(code), message: Schema.String, ...own, request_id: Schema.String })
}

const wireOf = (cls: ApiErrorClass & Schema.Schema.Any): Schema.Schema.Any => {
  const { code, status, description, form } = cls.spec
  const annotations = { ...HttpApiSchema.annotations({ status }), description }
  const type = Schema.typeSchema(cls) as Schema.Schema<any>
  if (form === "refusal") {
    return Schema.transformOrFail(refusalSchema(cls, code), type, {
      strict: false,
      decode: ({ error: _code, request_id: _id, ...fields }) => ParseResult.succeed(new cls(fields)),
      encode: ({
        _tag,
        code: _code,
        message,
        ...fields
      }: {
        readonly [k: string]: unknown
        readonly message: string
      }) => Effect.map(FiberRef.get(CurrentRequestId), (requestId) => refusalBody(code, message, requestId, fields))
    }).annotations(annotations)
  }
  return Schema.transformOrFail(envelopeSchema(code), type, {
    strict: false,
    decode: (wire) => {
      const { request_id: _id, code: _code, message, ...details } = wire.error
      return ParseResult.succeed(
        new cls(Object.keys(details).length > 0 ? { message, details } : { message }) as Schema.Schema.Type<any>
      )
    },
    encode: (e: { readonly message: string; readonly details?: Record<string, unknown> }) =>
      Effect.map(FiberRef.get(CurrentRequestId), (requestId) => envelopeBody(code, e.message, requestId, e.details))
  }).annotations(annotations)
}

const wires = new WeakMap<object, Schema.Schema.Any>()

/** An error class on the wire: the spec's envelope with this request's id, annotated with the class's status. */
export const wire = <C extends ApiErrorClass & Schema.Schema.Any>(
  cls: C
): Schema.Schema<InstanceType<C>, Envelope | Refusal> => {
  let schema = wires.get(cls)
  if (schema === undefined) {
    schema = wireOf(cls)
    wires.set(cls, schema)
  }
  return schema as any
}

/** Declares the errors an endpoint can return, by class: `endpoint.pipe(withErrors(NotFound, InvalidQuery))`. */
export const withErrors =
  <const Classes extends ReadonlyArray<ApiErrorClass & Schema.Schema.Any>>(...classes: Classes) =>
  <Name extends string, Method extends HttpMethod, Path, UrlParams, Payload, Headers, Success, E, R, RE>(
    endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, Method, Path, UrlParams, Payload, Headers, Success, E, R, RE>
  ): HttpApiEndpoint.HttpApiEndpoint<
    Name,
    Method,
    Path,
    UrlParams,
    Payload,
    Headers,
    Success,
    E | InstanceType<Classes[number]>,
    R,
    RE
  > =>
    classes.reduce((e: any, cls) => e.addError(wire(cls)), endpoint)

/** An error of this module. */
export type ApiErrorInstance = {
  readonly _tag: string
  readonly code: string
  readonly message: string
  readonly details?: Readonly<Record<string, unknown>> | undefined
}

/** The HTTP status of an error. */
export const statusOf = (error: ApiErrorInstance): number => (error.constructor as ApiErrorClass).spec.status

/**
 * An error as the response to the request `requestId`, for the answers given
 * outside the API's handlers (the request policy, idempotency); a numeric
 * `retry_after` detail is also the `Retry-After` header.
 */
export const errorResponse = (
  error: ApiErrorInstance,
  requestId: string,
  headers?: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse => {
  return HttpServerResponse.unsafeJson(envelopeBody(error.code, error.message, requestId, error.details), {
    status: statusOf(error),
    headers: { ...headers, ...retryAfterHeader(error.details) }
  })
}

/** The `Retry-After` header of a numeric `retry_after` detail (whole seconds, at least 1). */
export const retryAfterHeader = (details: unknown): Record<string, string> => {
  const seconds = (details as { readonly retry_after?: unknown } | undefined)?.retry_after
  return typeof seconds === "number" ? { "retry-after": String(Math.max(1, Math.ceil(seconds))) } : {}
}

/** Declares the errors every endpoint of a group can return: `HttpApiGroup.make("x").pipe(groupErrors(NotFound))`. */
export const groupErrors =
  <const Classes extends ReadonlyArray<ApiErrorClass & Schema.Schema.Any>>(...classes: Classes) =>
  <Id extends string, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any, E, R, TopLevel extends true | false>(
    group: HttpApiGroup.HttpApiGroup<Id, Endpoints, E, R, TopLevel>
  ): HttpApiGroup.HttpApiGroup<Id, Endpoints, E | InstanceType<Classes[number]>, R, TopLevel> =>
    classes.reduce((g: any, cls) => g.addError(wire(cls)), group)

/** The errors of an expression compiled for an account: it does not compile, or consumes a custom signal below Pro. */
export const COMPILE_ERRORS = [InvalidQuery, CompileFailed, RecursionDepthExceeded, CustomSignalsTierRequired] as const

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
