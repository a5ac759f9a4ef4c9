/**
 * docs/client.md's examples (issue 19, item 3), imported as `vigil/client` (the package's
 * `exports`) and run against the service in process: every page of a scan walked as a Stream,
 * the account's subscriptions with `for await`, a webhook receiver verifying and ordering real
 * deliveries; and the guide showing each example file verbatim.
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { webhookNames } from "../../examples/client/for-await.js"
import { startReceiver } from "../../examples/client/receive-webhooks.js"
import { walkAScan } from "../../examples/client/walk-a-scan.js"
import { feedReader, type VigilEvent } from "../../src/client.js"
import { freePort } from "../support/freePort.js"
import { admin } from "../support/server.js"
import { serveForSuite } from "../support/suiteServer.js"

const ROOT = resolve(import.meta.dirname, "../..")
const EXAMPLES = [
  "examples/client/walk-a-scan.ts",
  "examples/client/for-await.ts",
  "examples/client/receive-webhooks.ts"
]

describe("docs/client.md", () => {
  it("shows every example file verbatim", () => {
    const guide = readFileSync(resolve(ROOT, "docs/client.md"), "utf8")
    for (const file of EXAMPLES) expect(guide).toContain(`\`\`\`ts\n${readFileSync(resolve(ROOT, file), "utf8")}\`\`\``)
  })
})

describe("the client's examples against the service", () => {
  const server = serveForSuite({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true" })
  const closers: Array<() => void> = []
  afterAll(() => {
    for (const close of closers) close()
  })
  const keyOf = async (plan: string) =>
    (await admin(server, "POST", "/admin/accounts", { plan })).body.api_key as string

  it("walks every page of a scan, each ticker once, as many as the scan's total", async () => {
    const key = await keyOf("pro")
    const q = "price > 5"
    const first = await fetch(`${server.url}/v2/scan`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ q, limit: 1 })
    })
    const total = ((await first.json()) as any).total as number
    expect(total).toBeGreaterThan(100)
    const tickers = await Effect.runPromise(walkAScan(server.url, key, q))
    expect(tickers).toHaveLength(total)
    expect(new Set(tickers).size).toBe(total)
  })

  it("lists the account's subscriptions with for await", async () => {
    const key = await keyOf("pro")
    for (const name of ["one", "two", "three"]) {
      const res = await fetch(`${server.url}/v2/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ q: "price > 0", name })
      })
      expect(res.status).toBe(201)
    }
    expect([...(await webhookNames(server.url, key))].sort()).toEqual(["one", "three", "two"])
  })

  it("receives a real delivery, verified, in sequence, and reads the same event from the feed", async () => {
    const key = await keyOf("pro")
    const received: Array<VigilEvent> = []
    const port = await freePort()
    const created = await fetch(`${server.url}/v2/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ q: "ticker = 'MSFT' AND price > 0", target_url: `http://127.0.0.1:${port}/hook` })
    })
    const webhook = (await created.json()) as any
    const receiver = await startReceiver({
      baseUrl: server.url,
      apiKey: key,
      secret: webhook.signing_secret,
      port,
      onEvent: (event) => received.push(event)
    })
    closers.push(() => receiver.close())
    expect((await admin(server, "POST", "/admin/refresh")).status).toBe(200)
    const deadline = Date.now() + 20_000
    while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(received).toHaveLength(1)
    expect(received[0]).toMatchObject({ type: "webhook.fired", data: { webhook_id: webhook.id, sequence: 1 } })
    const feed = await feedReader(server.url, key)(webhook.id, 0)
    expect(feed.map((e) => e.data.sequence)).toEqual([1])
  })
})
