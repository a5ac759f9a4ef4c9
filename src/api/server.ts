/**
 * The HTTP server: the VigilApi handlers behind the request middleware, on
 * Node's http server at HOST:PORT.
 */

import { createServer, type Server } from "node:http"
import { HttpApiBuilder, HttpApiScalar, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { VigilApi } from "./Api.js"
import { AccountHttpLive } from "./account/Http.js"
import { AdminHttpLive } from "./admin/Http.js"
import { answerClientError } from "./clientError.js"
import { DashboardAuthLive } from "./dashboard/DashboardAuthLive.js"
import { DashboardHttpLive } from "./dashboard/Http.js"
import { DashboardInboxLive } from "./dashboard/inbox.js"
import { withDashboardProxy } from "./dashboard/proxy.js"
import { DashboardStaticLive } from "./dashboard/static.js"
import { DevicesHttpLive } from "./devices/Http.js"
import { DirectLane, DirectLaneLive } from "./direct/lane.js"
import { IdempotencyKeys, makeIdempotency } from "./idempotency.js"
import { MarketHttpLive } from "./market/Http.js"
import { McpHttpLive } from "./mcp/http.js"
import { AdminAuthLive } from "./middleware/AdminAuthLive.js"
import { makeAuthenticate } from "./middleware/Authentication.js"
import { AuthenticationLive } from "./middleware/AuthenticationLive.js"
import { NewsHttpLive } from "./news/Http.js"
import { NotificationsHttpLive } from "./notifications/Http.js"
import { requestMiddleware } from "./requestMiddleware.js"
import { RulesHttpLive } from "./rules/Http.js"
import { ScanHttpLive } from "./scan/Http.js"
import { SignalsHttpLive } from "./signals/Http.js"
import { RunnerApi, RunnerSystemHttpLive, SystemHttpLive } from "./system/Http.js"
import { TickersHttpLive } from "./tickers/Http.js"
import { UniversesHttpLive } from "./universes/Http.js"
import { WebhooksHttpLive } from "./webhooks/Http.js"

export const ApiLive = HttpApiBuilder.api(VigilApi).pipe(
  Layer.provide([
    SystemHttpLive,
    AdminHttpLive,
    AccountHttpLive,
    TickersHttpLive,
    MarketHttpLive,
    UniversesHttpLive,
    ScanHttpLive,
    RulesHttpLive,
    SignalsHttpLive,
    WebhooksHttpLive,
    DevicesHttpLive,
    NotificationsHttpLive,
    NewsHttpLive,
    DashboardHttpLive
  ]),
  Layer.provide([AuthenticationLive, AdminAuthLive, DashboardAuthLive])
)

/** Every server created here, so shutdown can cut connections that outlive the grace period. */
export const openServers = new Set<Server>()

/** Node's http server at HOST:PORT; `install` sees it first (the API's direct path). */
const nodeServer = (install: (server: Server) => void) =>
  Layer.unwrapEffect(
    Effect.map(AppConfig, (config) =>
      NodeHttpServer.layer(
        () => {
          const server = createServer()
          install(server)
          server.keepAliveTimeout = 5_000
          server.headersTimeout = 10_000
          server.requestTimeout = 30_000
          // requests refused by the HTTP parser (e.g. headers over 16 KB) get the error envelope too
          server.on("clientError", answerClientError)
          openServers.add(server)
          server.on("close", () => openServers.delete(server))
          return server
        },
        { port: config.port, host: config.host }
      )
    )
  )

export const HttpServerLive = Layer.unwrapEffect(
  // live scans and ticker rows are answered before the API's router (see direct/lane.ts)
  Effect.map(DirectLane, (lane) => nodeServer((server) => lane.install(server)))
)

/**
 * Like `HttpApiBuilder.serve`, but the request middleware wraps the API app
 * *before* the server sends the response (a middleware given to `serve` runs
 * after the response is written, too late to add headers or the envelope).
 */
export const ServerLive = Effect.gen(function* () {
  const app = yield* HttpApiBuilder.httpApp
  const idempotency = yield* makeIdempotency
  const authenticate = yield* makeAuthenticate
  // the dashboard's calls to /v2 (/dashboard/v2/…) go through idempotency and the API as any client's
  return HttpServer.serve(requestMiddleware(yield* withDashboardProxy(idempotency(app, authenticate))))
}).pipe(
  Layer.unwrapScoped,
  // the dashboard's built files at / (issue 18)
  Layer.provide(DashboardStaticLive),
  Layer.provide(DashboardInboxLive),
  // MCP over streamable HTTP (issue 19)
  Layer.provide(McpHttpLive),
  Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
  HttpServer.withLogAddress,
  // the generated OpenAPI 3.1 document and an interactive reference (Scalar, served from the package, no CDN)
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/v2/openapi.json" })),
  Layer.provide(HttpApiScalar.layer({ path: "/docs" })),
  Layer.provide(ApiLive),
  Layer.provide(HttpServerLive),
  // POST /v2/webhooks too (direct/create.ts), with the API's key store and the webhook rules
  Layer.provide(DirectLaneLive),
  Layer.provide(IdempotencyKeys.Live),
  // no span per request: nothing exports traces, and the span (its URL parse, attributes and
  // context) cost ~15% of a small request's CPU (docs/benchmarks.md, "What a request costs")
  HttpMiddleware.withTracerDisabledWhen(() => true)
)

/**
 * The HTTP server of a `VIGIL_ROLE=runner` process: `/healthz`, `/readyz` and `/metrics` on PORT
 * behind the same request middleware (request ids, log lines, HTTP metrics); nothing else.
 */
export const RunnerServerLive = Effect.map(HttpApiBuilder.httpApp, (app) =>
  HttpServer.serve(requestMiddleware(app))
).pipe(
  Layer.unwrapEffect,
  Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
  HttpServer.withLogAddress,
  Layer.provide(HttpApiBuilder.api(RunnerApi).pipe(Layer.provide(RunnerSystemHttpLive))),
  Layer.provide(nodeServer(() => {})),
  HttpMiddleware.withTracerDisabledWhen(() => true)
)
