/**
 * The typed client for TypeScript users, generated from the same `VigilApi`
 * definition the server is built from: one method per endpoint, grouped like
 * the API (`client.scan.scan`, `client.tickers.get`, `client.webhooks.create`,
 * …), with the request and response schemas of the OpenAPI document.
 *
 * Errors come back as the classes of `src/api/errors.ts`, one per code
 * (`BadRequest`, `InvalidQuery`, `UniverseNotFound`, `RateLimited`, …),
 * decoded from the envelope `{error:{code,message,request_id}}`: `code` is the
 * spec's code (for example `universe_not_found`) and the envelope's other
 * fields are in `details`.
 *
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect } from "effect"
 * import { makeVigilClient } from "./src/client.js"
 *
 * const program = Effect.gen(function* () {
 *   const vigil = yield* makeVigilClient("http://127.0.0.1:8080", process.env.VIGIL_API_KEY!)
 *   return yield* vigil.scan.scan({ payload: { q: "rsi_14 < 30", limit: 10 } })
 * })
 * Effect.runPromise(program.pipe(Effect.provide(FetchHttpClient.layer)))
 * ```
 */
import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Context, type Effect, Layer } from "effect"
import { VigilApi } from "./api/Api.js"
import { type RetryPolicy, withRetries } from "./sdk/retries.js"

export { VigilApi } from "./api/Api.js"
export {
  AlreadyExists,
  BadRequest,
  ChannelNotImplemented,
  CompileFailed,
  CustomSignalsTierRequired,
  DeliveryNotFailed,
  Forbidden,
  HistoryWindowExceeded,
  IdempotencyKeyInProgress,
  IdempotencyKeyReused,
  Internal,
  InvalidQuery,
  NameCollision,
  NewsArchiveTierRequired,
  NotFound,
  NotSupportedForCustomSignal,
  PayloadTooLarge,
  RateLimited,
  RecursionDepthExceeded,
  RequestHeaderTooLarge,
  RequestTimeout,
  ResourceLimitReached,
  ServiceUnavailable,
  SignalNotAvailableAtInterval,
  SignalReferenced,
  SlugTaken,
  SubscriptionRequired,
  TickerNotInMinuteTier,
  Unauthenticated,
  UniverseNotFound,
  UnknownSignal,
  UnknownTickers,
  UnsupportedMediaType,
  WebhookLimitReached,
  WebhookTierRequired
} from "./api/errors.js"
export {
  feedReader,
  makeReceiver,
  type Received,
  type ReceiverOptions,
  type VigilEvent,
  WebhookVerificationError
} from "./sdk/receiver.js"
export { type RetryPolicy, retryAfterSeconds, retryDelayMs, withRetries } from "./sdk/retries.js"
export { walk, walkAsync } from "./sdk/walk.js"

/**
 * A client for the Vigil API at `baseUrl` (e.g. `http://127.0.0.1:8080`),
 * sending `Authorization: Bearer <apiKey>` on every request. Needs an
 * `HttpClient` (`FetchHttpClient.layer`, or `NodeHttpClient.layerUndici`).
 */
export const makeVigilClient = (
  baseUrl: string | URL,
  apiKey: string,
  options: {
    /** the spec's retries (client/retries.ts): on by default; `false` answers the first response as it is */
    readonly retries?: RetryPolicy | false
  } = {}
) =>
  HttpApiClient.make(VigilApi, {
    baseUrl,
    transformClient: (client) => {
      const keyed = HttpClient.mapRequest(client, HttpClientRequest.bearerToken(apiKey))
      return options.retries === false ? keyed : withRetries(options.retries)(keyed)
    }
  })

/** The client's type: `client.<group>.<endpoint>(request)`. */
export type VigilClient = Effect.Effect.Success<ReturnType<typeof makeVigilClient>>

/** The client as a service, for programs that prefer `yield* Vigil`. */
export class Vigil extends Context.Tag("vigil/client/Vigil")<Vigil, VigilClient>() {
  /** The service on the fetch-based `HttpClient`. */
  static readonly layer = (baseUrl: string | URL, apiKey: string): Layer.Layer<Vigil> =>
    Layer.effect(Vigil, makeVigilClient(baseUrl, apiKey)).pipe(Layer.provide(FetchHttpClient.layer))
}
