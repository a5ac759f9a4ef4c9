/**
 * Standard Webhooks signing, verified by the reference `standardwebhooks` package — the
 * library a receiver would use.
 */
import { describe, expect, it } from "@effect/vitest"
import { Webhook, WebhookVerificationError } from "standardwebhooks"
import {
  generateSigningSecret,
  newEventId,
  signatureFor,
  signatureHeader,
  USER_AGENT,
  webhookHeaders
} from "../../src/delivery/signing.js"

const nowSeconds = () => Math.floor(Date.now() / 1000)
const body = JSON.stringify({
  type: "webhook.fired",
  timestamp: "2026-05-26T14:30:00.000Z",
  data: { webhook_id: "wh_1", name: "Ünïcode ✓", q: "price > 10", as_of: "x", test: false, matches: [] }
})

describe("signing secrets and ids", () => {
  it("a secret is whsec_ + base64 of 32 random bytes", () => {
    const s = generateSigningSecret()
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(s.slice(6), "base64")).toHaveLength(32)
    expect(generateSigningSecret()).not.toBe(s)
  })

  it("an event id is msg_ + at least 128 url-safe random bits", () => {
    const ids = new Set(Array.from({ length: 1000 }, newEventId))
    expect(ids.size).toBe(1000)
    for (const id of ids) {
      expect(id).toMatch(/^msg_[A-Za-z0-9_-]{22,}$/)
      expect(Buffer.from(id.slice(4), "base64url").length).toBeGreaterThanOrEqual(16)
    }
  })
})

describe("signatures verify with the standardwebhooks library", () => {
  it("one secret", () => {
    const secret = generateSigningSecret()
    const id = newEventId()
    const ts = nowSeconds()
    const headers = webhookHeaders([secret], id, ts, body)
    expect(headers).toEqual({
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      "webhook-id": id,
      "webhook-timestamp": String(ts),
      "webhook-signature": signatureFor(secret, id, ts, body)
    })
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
    // the library's own signature is the same string
    expect(new Webhook(secret).sign(id, new Date(ts * 1000), body)).toBe(headers["webhook-signature"])
  })

  it("a tampered body, another id or another secret does not verify", () => {
    const secret = generateSigningSecret()
    const id = newEventId()
    const headers = webhookHeaders([secret], id, nowSeconds(), body)
    expect(() => new Webhook(secret).verify(body.replace("10", "11"), headers)).toThrow(WebhookVerificationError)
    expect(() => new Webhook(secret).verify(body, { ...headers, "webhook-id": newEventId() })).toThrow(
      WebhookVerificationError
    )
    expect(() => new Webhook(generateSigningSecret()).verify(body, headers)).toThrow(WebhookVerificationError)
  })

  it("a two-secret header (rotation overlap) verifies with either secret", () => {
    const oldSecret = generateSigningSecret()
    const newSecret = generateSigningSecret()
    const id = newEventId()
    const ts = nowSeconds()
    const headers = webhookHeaders([newSecret, oldSecret], id, ts, body)
    const parts = headers["webhook-signature"]!.split(" ")
    expect(parts).toEqual([signatureFor(newSecret, id, ts, body), signatureFor(oldSecret, id, ts, body)])
    expect(new Webhook(oldSecret).verify(body, headers)).toEqual(JSON.parse(body))
    expect(new Webhook(newSecret).verify(body, headers)).toEqual(JSON.parse(body))
    expect(() => new Webhook(generateSigningSecret()).verify(body, headers)).toThrow(WebhookVerificationError)
    expect(signatureHeader([], id, ts, body)).toBe("")
  })

  it("every attempt is signed afresh: a new timestamp gives a new signature for the same id", () => {
    const secret = generateSigningSecret()
    const id = newEventId()
    const ts = nowSeconds()
    expect(signatureFor(secret, id, ts, body)).not.toBe(signatureFor(secret, id, ts + 30, body))
    expect(new Webhook(secret).verify(body, webhookHeaders([secret], id, ts + 30, body))).toBeTruthy()
  })
})
