/**
 * The whole HTTP contract of Vigil: one HttpApi, one group per resource. The
 * OpenAPI document and the typed client are generated from it.
 */
import { HttpApi, OpenApi } from "@effect/platform"
import { AccountApi } from "./account/Api.js"
import { AdminApi } from "./admin/Api.js"
import { DashboardApi } from "./dashboard/Api.js"
import { DevicesApi } from "./devices/Api.js"
import {
  IdempotencyKeyInProgress,
  IdempotencyKeyReused,
  Internal,
  PayloadTooLarge,
  RequestHeaderTooLarge,
  RequestTimeout,
  UnsupportedMediaType,
  wire
} from "./errors.js"
import { MarketApi } from "./market/Api.js"
import { NewsApi } from "./news/Api.js"
import { NotificationsApi } from "./notifications/Api.js"
import { tidyOpenApi } from "./openapiDocument.js"
import { RulesApi } from "./rules/Api.js"
import { ScanApi } from "./scan/Api.js"
import { SignalsApi } from "./signals/Api.js"
import { SystemApi } from "./system/Api.js"
import { TickersApi } from "./tickers/Api.js"
import { UniversesApi } from "./universes/Api.js"
import { WebhooksApi } from "./webhooks/Api.js"

export class VigilApi extends HttpApi.make("vigil")
  .add(SystemApi)
  .add(AdminApi)
  .add(AccountApi)
  .add(TickersApi)
  .add(MarketApi)
  .add(UniversesApi)
  .add(ScanApi)
  .add(RulesApi)
  .add(SignalsApi)
  .add(WebhooksApi)
  .add(DevicesApi)
  .add(NotificationsApi)
  .add(NewsApi)
  .add(DashboardApi)
  .addError(wire(Internal))
  // the request policy's answers (server, request middleware, idempotency), before any endpoint runs: declared
  // once here, and kept by the document transform only on the operations where each can happen (openapiDocument.ts)
  .addError(wire(RequestTimeout))
  .addError(wire(PayloadTooLarge))
  .addError(wire(UnsupportedMediaType))
  .addError(wire(RequestHeaderTooLarge))
  .addError(wire(IdempotencyKeyInProgress))
  .addError(wire(IdempotencyKeyReused))
  .annotate(OpenApi.Title, "Vigil API")
  .annotate(OpenApi.Servers, [{ url: "/", description: "This service: the host that serves this document" }])
  .annotate(OpenApi.Transform, tidyOpenApi)
  .annotate(
    OpenApi.Description,
    "Market screening and signal alerts. Send `Authorization: Bearer <API_KEY>`; GET endpoints take their " +
      "parameters in the query string (unknown ones are 400). Request bodies are JSON: `Content-Type: " +
      "application/json` (parameters such as `charset`, and structured `+json` types, are accepted; no type " +
      "at all is read as JSON). A body in any other media type is 415 `unsupported_media_type`; a request " +
      "without a body may carry any type. Bodies over 1 MB are 413 `payload_too_large`, JSON nested deeper " +
      "than 64 levels or holding a NUL character is 400. Every 4xx/5xx answer is the envelope " +
      "`{error: {code, message, request_id}}`; the request id is also in `X-Request-Id` (send your own, " +
      "1–64 of `A-Za-z0-9._:-`, to have it echoed). When the database cannot answer, requests get 503 " +
      "`service_unavailable` with `Retry-After` within seconds, never a hang; any /v2 request not answered " +
      "within 20 s is answered 503 `service_unavailable` with `Retry-After` and its work cancelled."
  )
  .annotate(OpenApi.Version, "2.2.1") {}
