/**
 * Account isolation and secrecy over real HTTP: every account-scoped endpoint
 * tried with another account's ids answers 404 (or the universe/signal
 * variant of not found), and no secret (API keys, signing secrets, chat URLs,
 * push tokens) appears in any response after creation or in any log line.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SAMPLE, type Service, startService } from "../support/inProcess.js"
import { admin, api, expectError, waitReady } from "../support/server.js"

describe("isolation between accounts and secrecy", () => {
  let server: Service
  let receiver: Server
  let receiverUrl: string
  const secrets: Array<string> = []
  const call = (key: string, method: string, path: string, body?: unknown) =>
    api(server, key, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume()
      req.on("end", () => res.writeHead(200).end())
    })
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r))
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
    server = await startService(
      { REFRESH_INTERVAL: "1h", WEBHOOK_ALLOW_INSECURE_TARGETS: "true", LOG_LEVEL: "debug" },
      SAMPLE
    )
    await waitReady(server)
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await new Promise<void>((r) => receiver?.close(() => r()))
  })

  it("answers 404 for another account's resources, on every account-scoped endpoint", async () => {
    const a = (await admin(server, "POST", "/admin/accounts", { plan: "scale" })).body
    const b = (await admin(server, "POST", "/admin/accounts", { plan: "scale" })).body
    secrets.push(a.api_key, b.api_key)
    const A = a.api_key as string
    const B = b.api_key as string

    expect((await call(A, "POST", "/v2/signals", { name: "mine_only", expr: "price > 5" })).status).toBe(201)
    const universe = await call(A, "POST", "/v2/universes", { id: "private_list", name: "P", tickers: ["AAPL"] })
    expect(universe.status).toBe(201)
    const rule = await call(A, "POST", "/v2/rules", { name: "r", q: "price > 5" })
    const chatUrl = `${receiverUrl}/chat-secret-path-${Date.now()}`
    const chat = await call(A, "POST", "/v2/tickers/aapl/subscribe", { condition: "price > 0", chat_url: chatUrl })
    const hook = await call(A, "POST", "/v2/tickers/aapl/subscribe", {
      condition: "price > 0",
      target_url: `${receiverUrl}/h`
    })
    secrets.push(chatUrl, hook.body.signing_secret)
    const rotated = await call(A, "POST", `/v2/webhooks/${hook.body.id}/rotate-secret`)
    secrets.push(rotated.body.signing_secret)
    const token = `push-token-${Date.now()}-abcdef`
    const device = await call(A, "POST", "/v2/devices/register", { platform: "android", token })
    secrets.push(token)
    const inbox = await call(A, "POST", "/v2/tickers/msft/subscribe", { condition: "price > 0" })
    expect((await admin(server, "POST", "/admin/refresh")).status).toBe(200)
    await call(A, "POST", `/v2/webhooks/${hook.body.id}/test`)
    const deliveries = await call(A, "GET", `/v2/webhooks/${hook.body.id}/deliveries`)
    const deliveryId = deliveries.body.deliveries[0].id as string

    const nf = async (method: string, path: string, body?: unknown, code = "not_found") =>
      expectError(await call(B, method, path, body), 404, code)
    await nf("GET", "/v2/universes/private_list")
    await nf("PATCH", "/v2/universes/private_list", { name: "x" })
    await nf("DELETE", "/v2/universes/private_list")
    await nf("POST", "/v2/scan", { q: "price > 1", universe: "private_list" }, "universe_not_found")
    await nf("GET", `/v2/rules/${rule.body.id}`)
    await nf("PATCH", `/v2/rules/${rule.body.id}`, { name: "x" })
    await nf("DELETE", `/v2/rules/${rule.body.id}`)
    await nf("PATCH", "/v2/signals/mine_only", { expr: "price > 1" })
    await nf("DELETE", "/v2/signals/mine_only")
    expect((await call(B, "GET", "/v2/signals/mine_only")).status).toBe(404)
    expectError(await call(B, "POST", "/v2/scan", { q: "mine_only" }), 400, "invalid_query")
    for (const id of [hook.body.id, chat.body.id, inbox.body.id]) {
      await nf("GET", `/v2/webhooks/${id}`)
      await nf("PATCH", `/v2/webhooks/${id}`, { name: "x" })
      await nf("POST", `/v2/webhooks/${id}/enable`)
      await nf("POST", `/v2/webhooks/${id}/disable`)
      await nf("POST", `/v2/webhooks/${id}/test`)
      await nf("POST", `/v2/webhooks/${id}/rotate-secret`)
      await nf("GET", `/v2/webhooks/${id}/deliveries`)
      await nf("DELETE", `/v2/webhooks/${id}`)
    }
    await nf("POST", `/v2/webhooks/${hook.body.id}/deliveries/${deliveryId}/retry`)
    expectError(
      await call(B, "POST", "/v2/tickers/aapl/subscribe", {
        condition: "price > 0",
        channel: "mobile_push",
        device_id: device.body.device_id
      }),
      400,
      "bad_request"
    )
    expect((await call(B, "GET", "/v2/webhooks")).body.webhooks).toEqual([])
    expect((await call(B, "GET", "/v2/universes")).body.universes).toEqual([])
    expect((await call(B, "GET", "/v2/rules")).body.rules).toEqual([])
    expect((await call(B, "GET", "/v2/signals?kind=custom")).body.signals).toEqual([])
    expect((await call(B, "GET", "/v2/notifications")).body.notifications).toEqual([])
    expect((await call(A, "POST", "/v2/notifications/read", {})).status).toBe(200)
    // and A still has everything
    expect((await call(A, "GET", `/v2/webhooks/${hook.body.id}`)).status).toBe(200)
    expect((await call(A, "GET", "/v2/universes/private_list")).status).toBe(200)

    // secrets never come back after creation
    const reads = [
      await call(A, "GET", `/v2/webhooks/${hook.body.id}`),
      await call(A, "GET", `/v2/webhooks/${chat.body.id}`),
      await call(A, "GET", "/v2/webhooks"),
      await call(A, "GET", `/v2/webhooks/${chat.body.id}/deliveries`),
      await call(A, "GET", `/v2/webhooks/${hook.body.id}/deliveries`),
      await call(A, "GET", "/v2/notifications"),
      await call(A, "GET", "/v2/account"),
      await call(A, "PATCH", `/v2/webhooks/${chat.body.id}`, { name: "renamed" })
    ]
    for (const r of reads) {
      const text = JSON.stringify(r.body)
      for (const s of secrets) expect(text).not.toContain(s)
    }
  }, 120_000)

  it("never writes a secret to the log", async () => {
    // let the deliveries of the test above finish, then read everything the process logged
    await new Promise((r) => setTimeout(r, 1_000))
    const logs = server.logs()
    expect(logs.length).toBeGreaterThan(1_000)
    expect(secrets.length).toBeGreaterThanOrEqual(6)
    for (const s of secrets) expect(logs).not.toContain(s)
    expect(logs).not.toContain("whsec_")
    expect(logs).not.toContain("vigil_test_")
  })
})
