/**
 * Vigil's MCP server (issue 19): the tools of tools.ts and two resources (the q language's
 * reference, the column catalog), served by either transport — `/mcp` on the service (http.ts)
 * or stdio (`vigil-mcp`, stdio.ts). A tool's arguments are checked with its Effect schema, then
 * the endpoint is called through the typed client with the caller's key, so every rule of `/v2`
 * applies (plan gates, rate limits, validation); the answer comes back as structured content with
 * a line of text, an API error as a tool error carrying its code, message and details (a query's
 * problems with their positions and suggestions).
 */
import { readFileSync } from "node:fs"
import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { McpServer, type StandardSchemaWithJSON } from "@modelcontextprotocol/server"
import { Cause, Effect, Either, JSONSchema, Option, ParseResult, Schema } from "effect"
import { VigilApi } from "../client.js"
import { VOCABULARY } from "../query/vocabulary.js"
import { TOOLS, type ToolInput, type ToolSpec, toolInput } from "./tools.js"

export const SERVER_INFO = { name: "vigil", version: "0.1.0" } as const

/** which tools a server offers: all, or (`MCP_TOOLS=read`) only those that change nothing */
export type ToolSet = "all" | "read"

/** what a tool call needs of its caller: the service and the key to call it with */
export interface Caller {
  readonly baseUrl: string
  readonly apiKey: string
  /** more headers on every call (`/mcp`'s mark of a request already counted) */
  readonly headers?: Readonly<Record<string, string>>
}

/** an Effect schema as the SDK takes one: Standard Schema validation and its JSON Schema */
const standard = (schema: Schema.Schema<any, any>): StandardSchemaWithJSON => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })
  const json = JSONSchema.make(schema) as unknown as Record<string, unknown>
  const { $schema: _, ...body } = json
  return {
    "~standard": {
      version: 1,
      vendor: "effect",
      validate: (value: unknown) => {
        const result = decode(value ?? {})
        return Either.isRight(result)
          ? { value: result.right }
          : {
              issues: ParseResult.ArrayFormatter.formatErrorSync(result.left).map((i) => ({
                message: i.message,
                path: i.path as Array<PropertyKey>
              }))
            }
      },
      jsonSchema: { input: () => body, output: () => body }
    }
  } as unknown as StandardSchemaWithJSON
}

const pick = (args: Record<string, unknown>, keys: ReadonlyArray<string>) =>
  Object.fromEntries(keys.filter((k) => args[k] !== undefined).map((k) => [k, args[k]]))

interface Failure {
  readonly code: string
  readonly message: string
  readonly [detail: string]: unknown
}

/** an API error (the typed client's classes) or a transport fault, as the tool error's content */
const failureOf = (error: unknown): Failure => {
  const e = error as { code?: unknown; message?: unknown; details?: Record<string, unknown>; _tag?: string }
  if (typeof e?.code === "string" && typeof e.message === "string") {
    return { ...(e.details ?? {}), code: e.code, message: e.message }
  }
  if (e?._tag === "RequestError")
    return { code: "unreachable", message: `the Vigil service cannot be reached: ${String(e.message)}` }
  return { code: "internal", message: e?.message === undefined ? String(error) : String(e.message) }
}

const problemsText = (failure: Failure) => {
  const errors = Array.isArray(failure.errors) ? (failure.errors as ReadonlyArray<Record<string, unknown>>) : []
  return errors
    .map(
      (p) =>
        `\n- at ${p.pos ?? "?"}: ${p.message}${p.suggestion === undefined ? "" : ` (did you mean ${String(p.suggestion)}?)`}`
    )
    .join("")
}

const makeClient = (caller: Caller) =>
  HttpApiClient.make(VigilApi, {
    baseUrl: caller.baseUrl,
    transformClient: (client) =>
      HttpClient.mapRequest(client, (request) =>
        HttpClientRequest.setHeaders(HttpClientRequest.bearerToken(request, caller.apiKey), caller.headers ?? {})
      )
  })

/** calls `spec`'s endpoint with the checked `args`; the tool's answer */
const callTool = async (caller: Caller, spec: ToolSpec, input: ToolInput, args: Record<string, unknown>) => {
  const program = Effect.gen(function* () {
    const client = (yield* makeClient(caller)) as unknown as Record<
      string,
      Record<string, (request: Record<string, unknown>) => Effect.Effect<unknown, unknown>>
    >
    const request: Record<string, unknown> = {}
    if (input.path.length > 0) request.path = pick(args, input.path)
    if (input.urlParams.length > 0) request.urlParams = pick(args, input.urlParams)
    if (input.payload.length > 0) request.payload = pick(args, input.payload)
    return yield* client[spec.group]![spec.endpoint]!(request)
  })
  const exit = await Effect.runPromiseExit(program.pipe(Effect.provide(FetchHttpClient.layer)))
  if (exit._tag === "Success") {
    const result = (exit.value ?? {}) as Record<string, unknown>
    let text: string
    try {
      text = spec.summary?.(result) ?? "done"
    } catch {
      text = "done"
    }
    return { content: [{ type: "text" as const, text }], structuredContent: result }
  }
  const failure = failureOf(Option.getOrElse(Cause.failureOption(exit.cause), () => Cause.squash(exit.cause)))
  return {
    isError: true,
    content: [{ type: "text" as const, text: `${failure.code}: ${failure.message}${problemsText(failure)}` }],
    structuredContent: { error: failure }
  }
}

/** the tools with their inputs and schemas, made once (a server is made for every `/mcp` request) */
let registered:
  | ReadonlyArray<{ readonly spec: ToolSpec; readonly input: ToolInput; readonly schema: StandardSchemaWithJSON }>
  | undefined
const registry = () => {
  registered ??= TOOLS.map((spec) => {
    const input = toolInput(spec)
    return { spec, input, schema: standard(input.schema) }
  })
  return registered
}

const QUERY_LANGUAGE = new URL("../../docs/query-language.md", import.meta.url)

/** A server of Vigil's tools and resources for one caller. */
export const makeMcpServer = (caller: Caller, tools: ToolSet = "all"): McpServer => {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      "Vigil screens the US equity and ETF market and the top 100 cryptocurrencies with a SQL WHERE-style `q`, live or as of a date, backtests screens, and subscribes conditions that send alerts. Start with scan (or explain_scan to see why a ticker matches), read vigil://docs/query-language for the grammar and vigil://catalog for every column; dry_run a rule before subscribe."
  })
  for (const { spec, input, schema } of registry()) {
    if (tools === "read" && !spec.readOnly) continue
    server.registerTool(
      spec.name,
      {
        description: spec.description,
        inputSchema: schema,
        annotations: { readOnlyHint: spec.readOnly, destructiveHint: !spec.readOnly, openWorldHint: false }
      },
      (args: unknown) => callTool(caller, spec, input, (args ?? {}) as Record<string, unknown>)
    )
  }
  server.registerResource(
    "query-language",
    "vigil://docs/query-language",
    {
      title: "The q language",
      description: "The grammar, operators, functions and rules of `q`",
      mimeType: "text/markdown"
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/markdown", text: readFileSync(QUERY_LANGUAGE, "utf8") }]
    })
  )
  server.registerResource(
    "catalog",
    "vigil://catalog",
    {
      title: "The column catalog",
      description:
        "Every column usable in `q` (type, unit, description, group) and every function (signature, description)",
      mimeType: "application/json"
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(VOCABULARY) }] })
  )
  return server
}
