/** Webhook configurations for storage tests. */
import { DEFAULT_FIRING } from "../../src/alerts/firing/options.js"
import type { WebhookConfig } from "../../src/store/webhooks.js"

/** A realtime in-app webhook of a query, with no target, secret or universe. */
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
  origin: { type: "query", ref: null, condition: q },
  firing: DEFAULT_FIRING
})
