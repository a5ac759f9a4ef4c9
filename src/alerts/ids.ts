/**
 * Ids the alerts core hands out, and the delivery target a record shows.
 */
import { randomBase64url } from "../randomPool.js"
import type { WebhookRecord } from "../store/webhooks.js"

export const newId = (prefix: string) => `${prefix}_${randomBase64url(12)}`

let deliverySeq = 0
/**
 * A delivery id that sorts in creation order within a process (the time, then a counter), so the
 * fires of one tick list in a stable order even within one second.
 */
export const newDeliveryId = (now: number) =>
  `dlv_${Math.max(0, now).toString(36).padStart(9, "0")}${(deliverySeq++ % 36 ** 5).toString(36).padStart(5, "0")}${randomBase64url(6)}`

/** The delivery target shown on records: never a secret. */
export const displayTarget = (w: Pick<WebhookRecord, "channel" | "targetUrl" | "deviceId">): string =>
  w.channel === "webhook"
    ? (w.targetUrl ?? "")
    : w.channel === "chat"
      ? "chat"
      : w.channel === "in_app"
        ? "in_app"
        : `push:${w.deviceId ?? ""}`
