import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { resolve } from "node:path"
import { FetchHttpClient } from "@effect/platform"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { scanAndSubscribe } from "../examples/scan-and-subscribe.js"
import {
  CustomSignalsTierRequired,
  InvalidQuery,
  makeVigilClient,
  Unauthenticated,
  UniverseNotFound,
  Vigil
} from "../src/client.js"
import { SAMPLE, type Service, startService } from "./support/inProcess.js"
import { admin, api, waitReady } from "./support/server.js"

const ROOT = resolve(import.meta.dirname, "..")
const EXAMPLE = "examples/scan-and-subscribe.ts"

const run = <A, E>(effect: Effect.Effect<A, E, any>): Promise<A> =>
  Effect.runPromise(effect.pipe(Effect.provide(FetchHttpClient.layer)) as Effect.Effect<A, E, never>)

/** The README's "Typed client" example, as shown to readers. */
const readmeExample = (): string => {
  const readme = readFileSync(resolve(ROOT, "README.md"), "utf8")
  const section = readme.split(/^## Typed client$/m)[1]
  if (section === undefined) throw new Error("README.md has no '## Typed client' section")
  const block = /```ts\n([\s\S]*?)```/.exec(section)
  if (block === null) throw new Error("the Typed client section has no ```ts block")
  return block[1]
}

describe("the typed client (HttpApiClient over VigilApi) against a real server", () => {
  let server: Service
  let receiver: Server
  let receiverUrl: string
  const newKey = async (plan: string) => {
    const r = await admin(server, "POST", "/admin/accounts", { plan })
    expect(r.status).toBe(201)
    return r.body.api_key as string
  }

  beforeAll(async () => {
    receiver = createServer((_req, res) => res.writeHead(200).end("ok"))
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r))
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
    server = await startService({ REFRESH_INTERVAL: "1h", WEBHOOK_ALLOW_INSECURE_TARGETS: "true" }, SAMPLE)
    await waitReady(server)
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()))
  })

  it("the README shows the example file verbatim", () => {
    expect(readmeExample()).toBe(readFileSync(resolve(ROOT, EXAMPLE), "utf8"))
  })

  it("runs the README example: scans, then subscribes a webhook the API then lists", async () => {
    const key = await newKey("pro")
    const { scan, webhook } = await run(scanAndSubscribe(server.url, key, receiverUrl))

    // the scan is the same as over plain HTTP, decoded
    const raw = await api(server, key, "/v2/scan", {
      method: "POST",
      body: JSON.stringify({ q: scan.query.q, order: "rsi_14", dir: "asc", limit: 10 })
    })
    expect(raw.status).toBe(200)
    expect(scan.query).toMatchObject({ order: "rsi_14", dir: "asc", limit: 10 })
    expect(scan.count).toBe(scan.results.length)
    expect(scan.count).toBeGreaterThan(0)
    expect(scan.results.map((r) => r.ticker)).toEqual(raw.body.results.map((r: any) => r.ticker))
    const rsi = scan.results.map((r) => r.rsi_14 as number)
    expect(rsi.every((v) => v < 40)).toBe(true)
    expect([...rsi].sort((a, b) => a - b)).toEqual(rsi)

    expect(webhook.id).toMatch(/^wh_/)
    expect(webhook).toMatchObject({
      name: "oversold large caps",
      q: scan.query.q,
      target_url: receiverUrl,
      channel: "webhook",
      status: "active"
    })
    expect(webhook.signing_secret).toMatch(/^whsec_/)
    const listed = await api(server, key, `/v2/webhooks/${webhook.id}`)
    expect(listed.status).toBe(200)
    expect(listed.body.q).toBe(scan.query.q)

    // and through the service form of the client
    const again = await Effect.runPromise(
      Effect.flatMap(Vigil, (vigil) => vigil.webhooks.get({ path: { id: webhook.id } })).pipe(
        Effect.provide(Vigil.layer(server.url, key))
      )
    )
    expect(again.id).toBe(webhook.id)
    expect(again.signing_secret).toBeUndefined()
  })

  it("reads a ticker, live and as of a date", async () => {
    const key = await newKey("pro")
    const vigil = makeVigilClient(server.url, key)
    const live = await run(Effect.flatMap(vigil, (c) => c.tickers.row({ path: { ticker: "aapl" }, urlParams: {} })))
    expect(live.ticker).toBe("AAPL")
    expect(live.data.ticker).toBe("AAPL")
    expect(typeof live.data.price).toBe("number")
    const raw = await api(server, key, "/v2/tickers/AAPL")
    expect(live.data).toEqual(raw.body.data)

    const asOf = await run(
      Effect.flatMap(vigil, (c) => c.tickers.row({ path: { ticker: "AAPL" }, urlParams: { asof: "2026-03-02" } }))
    )
    expect(asOf.as_of).toBe("2026-03-02")
    expect(asOf._meta?.resolution).toBe("daily")
    expect(String(asOf.data.date) <= "2026-03-02").toBe(true)
  })

  it("dry-runs a subscription and a stored webhook, answers equal to the raw API's (issue 16)", async () => {
    const key = await newKey("pro")
    const vigil = makeVigilClient(server.url, key)
    const fields = { ticker: "AAPL", condition: "rsi_14 < 50", fire_on: "both", from: "2026-06-01", to: "2026-09-30" }
    const typed = await run(Effect.flatMap(vigil, (c) => c.webhooks.dryRun({ payload: fields })))
    expect(typed.q).toBe("ticker = 'AAPL' AND (rsi_14 < 50)")
    expect(typed.evaluations).toBeGreaterThan(60)
    expect(typed.events.every((e) => e.tickers.join() === "AAPL")).toBe(true)
    const raw = await api(server, key, "/v2/webhooks/dry-run", { method: "POST", body: JSON.stringify(fields) })
    expect({ ...typed, as_of: null }).toEqual({ ...raw.body, as_of: null })
    const created = await run(
      Effect.flatMap(vigil, (c) =>
        c.webhooks.subscribeTicker({
          path: { ticker: "AAPL" },
          payload: { condition: "rsi_14 < 50", fire_on: "both", channel: "in_app" }
        })
      )
    )
    const stored = await run(
      Effect.flatMap(vigil, (c) =>
        c.webhooks.dryRunWebhook({ path: { id: created.id }, payload: { from: fields.from, to: fields.to } })
      )
    )
    expect({ ...stored, as_of: null }).toEqual({ ...typed, as_of: null })
  })

  it("backtests a screen, the answer equal to the raw API's (issue 17)", async () => {
    const key = await newKey("pro")
    const vigil = makeVigilClient(server.url, key)
    const payload = {
      q: "rsi_14 < 50",
      universe: "top_10",
      from: "2026-06-01",
      to: "2026-09-30",
      every: "1w",
      hold: "5d",
      order: "rsi_14",
      dir: "asc",
      limit: 3
    }
    const typed = await run(Effect.flatMap(vigil, (c) => c.scan.backtest({ payload })))
    expect(typed.periods.length).toBeGreaterThan(10)
    expect(typed.periods.every((p) => p.count <= 3)).toBe(true)
    const raw = await api(server, key, "/v2/scan/backtest", { method: "POST", body: JSON.stringify(payload) })
    expect({ ...typed, as_of: null }).toEqual({ ...raw.body, as_of: null })
  })

  it("scans with a custom signal: compiled with the account's signals, its expansion matching the same rows", async () => {
    const key = await newKey("pro")
    const vigil = makeVigilClient(server.url, key)
    const created = await run(
      Effect.flatMap(vigil, (c) =>
        c.signals.create({ payload: { name: "cheap_big", expr: "price < 50 AND market_cap > 10000000000" } })
      )
    )
    expect(created.signal.name).toBe("cheap_big")
    const scan = (q: string) =>
      run(Effect.flatMap(vigil, (c) => c.scan.scan({ payload: { q, order: "market_cap", limit: 100 } })))
    const viaSignal = await scan("cheap_big AND rsi_14 > 0")
    const expanded = await scan("(price < 50 AND market_cap > 10000000000) AND rsi_14 > 0")
    expect(viaSignal.total).toBeGreaterThan(0)
    expect(viaSignal.total).toBe(expanded.total)
    expect(viaSignal.results.map((r) => r.ticker)).toEqual(expanded.results.map((r) => r.ticker))

    // another account does not see it: an unknown name
    const other = await newKey("pro")
    const unknown = await run(
      Effect.flatMap(makeVigilClient(server.url, other), (c) => c.scan.scan({ payload: { q: "cheap_big" } })).pipe(
        Effect.flip
      )
    )
    expect(unknown).toBeInstanceOf(InvalidQuery)
    expect((unknown as InvalidQuery).code).toBe("invalid_query")

    // downgraded below Pro, the owner's scans that name it are refused, as the declared 403
    const account = (await admin(server, "POST", "/admin/accounts", { plan: "pro" })).body
    const owner = makeVigilClient(server.url, account.api_key)
    await run(Effect.flatMap(owner, (c) => c.signals.create({ payload: { name: "cheap", expr: "price < 20" } })))
    expect((await admin(server, "PATCH", `/admin/accounts/${account.account_id}`, { plan: "hobby" })).status).toBe(200)
    for (const urlParams of [{ q: "cheap" }, { q: "cheap AND price > 1", asof: "2024-03-01" }]) {
      const refused = await run(Effect.flatMap(owner, (c) => c.scan.scanGet({ urlParams })).pipe(Effect.flip))
      expect(refused).toBeInstanceOf(CustomSignalsTierRequired)
      expect(refused).toMatchObject({ _tag: "CustomSignalsTierRequired", code: "custom_signals_tier_required" })
    }
    const plain = await run(Effect.flatMap(owner, (c) => c.scan.scanGet({ urlParams: { q: "price < 20", limit: 1 } })))
    expect(plain.count).toBe(1)
  })

  it("decodes error envelopes into the typed error classes", async () => {
    const key = await newKey("pro")
    const vigil = makeVigilClient(server.url, key)

    const notFound = await run(
      Effect.flatMap(vigil, (c) => c.scan.scan({ payload: { q: "price > 1", universe: "no_such_universe" } })).pipe(
        Effect.flip
      )
    )
    expect(notFound).toBeInstanceOf(UniverseNotFound)
    expect(notFound).toMatchObject({ _tag: "UniverseNotFound", code: "universe_not_found" })
    expect((notFound as UniverseNotFound).message).toMatch(/no_such_universe/)

    const caught = await run(
      Effect.flatMap(vigil, (c) => c.tickers.row({ path: { ticker: "ZZZZQX" }, urlParams: {} })).pipe(
        Effect.map(() => "found"),
        Effect.catchTag("NotFound", (e) => Effect.succeed(`caught ${e.code}`))
      )
    )
    expect(caught).toBe("caught not_found")

    const bad = await run(Effect.flatMap(vigil, (c) => c.scan.scan({ payload: { q: "price >" } })).pipe(Effect.flip))
    expect(bad).toBeInstanceOf(InvalidQuery)
    expect((bad as InvalidQuery).code).toBe("invalid_query")
    expect(Array.isArray((bad as InvalidQuery).details?.errors)).toBe(true)

    const unauthenticated = await run(
      Effect.flatMap(makeVigilClient(server.url, "vigil_test_not-a-real-key"), (c) =>
        c.scan.scan({ payload: { q: "price > 1" } })
      ).pipe(Effect.flip)
    )
    expect(unauthenticated).toBeInstanceOf(Unauthenticated)
    expect((unauthenticated as Unauthenticated).code).toBe("unauthenticated")
  })
})
