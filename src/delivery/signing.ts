/**
 * Standard Webhooks signing (https://www.standardwebhooks.com), as fixed by the
 * operator contract's "Deliveries" section:
 *
 * - secret: `whsec_<base64 of 32 random bytes>`; the HMAC key is the decoded bytes;
 * - `webhook-id`: `msg_<random>`, the same for every attempt of one delivery;
 * - `webhook-timestamp`: Unix seconds of the attempt (every attempt is signed afresh);
 * - `webhook-signature`: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, several
 *   space-separated during a secret-rotation overlap (receivers accept any one that verifies).
 *
 * Receivers can verify with any Standard Webhooks library (test/delivery/signing.test.ts
 * verifies with the `standardwebhooks` package).
 */

import { createHmac, randomBytes } from "node:crypto"
import { randomBase64url } from "../randomPool.js"

export const SECRET_PREFIX = "whsec_"
export const EVENT_ID_PREFIX = "msg_"
export const USER_AGENT = "Vigil-Webhooks/1"

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export const generateSigningSecret = (): string => SECRET_PREFIX + randomBytes(32).toString("base64")

/** The HMAC key of a secret: the base64-decoded part after `whsec_` (a bare base64 secret is accepted too). */
export const secretKey = (secret: string): Buffer =>
  Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64")

/** `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>` — the body is signed as its exact UTF-8 bytes. */
export const signatureFor = (secret: string, id: string, timestampSeconds: number, body: string): string => {
  const mac = createHmac("sha256", secretKey(secret))
  mac.update(`${id}.${Math.trunc(timestampSeconds)}.`, "utf8")
  mac.update(body, "utf8")
  return `v1,${mac.digest("base64")}`
}

/** One signature per secret, separated by a single space (the current and the previous secret during a rotation). */
export const signatureHeader = (
  secrets: ReadonlyArray<string>,
  id: string,
  timestampSeconds: number,
  body: string
): string => secrets.map((s) => signatureFor(s, id, timestampSeconds, body)).join(" ")

/** A new event id: `msg_` + 128 random bits, base64url (22 characters, no padding). */
export const newEventId = (): string => EVENT_ID_PREFIX + randomBase64url(16)

/** Every header of one delivery attempt. */
export const webhookHeaders = (
  secrets: ReadonlyArray<string>,
  id: string,
  timestampSeconds: number,
  body: string
): Record<string, string> => ({
  "content-type": "application/json",
  "user-agent": USER_AGENT,
  "webhook-id": id,
  "webhook-timestamp": String(Math.trunc(timestampSeconds)),
  "webhook-signature": signatureHeader(secrets, id, timestampSeconds, body)
})
