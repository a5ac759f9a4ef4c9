/**
 * Webhook subscriptions over HTTP: the subscribe endpoints, the webhook
 * resource and its deliveries. Each handler hands the caller and the request
 * to `Subscriptions`, which holds the rules.
 */
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { VigilApi } from "../Api.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { Subscriptions } from "./Subscriptions.js"

export const WebhooksHttpLive = HttpApiBuilder.group(VigilApi, "webhooks", (handlers) =>
  Effect.map(Subscriptions, (subscriptions) =>
    handlers
      .handle("subscribeTicker", ({ path, payload }) =>
        Effect.flatMap(CurrentKey, (key) => subscriptions.subscribeTicker(key, path.ticker, payload))
      )
      .handle("subscribeSignal", ({ path, payload }) =>
        Effect.flatMap(CurrentKey, (key) => subscriptions.subscribeSignal(key, path.signal, payload))
      )
      .handle("create", ({ payload }) => Effect.flatMap(CurrentKey, (key) => subscriptions.create(key, payload)))
      .handle("createBatch", ({ payload }) =>
        Effect.flatMap(CurrentKey, (key) => subscriptions.createBatch(key, payload))
      )
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentKey, (key) => subscriptions.list(key, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentKey, (key) => subscriptions.get(key, path.id)))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentKey, (key) => subscriptions.update(key, path.id, payload))
      )
      .handle("rotateSecret", ({ path }) =>
        Effect.flatMap(CurrentKey, (key) => subscriptions.rotateSecret(key, path.id))
      )
      .handle("enable", ({ path }) => Effect.flatMap(CurrentKey, (key) => subscriptions.enable(key, path.id)))
      .handle("disable", ({ path }) => Effect.flatMap(CurrentKey, (key) => subscriptions.disable(key, path.id)))
      .handle("delete", ({ path }) => Effect.flatMap(CurrentKey, (key) => subscriptions.remove(key, path.id)))
      .handle("test", ({ path }) => Effect.flatMap(CurrentKey, (key) => subscriptions.test(key, path.id)))
      .handle("deliveries", ({ path, urlParams }) =>
        Effect.flatMap(CurrentKey, (key) => subscriptions.deliveries(key, path.id, urlParams))
      )
      .handle("explain", ({ path, urlParams }) =>
        Effect.flatMap(CurrentKey, (key) => subscriptions.explain(key, path.id, urlParams.ticker))
      )
      .handle("dryRun", ({ payload }) => Effect.flatMap(CurrentKey, (key) => subscriptions.dryRun(key, payload)))
      .handle("dryRunWebhook", ({ path, payload }) =>
        Effect.flatMap(CurrentKey, (key) => subscriptions.dryRunWebhook(key, path.id, payload))
      )
      .handle("snooze", ({ path, payload }) =>
        Effect.flatMap(CurrentKey, (key) => subscriptions.snooze(key, path.id, payload.until))
      )
      .handle("unsnooze", ({ path }) => Effect.flatMap(CurrentKey, (key) => subscriptions.snooze(key, path.id, null)))
      .handle("events", ({ path, urlParams }) =>
        Effect.flatMap(CurrentKey, (key) => subscriptions.events(key, path.id, urlParams))
      )
      .handle("retryDelivery", ({ path }) =>
        Effect.flatMap(CurrentKey, (key) => subscriptions.retryDelivery(key, path.id, path.delivery_id))
      )
  )
).pipe(Layer.provide(Subscriptions.Default))
