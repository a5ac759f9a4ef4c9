/**
 * Corrections to the OpenAPI document Effect generates from `VigilApi`, so
 * that it says what the service sends and validates as OpenAPI 3.1 / JSON
 * Schema 2020-12 (checked by `test/api/openapi.test.ts`).
 */

import { IDEMPOTENCY_KEY, REQUEST_ID } from "./headerPatterns.js"

const DECODE_ERROR = "#/components/schemas/HttpApiDecodeError"
const BAD_REQUEST = "#/components/schemas/BadRequest"

/**
 * Effect marks every `Schema.Unknown` (and `Any`, `Void`, …) with the same
 * `$id` (`/schemas/unknown`); in JSON Schema 2020-12 an `$id` declares a
 * resource, so one `$id` at a dozen places makes validators refuse the
 * document. The marker constrains nothing: drop it. And every request that
 * fails to decode is answered with the 400 envelope (the request middleware
 * rewrites Effect's `HttpApiDecodeError`), so a `$ref` to that body, which is
 * never sent, becomes one to the envelope.
 */
const tidy = (node: unknown): unknown => {
  if (Array.isArray(node)) {
    const items = node.map(tidy)
    // `anyOf: [decode error, envelope]` is now the envelope twice: keep one
    const seen = new Set<string>()
    return items.filter((item) => {
      const key = JSON.stringify(item)
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
  }
  if (node === null || typeof node !== "object") return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "$id" && typeof value === "string" && value.startsWith("/schemas/")) continue
    out[key] = key === "$ref" && value === DECODE_ERROR ? BAD_REQUEST : tidy(value)
  }
  const anyOf = out.anyOf
  if (Array.isArray(anyOf) && anyOf.length === 1 && Object.keys(out).length === 1) return anyOf[0]
  return out
}

/** POSTs under /v2 behind an API key honour `Idempotency-Key` (src/api/idempotency.ts); the keyless sandbox does not. */
const idempotent = (method: string, path: string) =>
  method === "post" && path.startsWith("/v2/") && !path.startsWith("/v2/sandbox/")

/**
 * The answers of the request policy, which run before any endpoint (the
 * server's parser, the request middleware, idempotency): `VigilApi` declares
 * each once for every operation (`addError`); this keeps each only where it
 * can happen (the component schema's name, and whether it applies to a
 * method, lower-case, and a path template). Those not named here (408 and 431
 * from the HTTP parser, 500) can happen everywhere.
 */
const POLICY_ERRORS: Readonly<Record<string, (method: string, path: string) => boolean>> = {
  // a Content-Length over 1 MB, whatever the method; the streamed bars import takes any size
  PayloadTooLarge: (_method, path) => path !== "/admin/import",
  // a body in another media type than JSON: only methods that carry a body (not the import, which takes CSV)
  UnsupportedMediaType: (method, path) => !["get", "head", "options"].includes(method) && path !== "/admin/import",
  IdempotencyKeyInProgress: idempotent,
  IdempotencyKeyReused: idempotent
}

const refName = (schema: any): string | undefined =>
  typeof schema?.$ref === "string" ? schema.$ref.replace("#/components/schemas/", "") : undefined

/** Drops the policy's answers from the operations where they cannot happen; names all a response's bodies. */
const placePolicyErrors = (doc: Record<string, any>) => {
  const schemas = doc.components?.schemas ?? {}
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
        const media = response.content?.["application/json"]
        if (media === undefined) continue
        const members: Array<any> = media.schema.anyOf ?? [media.schema]
        const policy = members.filter((m) => POLICY_ERRORS[refName(m) ?? ""] !== undefined)
        if (policy.length === 0) continue
        // the endpoint's own bodies first, then the policy's that apply here
        const kept = [
          ...members.filter((m) => !policy.includes(m)),
          ...policy.filter((m) => POLICY_ERRORS[refName(m)!]!(method, path))
        ]
        if (kept.length === 0) {
          delete op.responses[status]
          continue
        }
        media.schema = kept.length === 1 ? kept[0] : { anyOf: kept }
        const descriptions = kept.map((m) => schemas[refName(m) ?? ""]?.description).filter((d) => d !== undefined)
        if (descriptions.length === kept.length) response.description = [...new Set(descriptions)].join("; or: ")
      }
    }
  }
}

interface HeaderDoc {
  readonly description: string
  readonly schema: Record<string, unknown>
}

const integer = (description: string, minimum = 0): HeaderDoc => ({ description, schema: { type: "integer", minimum } })

/** Response headers, by name (the schemas and meanings of src/api/requestMiddleware.ts, src/ratelimit). */
const HEADERS: Readonly<Record<string, HeaderDoc>> = {
  "X-Request-Id": {
    description: "This request's id (the one sent, when it was 1–64 of `A-Za-z0-9._:-`), as in an error's `request_id`",
    schema: { type: "string", pattern: REQUEST_ID.source }
  },
  "X-RateLimit-Limit": integer("The per-minute limit applied to this request (rolling 60 s)"),
  "X-RateLimit-Remaining": integer("Requests that would be admitted right now"),
  "X-RateLimit-Reset": integer("Seconds until the window is fully reset (Remaining back to the limit)"),
  "Retry-After": integer("Seconds to wait before retrying", 1),
  "Idempotent-Replayed": {
    description: "`true` when this is the stored answer to an earlier request with the same Idempotency-Key",
    schema: { type: "string", enum: ["true"] }
  }
}

const RATE_LIMIT = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]

/**
 * Which headers a response declares (`true`: always sent, `false`: may be
 * sent), for an operation (method lower-case, path template) and status.
 * Every response carries `X-Request-Id`; a `/v2` operation that declares 429 is
 * rate limited, and its successes and 429s carry the `X-RateLimit-*` headers
 * (the dashboard's sign-in declares 429 for its lockout, which is no rate limit)
 * (a replay by idempotency too: it answers after authentication and the limiter);
 * `Retry-After` on 429, and on most 503s.
 */
const headersOf = (method: string, path: string, status: number, op: any): Record<string, boolean> => {
  const out: Record<string, boolean> = { "X-Request-Id": true }
  const limited = op.responses?.["429"] !== undefined && path.startsWith("/v2/")
  if (limited && (status < 300 || status === 429)) {
    for (const name of RATE_LIMIT) out[name] = true
  }
  if (status === 429) out["Retry-After"] = true
  if (status === 503) out["Retry-After"] = false
  if (idempotent(method, path) && status < 500) out["Idempotent-Replayed"] = false
  return out
}

/** The request header of idempotency on the operations that honour it. */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes a retry safe: the first answer (below 500) to a request with this key is kept 24 hours and replayed " +
    "to a retry with the same key and request (`Idempotent-Replayed: true`); the same key with another request " +
    "is 422 `idempotency_key_reused`, one still running 409 `idempotency_key_in_progress`. Scoped to the API key.",
  schema: { type: "string", pattern: IDEMPOTENCY_KEY.source }
}

/** Declares the headers above on every operation: always-sent ones as shared components, the others inline. */
const declareHeaders = (doc: Record<string, any>) => {
  const shared: Record<string, unknown> = {}
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (idempotent(method, path)) op.parameters = [...(op.parameters ?? []), IDEMPOTENCY_KEY_PARAMETER]
      for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
        const headers: Record<string, unknown> = {}
        for (const [name, always] of Object.entries(headersOf(method, path, Number(status), op))) {
          if (always) shared[name] = { ...HEADERS[name], required: true }
          headers[name] = always ? { $ref: `#/components/headers/${name}` } : { ...HEADERS[name], required: false }
        }
        response.headers = { ...response.headers, ...headers }
      }
    }
  }
  doc.components = { ...doc.components, headers: shared }
}

/** The whole document (an `OpenApi.Transform` for the API). */
export const tidyOpenApi = (spec: Record<string, any>): Record<string, any> => {
  const out = tidy(spec) as Record<string, any>
  placePolicyErrors(out)
  declareHeaders(out)
  const schemas = out.components?.schemas as Record<string, unknown> | undefined
  if (schemas !== undefined) {
    // the decode error's schemas, now unreferenced
    for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) {
      if (!JSON.stringify(out).includes(`"#/components/schemas/${name}"`)) delete schemas[name]
    }
  }
  return out
}
