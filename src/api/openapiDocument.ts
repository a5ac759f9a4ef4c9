/**
 * Corrections to the OpenAPI document Effect generates from `VigilApi`, so
 * that it says what the service sends and validates as OpenAPI 3.1 / JSON
 * Schema 2020-12 (checked by `test/api/openapi.test.ts`).
 */

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

/** The whole document (an `OpenApi.Transform` for the API). */
export const tidyOpenApi = (spec: Record<string, any>): Record<string, any> => {
  const out = tidy(spec) as Record<string, any>
  const schemas = out.components?.schemas as Record<string, unknown> | undefined
  if (schemas !== undefined) {
    // the decode error's schemas, now unreferenced
    for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) {
      if (!JSON.stringify(out).includes(`"#/components/schemas/${name}"`)) delete schemas[name]
    }
  }
  return out
}
