/**
 * Two properties of a request no endpoint accepts, checked once for all of
 * them before decoding: JSON nested deeper than any payload needs (decoding
 * and error formatting recurse per level, so 10,000 levels overflowed the
 * stack and answered 500), and NUL characters, which PostgreSQL cannot store
 * in text (a NUL in an id, a name or a query answered 500 on the way to the
 * database).
 */
import { HttpMethod, type HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"

/** `application/json`, or a structured `+json` type (`application/merge-patch+json`), parameters allowed. */
const JSON_TYPE = /^application\/([a-z0-9.!#$&^_-]+\+)?json\s*(;|$)/

/**
 * What a request's declared media type means for it, the spec sending every
 * body as JSON: `undefined` when it is JSON (or not given: read as JSON),
 * `"no-body"` when the request has no body at all, so the type is dropped
 * (`curl -X POST -d ''` labels nothing as a form: an empty multipart body left
 * the multipart decoder waiting forever), or `"refuse"`: a body in any other
 * type is answered 415 before an endpoint tries to decode it. `"as-json"`: a
 * structured `+json` type, relabelled `application/json` for the decoders.
 */
export const mediaTypeVerdict = (
  method: string,
  headers: Readonly<Record<string, string | undefined>>
): "refuse" | "no-body" | "as-json" | undefined => {
  if (!HttpMethod.hasBody(method as HttpMethod.HttpMethod)) return undefined
  const type = headers["content-type"]?.trim().toLowerCase()
  if (type === undefined || type === "") return undefined
  // the endpoint decoders read JSON only when the type names `application/json`
  if (JSON_TYPE.test(type)) return type.includes("application/json") ? undefined : "as-json"
  const length = headers["content-length"]?.trim()
  const empty = headers["transfer-encoding"] === undefined && (length === undefined || length === "0")
  return empty ? "no-body" : "refuse"
}

/** Deepest nesting of arrays and objects a JSON body may have (payloads use three levels). */
export const MAX_JSON_DEPTH = 64

/** Why a JSON text is refused (too deep, or a string holding NUL), in one linear pass; undefined when fine. */
export const jsonHazard = (text: string): string | undefined => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) {
        if (text.charCodeAt(i + 1) === 0x75 && text.startsWith("0000", i + 2)) {
          return "strings must not contain the NUL character (\\u0000)"
        }
        i++
      } else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return undefined
}

/**
 * Why a request is refused before its endpoint runs, if it is: a NUL (`%00`)
 * in its URL, or a JSON body (the one media type accepted, see
 * `mediaTypeVerdict`) that `jsonHazard` refuses. Reads the body (cached for the
 * endpoint).
 */
export const requestHazard = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<string | undefined, unknown> => {
  if (request.url.includes("%00")) return Effect.succeed("the URL must not contain the NUL character (%00)")
  if (!HttpMethod.hasBody(request.method)) return Effect.succeed(undefined)
  // every other media type was refused or dropped by `mediaTypeVerdict`
  return Effect.map(request.text, jsonHazard)
}
