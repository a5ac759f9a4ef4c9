/**
 * The outermost HTTP middleware: request ids, one structured log line per
 * request, HTTP metrics by route, and the error envelope on every 4xx/5xx.
 *
 * Handlers fail with typed errors that already encode to the envelope; this
 * fills in `request_id`, sets `Retry-After` from `error.retry_after`, and turns
 * whatever else failed (an unknown route, a request that did not decode, a
 * defect) into the same envelope, so no response escapes without it.
 */

import {
  Headers,
  HttpApi,
  type HttpApp,
  HttpIncomingMessage,
  HttpMethod,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { Cause, Clock, Duration, Effect, Option, SchemaAST } from "effect"
import { VigilApi } from "./Api.js"
import { answerWithin } from "./answerWithin.js"
import { mediaTypeVerdict, requestHazard } from "./bodyGuard.js"
import { pathSource } from "./direct/routes.js"
import { CurrentRequestId, envelopeResponse } from "./envelope.js"
import {
  BadRequest,
  errorResponse,
  Internal,
  NotFound,
  PayloadTooLarge,
  retryAfterHeader,
  ServiceUnavailable,
  UnsupportedMediaType
} from "./errors.js"
import { logMillis, logsRequest, recordRequest, requestIdOf } from "./requestPolicy.js"

/** Largest request body accepted (the streamed admin import excepted). */
export const MAX_BODY_BYTES = 1_048_576

/** Longest a /v2 request is worked on before it is answered 503 (the admin API waits as long as its work takes). */
export const REQUEST_DEADLINE = Duration.seconds(20)

interface RoutePattern {
  readonly method: string
  readonly label: string
  readonly regex: RegExp
  readonly static: boolean
  /** the query parameters the endpoint declares; undefined when its schema does not list them (any are passed on) */
  readonly query: ReadonlySet<string> | undefined
  /** behind an authentication middleware (API key or admin token), which checks the query parameters itself */
  readonly authenticated: boolean
}

/**
 * The query parameter names an endpoint declares: those of its URL parameters
 * and, for a method without a body, of its payload (read from the query
 * string), by their names on the wire; undefined when a schema is not a plain
 * struct (an index signature, a union), whose names it cannot list.
 */
export const declaredQuery = (endpoint: {
  readonly method: HttpMethod.HttpMethod
  readonly urlParamsSchema: Option.Option<{ readonly ast: SchemaAST.AST }>
  readonly payloadSchema: Option.Option<{ readonly ast: SchemaAST.AST }>
}): ReadonlySet<string> | undefined => {
  const names = new Set<string>()
  const schemas = [endpoint.urlParamsSchema]
  if (!HttpMethod.hasBody(endpoint.method)) schemas.push(endpoint.payloadSchema)
  for (const schema of schemas) {
    if (Option.isNone(schema)) continue
    const ast = SchemaAST.encodedAST(schema.value.ast)
    if (ast._tag !== "TypeLiteral" || ast.indexSignatures.length > 0) return undefined
    for (const property of ast.propertySignatures) names.add(String(property.name))
  }
  return names
}

/** The tags of the middlewares that authenticate a caller (Authentication.ts, AdminAuth.ts). */
const AUTHENTICATING: ReadonlySet<string> = new Set(["vigil/Authentication", "vigil/AdminAuth"])

/** Route patterns from the API definition, for low-cardinality metric labels and the query check. */
const routePatterns: ReadonlyArray<RoutePattern> = (() => {
  const out: Array<RoutePattern> = []
  HttpApi.reflect(VigilApi as any, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, middleware }) => {
      out.push({
        method: endpoint.method,
        label: endpoint.path,
        regex: new RegExp(`^${pathSource(endpoint.path)}/?$`),
        static: !endpoint.path.includes(":"),
        query: declaredQuery(endpoint),
        authenticated: [...middleware].some((tag) => AUTHENTICATING.has(tag.key))
      })
    }
  })
  // static routes first, so /v2/universes/system beats /v2/universes/:id
  return out.sort((a, b) => Number(b.static) - Number(a.static))
})()

const routeOf = (method: string, path: string) => routePatterns.find((r) => r.method === method && r.regex.test(path))

/** Whether the route of a request is behind the API-key authentication middleware (Authentication.ts). */
export const authenticatedByKey = (method: string, path: string): boolean => {
  const route = routeOf(method, path)
  return route?.authenticated === true && route.label.startsWith("/v2/")
}

export const routeLabel = (method: string, path: string): string => {
  // the dashboard's calls to /v2 (dashboard/proxy.ts): labelled by the /v2 route they reach
  if (path.startsWith("/dashboard/v2/")) return `/dashboard${routeLabel(method, path.slice("/dashboard".length))}`
  for (const r of routePatterns) if (r.method === method && r.regex.test(path)) return r.label
  for (const r of routePatterns) if (r.regex.test(path)) return r.label
  return "unmatched"
}

/**
 * The query parameters of a request that its endpoint does not declare (the
 * API promises they are 400, never silently ignored): checked here for every
 * endpoint from its declared schemas, so no handler needs a check and a typed
 * client call needs no empty `urlParams`. On a route behind authentication
 * the authentication middleware checks them, after the caller is known (one
 * without a valid key or token is 401, whatever its query string);
 * `unauthenticatedOnly` leaves those routes out.
 */
export const unknownQueryParams = (method: string, url: string, unauthenticatedOnly = false): ReadonlyArray<string> => {
  const start = url.indexOf("?")
  if (start < 0) return []
  const route = routeOf(method, url.slice(0, start))
  if (route?.query === undefined || (unauthenticatedOnly && route.authenticated)) return []
  const declared = route.query
  return [...new Set(new URLSearchParams(url.slice(start + 1)).keys())].filter((name) => !declared.has(name))
}

/** The message of the 400 for unknown query parameters, naming (some of) them. */
export const unknownQueryMessage = (unknown: ReadonlyArray<string>) =>
  `unknown query parameter(s): ${unknown
    .slice(0, 5)
    .map((name) => JSON.stringify(name.slice(0, 60)))
    .join(", ")}`

const decodeMessage = (body: any): string => {
  const issues: ReadonlyArray<any> = Array.isArray(body?.issues) ? body.issues : []
  if (issues.length === 0) return typeof body?.message === "string" ? body.message : "the request did not decode"
  // one message per path: a union of literals reads "expected one of a, b, c"
  const byPath = new Map<string, Array<string>>()
  for (const i of issues) {
    const where = Array.isArray(i.path) && i.path.length > 0 ? i.path.join(".") : "request"
    const list = byPath.get(where) ?? []
    list.push(String(i.message).split("\n")[0])
    byPath.set(where, list)
  }
  return [...byPath.entries()]
    .slice(0, 5)
    .map(([where, messages]) => {
      const literals = messages.map((m) => /^Expected (".*"|\d+|true|false), actual (.*)$/.exec(m))
      if (messages.length > 1 && literals.every((l) => l !== null)) {
        return `${where}: expected one of ${literals.map((l) => l![1]).join(", ")}; got ${literals[0]![2]}`
      }
      // the whole body is not an object: say so, not the schema's type
      const whole = where === "request" ? /^Expected \{.*\}, actual (.*)$/.exec(messages[0]!) : null
      if (whole !== null) {
        return whole[1] === "null" || whole[1] === "undefined"
          ? "the request body is missing: send a JSON object with Content-Type: application/json"
          : `the request body must be a JSON object, not ${whole[1]!.slice(0, 60)}`
      }
      return `${where}: ${messages[0]}`
    })
    .join("; ")
}

const statusCode: Record<number, string> = {
  400: "bad_request",
  401: "unauthenticated",
  402: "subscription_required",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
  503: "service_unavailable"
}

/** Statuses whose typed errors may carry a `retry_after` detail, sent also as the `Retry-After` header. */
const RETRY_AFTER_STATUSES = new Set([429, 503])

const jsonOf = (response: HttpServerResponse.HttpServerResponse): any => {
  if (response.body._tag !== "Uint8Array") return undefined
  try {
    return JSON.parse(new TextDecoder().decode(response.body.body))
  } catch {
    return undefined
  }
}

/**
 * Ensures a response with status >= 400 carries the envelope with this request's id. A typed
 * error's body already does (errors.ts encodes it with `CurrentRequestId`; a replayed answer is
 * stamped in idempotency.ts), so only three kinds are read here: a 429/503 whose `retry_after`
 * becomes the `Retry-After` header, a 400 from a request that did not decode, and a response
 * without a body (an unknown route, a defect), which gets the envelope by its status.
 */
const normalizeError = (
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
  method: string,
  path: string
): HttpServerResponse.HttpServerResponse => {
  const keepHeaders = (): Record<string, string> => {
    const { "content-type": _type, "content-length": _length, ...rest } = response.headers
    return rest
  }
  if (response.body._tag === "Uint8Array") {
    if (RETRY_AFTER_STATUSES.has(response.status)) {
      const retryAfter = retryAfterHeader(jsonOf(response)?.error)
      return Object.keys(retryAfter).length === 0 ? response : HttpServerResponse.setHeaders(response, retryAfter)
    }
    if (response.status !== 400) return response
    const parsed = jsonOf(response)
    if (parsed?._tag !== "HttpApiDecodeError") return response
    return errorResponse(new BadRequest({ message: decodeMessage(parsed) }), requestId, keepHeaders())
  }
  if (response.status === 404) {
    return errorResponse(new NotFound({ message: `no route ${method} ${path}` }), requestId, keepHeaders())
  }
  const code = statusCode[response.status] ?? (response.status >= 500 ? "internal" : "bad_request")
  const message =
    response.status >= 500 ? "internal error; retry with exponential backoff" : `request failed (${response.status})`
  return envelopeResponse(response.status, code, message, requestId, keepHeaders())
}

export const requestMiddleware = <E, R>(
  app: HttpApp.Default<E, R>
): HttpApp.Default<never, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = requestIdOf(request.headers["x-request-id"])
    const started = yield* Clock.currentTimeNanos
    const path = request.url.split("?")[0]
    const method = request.method

    const finish = (response: HttpServerResponse.HttpServerResponse) =>
      Effect.gen(function* () {
        const final = (response.status >= 400 ? normalizeError(response, requestId, method, path) : response).pipe(
          HttpServerResponse.setHeader("x-request-id", requestId)
        )
        const elapsedNs = (yield* Clock.currentTimeNanos) - started
        const seconds = Number(elapsedNs) / 1e9
        const route = routeLabel(method, path)
        recordRequest(method, route, final.status, seconds)
        if (logsRequest(route)) {
          yield* Effect.logInfo("request").pipe(
            Effect.annotateLogs({
              request_id: requestId,
              method,
              path,
              route,
              status: final.status,
              duration_ms: logMillis(seconds)
            })
          )
        }
        return final
      })

    // bodies over 1 MB are refused (the streamed admin import excepted)
    const limited = path !== "/admin/import"
    const declared = Number(request.headers["content-length"] ?? "0")
    if (limited && declared > MAX_BODY_BYTES) {
      return yield* finish(
        errorResponse(new PayloadTooLarge({ message: `the request body is over ${MAX_BODY_BYTES} bytes` }), requestId)
      )
    }

    // bodies are JSON (the spec): another media type is refused, or dropped when there is no body (see bodyGuard.ts)
    const verdict = limited ? mediaTypeVerdict(method, request.headers) : undefined
    if (verdict === "refuse") {
      const type = request.headers["content-type"]!.split(";")[0]!.trim()
      return yield* finish(
        errorResponse(
          new UnsupportedMediaType({
            message: `request bodies are JSON: send Content-Type: application/json, not ${JSON.stringify(type.slice(0, 100))}`
          }),
          requestId
        )
      )
    }
    // routes behind authentication check them after it (Authentication.ts, AdminAuth.ts)
    const unknown = unknownQueryParams(method, request.url, true)
    if (unknown.length > 0)
      return yield* finish(errorResponse(new BadRequest({ message: unknownQueryMessage(unknown) }), requestId))
    // the same request object for the guard and the endpoint: it caches the body it read
    const relabelled =
      verdict === "no-body"
        ? request.modify({ headers: Headers.remove(request.headers, "content-type") })
        : verdict === "as-json"
          ? request.modify({ headers: Headers.set(request.headers, "content-type", "application/json") })
          : undefined
    const served =
      relabelled === undefined ? app : Effect.provideService(app, HttpServerRequest.HttpServerRequest, relabelled)
    // a NUL in the URL, or a JSON body nested too deep, is refused before any endpoint (see bodyGuard.ts)
    const guarded = limited
      ? Effect.flatMap(requestHazard(relabelled ?? request), (hazard) =>
          hazard === undefined ? served : Effect.succeed(errorResponse(new BadRequest({ message: hazard }), requestId))
        )
      : app
    // whatever a /v2 request waits for (a database that stopped answering mid-query, above all: the pool has
    // no query timeout), it is answered by the deadline; the interrupted query is cancelled, a transaction rolled
    // back — in the background (`disconnect`): cancelling a query on a frozen server can itself take seconds
    // (the dashboard's calls to /v2 too: /dashboard/v2/…)
    const deadlined =
      path.startsWith("/v2/") || path.startsWith("/dashboard/v2/")
        ? answerWithin(guarded, REQUEST_DEADLINE, () =>
            errorResponse(
              new ServiceUnavailable({
                message: `the request could not be answered within ${Duration.format(REQUEST_DEADLINE)}; retry later`
              }),
              requestId,
              { "retry-after": "5" }
            )
          )
        : guarded
    const response = yield* deadlined.pipe(
      limited ? HttpIncomingMessage.withMaxBodySize(Option.some(MAX_BODY_BYTES)) : (e) => e,
      Effect.catchAllCause((cause) => {
        const squashed: any = Cause.squash(cause)
        if (squashed?._tag === "RouteNotFound") {
          return Effect.succeed(errorResponse(new NotFound({ message: `no route ${method} ${path}` }), requestId))
        }
        if (
          squashed?._tag === "RequestError" &&
          /max|limit|too large|size/i.test(String(squashed.cause?.message ?? squashed.cause ?? ""))
        ) {
          return Effect.succeed(
            errorResponse(
              new PayloadTooLarge({ message: `the request body is over ${MAX_BODY_BYTES} bytes` }),
              requestId
            )
          )
        }
        if (squashed?._tag === "MultipartError" && squashed.reason !== "InternalError") {
          // no endpoint takes multipart bodies; one that does not parse, or is too big, is the client's error
          return Effect.succeed(
            squashed.reason === "Parse"
              ? errorResponse(
                  new BadRequest({ message: "the request body is not valid multipart/form-data" }),
                  requestId
                )
              : errorResponse(
                  new PayloadTooLarge({ message: `the multipart request body is too large (${squashed.reason})` }),
                  requestId
                )
          )
        }
        if (squashed?._tag === "RequestError") {
          const detail = squashed.cause instanceof SyntaxError ? `: ${squashed.cause.message}` : ""
          const message =
            squashed.reason === "Decode"
              ? `the request body is not valid JSON${detail}`
              : "the request body could not be read"
          return Effect.succeed(errorResponse(new BadRequest({ message }), requestId))
        }
        if (Cause.isInterruptedOnly(cause))
          return Effect.succeed(errorResponse(new ServiceUnavailable({ message: "request interrupted" }), requestId))
        return Effect.logError("unhandled failure", cause).pipe(
          Effect.as(
            errorResponse(new Internal({ message: "internal error; retry with exponential backoff" }), requestId)
          )
        )
      }),
      Effect.annotateLogs({ request_id: requestId }),
      // typed errors encode their envelope with it (errors.ts)
      Effect.locally(CurrentRequestId, requestId)
    )

    return yield* finish(response)
  })
