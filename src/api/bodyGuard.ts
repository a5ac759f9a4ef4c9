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
 * in its URL or its form body, or a JSON body (the default when no content
 * type is given) that `jsonHazard` refuses. Reads the body (cached for the
 * endpoint).
 */
export const requestHazard = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<string | undefined, unknown> => {
  if (request.url.includes("%00")) return Effect.succeed("the URL must not contain the NUL character (%00)")
  if (!HttpMethod.hasBody(request.method)) return Effect.succeed(undefined)
  // the same choice of body decoding as HttpApiBuilder's
  const type = request.headers["content-type"]?.toLowerCase() ?? "application/json"
  if (type.includes("application/json")) return Effect.map(request.text, jsonHazard)
  if (!type.includes("multipart/form-data") && type.includes("x-www-form-urlencoded")) {
    return Effect.map(request.text, (text) =>
      /%00/.test(text) ? "the form body must not contain the NUL character (%00)" : undefined
    )
  }
  return Effect.succeed(undefined)
}
