import type { WebhookConfig } from "../../src/store/webhooks.js"

/** The configuration of an `in_app` webhook on `q`, as the API would hand it to the store. */
export const inAppConfig = (name: string, q: string, fields: ReadonlyArray<string> = []): WebhookConfig => ({
  name,
  q,
  universeId: null,
  cadence: "realtime",
  channel: "in_app",
  targetUrl: null,
  chatUrl: null,
  deviceId: null,
  signingSecret: null,
  fields,
  origin: { type: "query", ref: null, condition: q }
})
