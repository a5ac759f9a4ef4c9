/**
 * `/mcp` on the service (issue 19): MCP over streamable HTTP, `Authorization: Bearer <API key>` as
 * for `/v2`, authenticated and counted against the key's rate limit as a `/v2` request is (401,
 * the plan's admission, 429 with `Retry-After`; the `X-RateLimit-*` headers on every answer): one
 * MCP request, one request. Each tool calls its endpoint through the typed client on this
 * service's own address with that key, so it is plan-gated, validated, logged and measured as any
 * `/v2` call, marked as already counted (`internalCallHeaders`). The request's id and log line are
 * the request middleware's, as for every route.
 */
import { HttpApiBuilder, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport
} from "@modelcontextprotocol/server"
import { Effect, FiberRef } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import { type Caller, makeMcpServer } from "../../mcp/server.js"
import { CurrentRequestId, refusal } from "../envelope.js"
import { errorResponse } from "../errors.js"
import { internalCallHeaders, makeAuthenticate } from "../middleware/Authentication.js"

export const MCP_PATH = "/mcp"

/**
 * The MCP handler's answer as the service's: a JSON one read whole (so the request middleware
 * sees its body and keeps it — a JSON-RPC error is the protocol's, not the API's envelope), an
 * event stream passed through as it comes.
 */
const jsonRpcError = (code: number, message: string) =>
  HttpServerResponse.unsafeJson({ jsonrpc: "2.0", error: { code, message }, id: null }, { status: 400 })

const asResponse = (answer: Response) =>
  answer.headers.get("content-type")?.startsWith("text/event-stream") === true || answer.body === null
    ? Effect.succeed(HttpServerResponse.fromWeb(answer))
    : Effect.map(
        Effect.promise(() => answer.arrayBuffer()),
        (bytes) =>
          HttpServerResponse.uint8Array(new Uint8Array(bytes), {
            status: answer.status,
            headers: Object.fromEntries(answer.headers),
            contentType: answer.headers.get("content-type") ?? "application/json"
          })
      )

export const McpHttpLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const authenticate = yield* makeAuthenticate
    // this service's own address as bound, for the tools' calls (a wildcard host on loopback)
    const address = (yield* HttpServer.HttpServer).address
    const host =
      address._tag === "TcpAddress" && address.hostname !== "0.0.0.0" && address.hostname !== "::"
        ? address.hostname
        : "127.0.0.1"
    const port = address._tag === "TcpAddress" ? address.port : config.port
    const baseUrl = `http://${host.includes(":") ? `[${host}]` : host}:${port}`
    const handler = createMcpHandler(
      (context) => {
        const extra = (context.authInfo?.extra ?? {}) as { readonly caller?: Caller }
        if (extra.caller === undefined) throw new Error("an /mcp request without its caller")
        return makeMcpServer(extra.caller, config.mcpTools)
      },
      // answered whole: the default ("auto") streams only when a tool sends a message before its
      // result, which none of Vigil's does
      { legacy: "stateless" }
    )
    const serve = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const requestId = yield* FiberRef.get(CurrentRequestId)
      const key = yield* Effect.either(authenticate(request))
      if (key._tag === "Left") return errorResponse(key.left, requestId)
      const token = /^Bearer[ ]+(\S+)\s*$/i.exec(request.headers.authorization ?? "")![1]!
      const caller: Caller = { baseUrl, apiKey: token, headers: internalCallHeaders }
      // the body as the service read it (its middleware may have read it already): handed over parsed
      const text = request.method === "POST" ? yield* request.text : ""
      let parsedBody: unknown
      try {
        parsedBody = text === "" ? undefined : JSON.parse(text)
      } catch {
        return jsonRpcError(-32700, "Parse error: the body is not JSON")
      }
      const web = new Request(`${baseUrl}${request.url}`, {
        method: request.method,
        headers: new Headers(request.headers as Record<string, string>)
      })
      const authInfo = { token, clientId: key.right.account.id, scopes: [], extra: { caller } }
      const answer = yield* Effect.promise(async () => {
        if (request.method === "POST" && (await isLegacyRequest(web, parsedBody))) {
          // 2025-era traffic, stateless, answered whole as the modern is
          const transport = new WebStandardStreamableHTTPServerTransport({
            sessionIdGenerator: undefined,
            enableJsonResponse: true
          })
          const server = makeMcpServer(caller, config.mcpTools)
          await server.connect(transport)
          try {
            return await transport.handleRequest(web, { authInfo, parsedBody })
          } finally {
            void server.close()
          }
        }
        return handler.fetch(web, { authInfo, ...(parsedBody === undefined ? {} : { parsedBody }) })
      })
      return yield* asResponse(answer)
    }).pipe(
      Effect.catchTag("RequestError", (e) => refusal(400, "bad_request", `the request could not be read: ${e.message}`))
    )
    yield* router.post(MCP_PATH, serve)
    yield* router.get(MCP_PATH, serve)
    yield* router.del(MCP_PATH, serve)
  })
)
