/**
 * The served OpenAPI document, read the way client generators and validators
 * read it: the interface spec's endpoint table (to compare against it), a lint
 * by an independent validator (Redocly's recommended rules), and validators of
 * response bodies against the JSON Schema (2020-12) the document declares for
 * an operation and status.
 */
import { createConfig, lintFromString } from "@redocly/openapi-core"
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js"

/** The interface spec's endpoint table (Endpoints → Summary), as the spec writes it. */
export const SPEC_ROUTES: ReadonlyArray<string> = [
  "POST /v2/scan",
  "GET /v2/scan",
  "GET /v2/tickers",
  "GET /v2/tickers/{ticker}",
  "GET /v2/tickers/{ticker}/history",
  "POST /v2/tickers/{ticker}/subscribe",
  "GET /v2/signals",
  "POST /v2/signals",
  "PATCH /v2/signals/{name}",
  "DELETE /v2/signals/{name}",
  "GET /v2/signals/{signal}",
  "GET /v2/signals/{signal}/{ticker}/history/{interval}",
  "POST /v2/signals/{signal}/subscribe",
  "GET /v2/universes",
  "POST /v2/universes",
  "GET /v2/universes/system",
  "GET /v2/universes/{id}",
  "PATCH /v2/universes/{id}",
  "GET /v2/webhooks/{id}",
  "POST /v2/webhooks/{id}/enable",
  "GET /v2/webhooks/{id}/deliveries"
]

/** The endpoints the spec references below its table without their parameters ("Also referenced by the interface"). */
export const SPEC_REFERENCED_ROUTES: ReadonlyArray<string> = [
  "POST /v2/webhooks/{id}/test",
  "GET /v2/webhooks",
  "POST /v2/webhooks",
  "POST /v2/webhooks/{id}/disable",
  "DELETE /v2/webhooks/{id}",
  "DELETE /v2/universes/{id}",
  "POST /v2/devices/register",
  "GET /v2/signals/{name}/{ticker}/events",
  "GET /v2/rules",
  "POST /v2/news/scan",
  "POST /v2/sandbox/news/scan",
  "GET /v2/signals/{name}/stats"
]

/**
 * A route with its path parameters unnamed (`GET /v2/signals/{}`): the spec
 * names the signal `{name}` on some rows and `{signal}` on others for the same
 * position, and OpenAPI treats templates that differ only in names as one path.
 */
export const routeShape = (route: string): string => route.replace(/\{[^}]*\}/g, "{}")

export interface LintProblem {
  readonly severity: string
  readonly rule: string
  readonly where: string
  readonly message: string
}

/** Redocly's lint of an OpenAPI document with its `recommended` rule set: every error and warning. */
export const lintOpenApi = async (doc: unknown): Promise<Array<LintProblem>> => {
  const config = await createConfig({ extends: ["recommended"] })
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "openapi.json", config })
  return problems.map((p) => ({
    severity: p.severity,
    rule: p.ruleId,
    where: p.location[0]?.pointer ?? "",
    message: p.message
  }))
}

/**
 * Validates response bodies against the document: `validate(op, status, body)`
 * with `op` as `GET /v2/signals/{signal}` gives the schema errors (none when
 * the body conforms), and throws when the document declares no JSON response
 * for that operation and status.
 */
export const responseValidator = (doc: any) => {
  const ajv = new Ajv2020({ strict: true, allErrors: true })
  // the document's components, as the `$defs` of each response schema (`$ref`s rewritten to point there)
  const defs = JSON.parse(JSON.stringify(doc.components?.schemas ?? {}).replaceAll("#/components/schemas/", "#/$defs/"))
  const compiled = new Map<string, ValidateFunction>()
  const schemaOf = (op: string, status: number) => {
    const [method, path] = op.split(" ") as [string, string]
    const operation = doc.paths?.[path]?.[method.toLowerCase()]
    if (operation === undefined) throw new Error(`the document has no operation ${op}`)
    const response = operation.responses?.[String(status)]
    if (response === undefined) {
      throw new Error(
        `${op} answered ${status}, which the document does not declare (it declares ${Object.keys(operation.responses).join(", ")})`
      )
    }
    const schema = response.content?.["application/json"]?.schema
    if (schema === undefined) throw new Error(`${op} ${status}: the document declares no application/json body`)
    return schema
  }
  return (op: string, status: number, body: unknown): Array<string> => {
    const key = `${op} ${status}`
    let validate = compiled.get(key)
    if (validate === undefined) {
      const schema = JSON.parse(JSON.stringify(schemaOf(op, status)).replaceAll("#/components/schemas/", "#/$defs/"))
      validate = ajv.compile({ ...schema, $defs: defs })
      compiled.set(key, validate)
    }
    if (validate(body)) return []
    return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`)
  }
}

/**
 * The response headers the document declares for an operation (`GET /v2/…`)
 * and status, by lower-case name: whether each is required (always sent).
 */
export const declaredHeaders = (doc: any, op: string, status: number): Record<string, boolean> => {
  const [method, path] = op.split(" ") as [string, string]
  const response = doc.paths?.[path]?.[method.toLowerCase()]?.responses?.[String(status)]
  const out: Record<string, boolean> = {}
  for (const [name, header] of Object.entries<any>(response?.headers ?? {})) {
    const resolved = typeof header.$ref === "string" ? doc.components?.headers?.[header.$ref.split("/").pop()!] : header
    out[name.toLowerCase()] = resolved?.required === true
  }
  return out
}
