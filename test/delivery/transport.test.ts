/**
 * The delivery transport against real local receivers: a signed POST verified with the
 * `standardwebhooks` package, redirects not followed, a hard deadline, the response cap,
 * Retry-After, refused targets, and per-host concurrency isolation.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { Webhook } from "standardwebhooks"
import { AppConfig } from "../../src/config/AppConfig.js"
import { classify } from "../../src/delivery/outcome.js"
import { generateSigningSecret, newEventId, webhookHeaders } from "../../src/delivery/signing.js"
import { DeliveryTransport, makeTransport, parseRetryAfter } from "../../src/delivery/transport.js"
import { localServer, waitUntil } from "./receiver.js"

const transport = (options: Parameters<typeof makeTransport>[0]) =>
  Effect.acquireRelease(
    Effect.sync(() => makeTransport(options)),
    (t) => t.close
  )

const json = JSON.stringify({ type: "webhook.fired", timestamp: "2026-05-26T14:30:00.000Z", data: { test: true } })
const plainHeaders = { "content-type": "application/json" }

describe("a signed POST to a real receiver", () => {
  it.scopedLive("is verified by the receiver with standardwebhooks", () =>
    Effect.gen(function* () {
      const secret = generateSigningSecret()
      let verified: unknown = null
      let verifyError: unknown = null
      const server = yield* localServer((req, res) => {
        try {
          verified = new Webhook(secret).verify(req.body, req.headers as Record<string, string>)
          res.writeHead(204).end()
        } catch (e) {
          verifyError = e
          res.writeHead(400).end()
        }
      })
      const t = yield* transport({ allowInsecure: true })
      const id = newEventId()
      const result = yield* t.post(
        server.url(),
        webhookHeaders([secret], id, Math.floor(Date.now() / 1000), json),
        json
      )
      expect(verifyError).toBeNull()
      expect(result).toMatchObject({ status: 204, error: null, retryAfterSeconds: null })
      expect(classify(result)).toBe("delivered")
      expect(verified).toEqual(JSON.parse(json))
      expect(server.received).toHaveLength(1)
      expect(server.received[0]).toMatchObject({ method: "POST", url: "/hook", body: json })
      expect(server.received[0]!.headers["webhook-id"]).toBe(id)
      expect(server.received[0]!.headers["user-agent"]).toBe("Vigil-Webhooks/1")
    })
  )

  it.scopedLive("through the DeliveryTransport layer built from AppConfig", () =>
    Effect.gen(function* () {
      const server = yield* localServer((_req, res) => res.writeHead(200).end("ok"))
      const layer = DeliveryTransport.layer.pipe(
        Layer.provide(AppConfig.layerWith({ webhookAllowInsecureTargets: true }))
      )
      const result = yield* Effect.flatMap(DeliveryTransport, (t) => t.post(server.url(), plainHeaders, json)).pipe(
        Effect.provide(layer)
      )
      expect(result.status).toBe(200)
      // the default (secure) configuration refuses the same loopback target without dialling it
      const refused = yield* Effect.flatMap(DeliveryTransport, (t) => t.post(server.url(), plainHeaders, json)).pipe(
        Effect.provide(DeliveryTransport.layer.pipe(Layer.provide(AppConfig.layerWith())))
      )
      expect(refused).toEqual({
        status: null,
        retryAfterSeconds: null,
        error: "target refused: target_url must use https",
        durationMs: 0
      })
      expect(server.received).toHaveLength(1)
    })
  )
})

describe("responses", () => {
  it.scopedLive("a redirect is returned as its status and never followed", () =>
    Effect.gen(function* () {
      const elsewhere = yield* localServer((_req, res) => res.writeHead(200).end())
      const server = yield* localServer((_req, res) => res.writeHead(307, { location: elsewhere.url("/other") }).end())
      const t = yield* transport({ allowInsecure: true })
      const result = yield* t.post(server.url(), plainHeaders, json)
      expect(result.status).toBe(307)
      expect(result.error).toBe(`redirect to ${elsewhere.url("/other")} not followed`)
      expect(classify(result)).toBe("retry")
      expect(elsewhere.received).toHaveLength(0)
      const bare = yield* localServer((_req, res) => res.writeHead(301).end())
      expect(yield* t.post(bare.url(), plainHeaders, json)).toMatchObject({
        status: 301,
        error: "redirect not followed"
      })
    })
  )

  it.scopedLive("a receiver that never answers is cut off at the deadline", () =>
    Effect.gen(function* () {
      const server = yield* localServer(() => {})
      const t = yield* transport({ allowInsecure: true, timeoutMs: 300 })
      const started = Date.now()
      const result = yield* t.post(server.url(), plainHeaders, json)
      const elapsed = Date.now() - started
      expect(result).toMatchObject({ status: null, error: "timeout after 300 ms", retryAfterSeconds: null })
      expect(elapsed).toBeGreaterThanOrEqual(280)
      expect(elapsed).toBeLessThan(2_000)
      expect(server.received).toHaveLength(1)
    })
  )

  it.scopedLive("a body that stalls after the headers is cut off at the same deadline; the status stands", () =>
    Effect.gen(function* () {
      const server = yield* localServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" })
        res.write("partial")
      })
      const t = yield* transport({ allowInsecure: true, timeoutMs: 300 })
      const started = Date.now()
      const result = yield* t.post(server.url(), plainHeaders, json)
      expect(Date.now() - started).toBeLessThan(2_000)
      expect(result.status).toBe(200)
      expect(result.error).toBe("response body cut off: timeout after 300 ms")
      expect(classify(result)).toBe("delivered")
    })
  )

  it.scopedLive("reads at most maxResponseBytes of an endless response", () =>
    Effect.gen(function* () {
      let written = 0
      let closed = false
      const chunk = Buffer.alloc(64 * 1024, 120)
      const server = yield* localServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" })
        const pump = () => {
          while (!closed && res.write(chunk)) written += chunk.length
          if (!closed) written += chunk.length
        }
        res.on("drain", pump)
        res.on("close", () => {
          closed = true
        })
        pump()
      })
      const t = yield* transport({ allowInsecure: true, timeoutMs: 5_000, maxResponseBytes: 16 * 1024 })
      const started = Date.now()
      const result = yield* t.post(server.url(), plainHeaders, json)
      expect(result).toMatchObject({ status: 200, error: null })
      expect(Date.now() - started).toBeLessThan(2_000)
      yield* waitUntil(() => closed)
      // socket buffers take some megabytes at most; an uncapped reader would take everything for 5 s
      expect(written).toBeLessThan(32 * 1024 * 1024)
    })
  )

  it.scopedLive("parses Retry-After in seconds and as an HTTP date", () =>
    Effect.gen(function* () {
      const server = yield* localServer((req, res) =>
        req.url === "/seconds"
          ? res.writeHead(429, { "retry-after": "120" }).end()
          : res.writeHead(503, { "retry-after": new Date(Date.now() + 90_000).toUTCString() }).end()
      )
      const t = yield* transport({ allowInsecure: true })
      expect(yield* t.post(server.url("/seconds"), plainHeaders, json)).toMatchObject({
        status: 429,
        retryAfterSeconds: 120,
        error: null
      })
      const dated = yield* t.post(server.url("/date"), plainHeaders, json)
      expect(dated.status).toBe(503)
      expect(dated.retryAfterSeconds).toBeGreaterThanOrEqual(88)
      expect(dated.retryAfterSeconds).toBeLessThanOrEqual(91)
    })
  )

  it("parseRetryAfter", () => {
    const now = Date.parse("2026-05-26T14:30:00Z")
    expect(parseRetryAfter(undefined, now)).toBeNull()
    expect(parseRetryAfter("0", now)).toBe(0)
    expect(parseRetryAfter(" 30 ", now)).toBe(30)
    expect(parseRetryAfter(["45", "60"], now)).toBe(45)
    expect(parseRetryAfter("Tue, 26 May 2026 14:32:00 GMT", now)).toBe(120)
    expect(parseRetryAfter("Tue, 26 May 2026 14:30:00 GMT", now)).toBe(0)
    expect(parseRetryAfter("Tue, 26 May 2026 14:00:00 GMT", now)).toBe(0)
    expect(parseRetryAfter("-5", now)).toBeNull()
    expect(parseRetryAfter("1.5", now)).toBeNull()
    expect(parseRetryAfter("soon", now)).toBeNull()
    expect(parseRetryAfter("", now)).toBeNull()
  })
})

describe("refused targets and connection errors", () => {
  it.scopedLive("a host name resolving to a private address is refused without a request", () =>
    Effect.gen(function* () {
      const t = yield* transport({
        allowInsecure: false,
        lookup: async () => [{ address: "10.0.0.5", family: 4 }]
      })
      expect(yield* t.post("https://hooks.example.com/x", plainHeaders, json)).toMatchObject({
        status: null,
        error: "target refused: private address 10.0.0.5 (resolved from hooks.example.com)"
      })
      for (const [url, error] of [
        ["https://2130706433/", "target refused: target_url points to a loopback address (127.0.0.1)"],
        [
          "https://[::ffff:a00:5]/",
          "target refused: target_url points to a private address (::ffff:a00:5, IPv4 10.0.0.5)"
        ],
        ["http://example.com/", "target refused: target_url must use https"],
        ["https://user:pw@example.com/", "target refused: target_url must not contain credentials (user:password@)"],
        ["not a url", "target refused: target_url must be an absolute https URL"]
      ] as const) {
        expect(yield* t.post(url, plainHeaders, json)).toEqual({
          status: null,
          retryAfterSeconds: null,
          error,
          durationMs: 0
        })
      }
    })
  )

  it.scopedLive("a closed port is 'connection refused'", () =>
    Effect.gen(function* () {
      const server = yield* localServer((_req, res) => res.end())
      const url = server.url()
      const t = yield* transport({ allowInsecure: true })
      // a fresh server, closed at once, leaves a port nobody listens on
      const port = yield* Effect.scoped(
        Effect.map(
          localServer(() => {}),
          (s) => s.port
        )
      )
      expect(yield* t.post(url.replace(String(server.port), String(port)), plainHeaders, json)).toMatchObject({
        status: null,
        error: "connection refused"
      })
      const unknown = yield* t.post("http://no-such-host.invalid/x", plainHeaders, json)
      expect(unknown).toMatchObject({ status: null, error: "host not found" })
    })
  )
})

describe("per-host concurrency", () => {
  it.scopedLive("a stalled receiver holds at most its own permits and never delays another host", () =>
    Effect.gen(function* () {
      const pending: Array<() => void> = []
      const slow = yield* localServer((_req, res) => pending.push(() => res.writeHead(200).end()))
      const fast = yield* localServer((_req, res) => res.writeHead(204).end())
      const t = yield* transport({ allowInsecure: true, perHostConcurrency: 2, timeoutMs: 10_000 })

      const stalled = yield* Effect.forkScoped(
        Effect.all(
          Array.from({ length: 5 }, () => t.post(slow.url(), plainHeaders, json)),
          { concurrency: "unbounded" }
        )
      )
      yield* waitUntil(() => slow.inFlight() === 2)
      expect(t.activeHosts()).toBe(1)

      const started = Date.now()
      const quick = yield* Effect.all(
        Array.from({ length: 6 }, () => t.post(fast.url(), plainHeaders, json)),
        { concurrency: "unbounded" }
      ).pipe(Effect.timeoutFail({ duration: "3 seconds", onTimeout: () => "the fast host waited for the slow one" }))
      expect(quick.map((r) => r.status)).toEqual([204, 204, 204, 204, 204, 204])
      expect(Date.now() - started).toBeLessThan(2_000)
      // the slow host still has exactly its two permits in use; the rest wait for them
      expect(slow.received).toHaveLength(2)
      expect(fast.maxInFlight()).toBeLessThanOrEqual(2)

      // release the slow receiver: the queued attempts go through, never more than 2 at once
      while (slow.received.length < 5 || pending.length > 0) {
        for (const answer of pending.splice(0)) answer()
        yield* Effect.sleep("10 millis")
      }
      const results = yield* Fiber.join(stalled)
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
      expect(slow.maxInFlight()).toBe(2)
      expect(t.activeHosts()).toBe(0)
    })
  )
})
