import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SAMPLE, type Service, startService } from "../../support/inProcess.js"
import { type Received, startReceiver } from "../../support/receiver.js"
import { admin, api, expectError, waitReady } from "../../support/server.js"

const waitFor = async (check: () => boolean | Promise<boolean>, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error("condition not met in time")
}

const verify = (secret: string, r: Received) =>
  new Webhook(secret.slice("whsec_".length)).verify(r.body, r.headers as Record<string, string>) as any

describe("webhook subscriptions and delivery over HTTP", () => {
  let server: Service
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  const newAccount = async (plan: string) => (await admin(server, "POST", "/admin/accounts", { plan })).body
  const newKey = async (plan = "pro") => (await newAccount(plan)).api_key as string
  const call = (key: string, method: string, path: string, body?: unknown) =>
    api(server, key, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  const refresh = async () => {
    const r = await admin(server, "POST", "/admin/refresh")
    expect(r.status).toBe(200)
    return r.body.as_of as string
  }

  beforeAll(async () => {
    receiver = await startReceiver()
    server = await startService(
      {
        REFRESH_INTERVAL: "1h",
        WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
        WEBHOOK_RETRY_SCHEDULE: "1s,1s"
      },
      SAMPLE
    )
    await waitReady(server)
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await receiver?.close()
  })

  it("subscribes a ticker condition, sends nothing, then fires once per transition, signed", async () => {
    const key = await newKey()
    const sub = await call(key, "POST", "/v2/tickers/aapl/subscribe", {
      condition: "price > 0",
      target_url: receiver.url("/t1"),
      fields: "rsi_14"
    })
    expect(sub.status).toBe(200)
    expect(sub.body).toMatchObject({
      name: "AAPL: price > 0",
      q: "ticker = 'AAPL' AND (price > 0)",
      universe_id: null,
      cadence: "realtime",
      target_url: receiver.url("/t1"),
      channel: "webhook",
      delivery: "webhook",
      channel_config_present: false,
      status: "active",
      source: "v2",
      subscription_origin: { type: "ticker", ref: "AAPL", condition: "price > 0" },
      last_match_set: [],
      last_evaluated_at: null,
      last_fired: null,
      fields: ["rsi_14"]
    })
    // its actor runs, and the gauge says so without waiting for a refresh
    const metrics = await (await fetch(`${server.url}/metrics`)).text()
    expect(Number(/^webhook_actors_alive (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1)
    expect(sub.body.id).toMatch(/^wh_/)
    expect(sub.body.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    expect(sub.body.test_url).toBe(`/v2/webhooks/${sub.body.id}/test`)
    const id = sub.body.id as string
    await new Promise((r) => setTimeout(r, 300))
    expect(receiver.at("/t1")).toHaveLength(0)

    const asOf = await refresh()
    await waitFor(() => receiver.at("/t1").length >= 1)
    // the tick is committed: how long ago (read at the scrape), its slices and their step times
    const after = await (await fetch(`${server.url}/metrics`)).text()
    expect(Number(/^webhook_slices_owned (\d+)$/m.exec(after)?.[1])).toBeGreaterThanOrEqual(1)
    const lag = Number(/^webhook_tick_lag_seconds (\S+)$/m.exec(after)?.[1])
    expect(lag).toBeGreaterThanOrEqual(0)
    expect(lag).toBeLessThan(60)
    expect(Number(/^webhook_slice_evaluation_duration_seconds_count (\d+)$/m.exec(after)?.[1])).toBeGreaterThanOrEqual(
      1
    )
    // Effect's own fiber metrics
    expect(Number(/^effect_fiber_started(?:\{[^}]*\})? (\d+)$/m.exec(after)?.[1])).toBeGreaterThan(0)
    expect(after).toMatch(/^effect_fiber_active(?:\{[^}]*\})? \d+$/m)
    const first = receiver.at("/t1")[0]!
    const event = verify(sub.body.signing_secret, first)
    expect(event.type).toBe("webhook.fired")
    expect(event.data).toMatchObject({ webhook_id: id, name: "AAPL: price > 0", test: false, as_of: asOf })
    expect(event.data.matches).toHaveLength(1)
    expect(Object.keys(event.data.matches[0]).sort()).toEqual(
      ["ticker", "name", "asset_type", "price", "day_change_pct", "market_cap", "rsi_14"].sort()
    )
    expect(event.data.matches[0].ticker).toBe("AAPL")
    expect(first.headers["webhook-id"]).toMatch(/^msg_/)

    // the next refresh: AAPL still matches, nothing new
    await refresh()
    await new Promise((r) => setTimeout(r, 500))
    expect(receiver.at("/t1")).toHaveLength(1)

    const got = await call(key, "GET", `/v2/webhooks/${id}`)
    expect(got.status).toBe(200)
    expect(got.body.signing_secret).toBeUndefined()
    expect(got.body.test_url).toBeUndefined()
    expect(got.body.last_match_set).toEqual(["AAPL"])
    expect(got.body.last_fired).toBeGreaterThan(0)
    expect(got.body.last_evaluated_at).toBeGreaterThanOrEqual(got.body.last_fired)
    const deliveries = await call(key, "GET", `/v2/webhooks/${id}/deliveries`)
    expect(deliveries.body.count).toBe(1)
    expect(deliveries.body.deliveries[0]).toMatchObject({
      webhook_id: id,
      event: "webhook.fired",
      status: "delivered",
      attempt: 1,
      last_status_code: 200,
      test: false,
      event_id: first.headers["webhook-id"]
    })
    expect(deliveries.body.deliveries[0].delivered_at).toBeGreaterThan(0)
  }, 60_000)

  it("scopes every webhook to its account and gates plans", async () => {
    const key = await newKey()
    const other = await newKey()
    const sub = await call(key, "POST", "/v2/tickers/msft/subscribe", { condition: "price > 0" })
    expect(sub.status).toBe(200)
    expect(sub.body.channel).toBe("in_app")
    expect(sub.body.signing_secret).toBeUndefined()
    expectError(await call(other, "GET", `/v2/webhooks/${sub.body.id}`), 404, "not_found")
    expectError(await call(other, "DELETE", `/v2/webhooks/${sub.body.id}`), 404, "not_found")
    expectError(await call(other, "GET", `/v2/webhooks/${sub.body.id}/deliveries`), 404, "not_found")
    expectError(await call(key, "GET", "/v2/webhooks/nope"), 400, "bad_request")
    expectError(
      await call(await newKey("free"), "POST", "/v2/tickers/msft/subscribe", { condition: "price > 0" }),
      403,
      "webhook_tier_required"
    )
    expectError(
      await call(await newKey("none"), "POST", "/v2/tickers/msft/subscribe", { condition: "price > 0" }),
      402,
      "subscription_required"
    )
    const list = await call(other, "GET", "/v2/webhooks")
    expect(list.body.webhooks).toEqual([])
  })

  it("stores a ticker subscription's q as ticker = '<TICKER>' AND (<condition>), whatever the condition's precedence", async () => {
    const key = await newKey()
    const q = async (condition: string) => {
      const res = await call(key, "POST", "/v2/tickers/aapl/subscribe", { condition })
      expect(res.status, condition).toBe(200)
      return res.body.q as string
    }
    expect(await q("price < 0")).toBe("ticker = 'AAPL' AND (price < 0)")
    expect(await q("(price < 0)")).toBe("ticker = 'AAPL' AND (price < 0)")
    expect(await q("price > 1 or rsi_14 < 30")).toBe("ticker = 'AAPL' AND (price > 1 OR rsi_14 < 30)")
    expect(await q("NOT gap_up")).toBe("ticker = 'AAPL' AND (NOT gap_up)")
    // the condition is one expression: it cannot close the parentheses and widen the subscription
    expectError(
      await call(key, "POST", "/v2/tickers/aapl/subscribe", { condition: "price < 0) OR (price > 0" }),
      400,
      "invalid_query"
    )
  })

  it("validates subscriptions", async () => {
    const key = await newKey()
    const sub = (path: string, body: unknown) => call(key, "POST", path, body)
    expectError(await sub("/v2/tickers/aapl/subscribe", {}), 400, "bad_request")
    expectError(await sub("/v2/tickers/zzzzzz/subscribe", { condition: "price > 1" }), 404, "not_found")
    expectError(await sub("/v2/tickers/aapl/subscribe", { condition: "pricey > 1" }), 400, "invalid_query")
    expectError(await sub("/v2/tickers/aapl/subscribe", { condition: "price > 1", cadence: "5m" }), 400, "bad_request")
    expectError(
      await sub("/v2/tickers/aapl/subscribe", { condition: "price > 1", channel: "slack" }),
      501,
      "channel_not_implemented"
    )
    expectError(
      await sub("/v2/tickers/aapl/subscribe", { condition: "price > 1", target_url: "ftp://example.com/x" }),
      400,
      "bad_request"
    )
    expectError(await sub("/v2/tickers/aapl/subscribe", { condition: "price > 1", fields: "nope" }), 400, "bad_request")
    expectError(
      await sub("/v2/tickers/aapl/subscribe", { condition: "price > 1", channel: "mobile_push" }),
      400,
      "bad_request"
    )
    expectError(
      await sub("/v2/tickers/aapl/subscribe", { condition: "price > 1", name: "x".repeat(81) }),
      400,
      "bad_request"
    )
    expectError(await sub("/v2/tickers/aapl/subscribe", { condition: "price > 1", bogus: 1 }), 400, "bad_request")
    const alias = await sub("/v2/tickers/aapl/subscribe", { condition: "price > 1", cadence: "1m" })
    expect(alias.body.cadence).toBe("realtime")
    expectError(await sub("/v2/signals/nope_nope/subscribe", {}), 404, "unknown_signal")
    expectError(await sub("/v2/signals/rsi_14/subscribe", {}), 400, "bad_request")
    expectError(await sub("/v2/signals/rsi_14/subscribe", { condition: "about 70" }), 400, "bad_request")
    expectError(await sub("/v2/signals/name/subscribe", {}), 404, "unknown_signal")
    expectError(await sub("/v2/webhooks", { q: "price > 1", rule_id: "rule_x" }), 400, "bad_request")
    expectError(await sub("/v2/webhooks", { q: "price > 1", universe: "nope" }), 404, "universe_not_found")
    expectError(await sub("/v2/webhooks", { rule_id: "rule_missing" }), 404, "not_found")
  })

  it("subscribes signals: boolean, numeric with condition, custom signals frozen at creation", async () => {
    const account = await newAccount("pro")
    const key = account.api_key as string
    const flag = await call(key, "POST", "/v2/signals/Golden_Cross/subscribe", { universe: "top_100" })
    expect(flag.status).toBe(200)
    expect(flag.body).toMatchObject({
      name: "golden_cross",
      q: "golden_cross = TRUE",
      universe_id: "top_100",
      subscription_origin: { type: "signal", ref: "golden_cross", condition: "golden_cross" }
    })
    const numeric = await call(key, "POST", "/v2/signals/rsi_14/subscribe", { condition: ">70", ticker: "nvda" })
    expect(numeric.body).toMatchObject({
      name: "rsi_14 > 70",
      q: "ticker = 'NVDA' AND (rsi_14 > 70)",
      subscription_origin: { type: "signal", ref: "rsi_14", condition: ">70" }
    })
    expect((await call(key, "POST", "/v2/signals", { name: "cheap", expr: "price < 20" })).status).toBe(201)
    const custom = await call(key, "POST", "/v2/signals/cheap/subscribe", {})
    expect(custom.status).toBe(200)
    expect(custom.body.q).toBe("(price < 20) = TRUE")
    expect((await call(key, "PATCH", "/v2/signals/cheap", { expr: "price < 5" })).status).toBe(200)
    expect((await call(key, "GET", `/v2/webhooks/${custom.body.id}`)).body.q).toBe("(price < 20) = TRUE")
    const viaQ = await call(key, "POST", "/v2/webhooks", { q: "cheap AND volume_today > 0", cadence: "hourly" })
    expect(viaQ.status).toBe(201)
    expect(viaQ.body).toMatchObject({
      cadence: "hourly",
      subscription_origin: { type: "query", ref: null, condition: "cheap AND volume_today > 0" }
    })
    expect(viaQ.body.q).not.toContain("cheap")
    expect(viaQ.body.test_url).toBeUndefined()
    const rule = await call(key, "POST", "/v2/rules", { name: "r", q: "price > 100", universe: "top_10" })
    const viaRule = await call(key, "POST", "/v2/webhooks", { rule_id: rule.body.id })
    expect(viaRule.body).toMatchObject({
      q: "price > 100",
      universe_id: "top_10",
      subscription_origin: { type: "query", ref: rule.body.id }
    })
    const page = await call(key, "GET", "/v2/webhooks?limit=2")
    expect(page.body.count).toBe(2)
    const rest = await call(key, "GET", `/v2/webhooks?limit=2&cursor=${page.body.next_cursor}`)
    const all = [...page.body.webhooks, ...rest.body.webhooks].map((w: any) => w.id)
    expect(new Set(all).size).toBe(all.length)
    expectError(await call(key, "GET", `/v2/webhooks?limit=3&cursor=${page.body.next_cursor}`), 400, "bad_request")
    // below Pro, custom signals cannot be consumed
    expect((await admin(server, "PATCH", `/admin/accounts/${account.account_id}`, { plan: "hobby" })).status).toBe(200)
    expectError(await call(key, "POST", "/v2/signals/cheap/subscribe", {}), 403, "custom_signals_tier_required")
    expectError(await call(key, "POST", "/v2/webhooks", { q: "cheap" }), 403, "custom_signals_tier_required")
  })

  it("caps webhooks per plan and disables the newest beyond the cap on a downgrade", async () => {
    const account = await newAccount("hobby")
    const key = account.api_key as string
    const ids: Array<string> = []
    for (let i = 0; i < 10; i++) {
      const r = await call(key, "POST", "/v2/tickers/aapl/subscribe", { condition: `price > ${i}` })
      expect(r.status).toBe(200)
      ids.push(r.body.id)
    }
    expectError(
      await call(key, "POST", "/v2/tickers/aapl/subscribe", { condition: "price > 99" }),
      403,
      "webhook_limit_reached"
    )
    expect((await admin(server, "PATCH", `/admin/accounts/${account.account_id}`, { plan: "pro" })).status).toBe(200)
    for (let i = 0; i < 2; i++) {
      const r = await call(key, "POST", "/v2/tickers/aapl/subscribe", { condition: `price > ${100 + i}` })
      ids.push(r.body.id)
    }
    expect((await admin(server, "PATCH", `/admin/accounts/${account.account_id}`, { plan: "hobby" })).status).toBe(200)
    const statuses = await Promise.all(
      ids.map(async (id) => (await call(key, "GET", `/v2/webhooks/${id}`)).body.status)
    )
    expect(statuses).toEqual([...Array(10).fill("active"), "disabled", "disabled"])
    const kept = await call(key, "GET", `/v2/webhooks/${ids[11]}`)
    expect(kept.body.q).toBe("ticker = 'AAPL' AND (price > 101)")
    expectError(await call(key, "POST", `/v2/webhooks/${ids[11]}/enable`), 403, "webhook_limit_reached")
    expect((await call(key, "DELETE", `/v2/webhooks/${ids[0]}`)).body).toEqual({ ok: true })
    expectError(await call(key, "GET", `/v2/webhooks/${ids[0]}`), 404, "not_found")
    const enabled = await call(key, "POST", `/v2/webhooks/${ids[11]}/enable`)
    expect(enabled.body.status).toBe("active")
  })

  it("64 creates racing at the Hobby cap: exactly 10 made, every other refused (issue 13)", async () => {
    const key = await newKey("hobby")
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        call(key, "POST", "/v2/webhooks", { q: `price > ${i}`, channel: "in_app", name: `race ${i}` })
      )
    )
    const made = results.filter((r) => r.status === 201)
    expect(made).toHaveLength(10)
    for (const r of results.filter((r) => r.status !== 201)) expectError(r, 403, "webhook_limit_reached")
    const listed = await call(key, "GET", "/v2/webhooks?limit=100")
    expect(listed.body.webhooks.map((w: { id: string }) => w.id).sort()).toEqual(made.map((r) => r.body.id).sort())
    // each answer is the webhook as read back (next_eval_at moves with the clock)
    for (const r of made) {
      const read = await call(key, "GET", `/v2/webhooks/${r.body.id}`)
      expect(read.body).toEqual({ ...r.body, next_eval_at: read.body.next_eval_at })
    }
  })

  it("creates keep the Idempotency-Key rules when sent together: one webhook per key (issue 13)", async () => {
    const key = await newKey("pro")
    const send = (idempotencyKey: string, body: unknown) =>
      api(server, key, "/v2/webhooks", {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "idempotency-key": idempotencyKey }
      })
    const body = { q: "price > 1", channel: "in_app", name: "once" }
    const together = await Promise.all(Array.from({ length: 16 }, () => send("create-once", body)))
    const created = together.filter((r) => r.status === 201)
    // the first made it; the others were told it is running (409) or got its answer again
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1)
    for (const r of together.filter((r) => r.status !== 201)) expectError(r, 409, "idempotency_key_in_progress")
    const replay = await send("create-once", body)
    expect(replay.status).toBe(201)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.body.id).toBe(created[0]!.body.id)
    expectError(await send("create-once", { ...body, name: "other" }), 422, "idempotency_key_reused")
    // distinct keys sent together: one webhook each
    const distinct = await Promise.all(Array.from({ length: 16 }, (_, i) => send(`create-${i}`, body)))
    expect(distinct.map((r) => r.status)).toEqual(Array(16).fill(201))
    expect(new Set(distinct.map((r) => r.body.id)).size).toBe(16)
    const listed = await call(key, "GET", "/v2/webhooks?limit=100")
    expect(listed.body.count).toBe(17)
  })

  it("disable stops firing; enable clears the match set and fires once with every current match", async () => {
    const key = await newKey()
    const sub = await call(key, "POST", "/v2/webhooks", {
      q: "ticker IN ('AAPL', 'MSFT', 'NVDA') AND price > 0",
      target_url: receiver.url("/t2")
    })
    const id = sub.body.id
    await refresh()
    await waitFor(() => receiver.at("/t2").length === 1)
    expect(verify(sub.body.signing_secret, receiver.at("/t2")[0]!).data.match_count).toBe(3)
    const disabled = await call(key, "POST", `/v2/webhooks/${id}/disable`)
    expect(disabled.body).toMatchObject({ status: "disabled", next_eval_at: null })
    await refresh()
    const enabled = await call(key, "POST", `/v2/webhooks/${id}/enable`)
    expect(enabled.body).toMatchObject({ status: "active", last_match_set: [], last_evaluated_at: null })
    expect((await call(key, "POST", `/v2/webhooks/${id}/enable`)).body.status).toBe("active")
    await refresh()
    await waitFor(() => receiver.at("/t2").length === 2)
    const again = verify(sub.body.signing_secret, receiver.at("/t2")[1]!)
    expect(again.data.match_count).toBe(3)
    expect(again.data.matches.map((m: any) => m.ticker).sort()).toEqual(["AAPL", "MSFT", "NVDA"])
    expect(receiver.at("/t2")[1]!.headers["webhook-id"]).not.toBe(receiver.at("/t2")[0]!.headers["webhook-id"])
  }, 60_000)

  it("retries per the schedule, then fails permanently and disables; a manual retry keeps the event id", async () => {
    const key = await newKey()
    receiver.respond("/down", 500)
    const sub = await call(key, "POST", "/v2/tickers/aapl/subscribe", {
      condition: "price > 0",
      target_url: receiver.url("/down")
    })
    const id = sub.body.id
    await refresh()
    // WEBHOOK_RETRY_SCHEDULE=1s,1s: three POSTs, then permanent_failure
    await waitFor(async () => (await call(key, "GET", `/v2/webhooks/${id}`)).body.status === "disabled", 20_000)
    const posts = receiver.at("/down")
    expect(posts).toHaveLength(3)
    expect(new Set(posts.map((p) => p.headers["webhook-id"])).size).toBe(1)
    for (const p of posts) verify(sub.body.signing_secret, p)
    const d = (await call(key, "GET", `/v2/webhooks/${id}/deliveries`)).body.deliveries[0]
    expect(d).toMatchObject({ status: "permanent_failure", attempt: 3, last_status_code: 500, next_attempt_at: null })
    expect((await call(key, "GET", `/v2/webhooks/${id}`)).body.disabled_reason).toBe("delivery_failed")
    const failedOnly = await call(key, "GET", `/v2/webhooks/${id}/deliveries?status=permanent_failure`)
    expect(failedOnly.body.count).toBe(1)
    expectError(await call(key, "GET", `/v2/webhooks/${id}/deliveries?status=weird`), 400, "bad_request")

    receiver.respond("/down", 200)
    const retried = await call(key, "POST", `/v2/webhooks/${id}/deliveries/${d.id}/retry`)
    expect(retried.status).toBe(200)
    expect(retried.body.status).toBe("pending")
    await waitFor(() => receiver.at("/down").length === 4)
    expect(receiver.at("/down")[3]!.headers["webhook-id"]).toBe(posts[0]!.headers["webhook-id"])
    await waitFor(
      async () => (await call(key, "GET", `/v2/webhooks/${id}/deliveries`)).body.deliveries[0].status === "delivered"
    )
    expectError(await call(key, "POST", `/v2/webhooks/${id}/deliveries/${d.id}/retry`), 409, "delivery_not_failed")
  }, 60_000)

  it("a 410 Gone disables at once; test pings are sent once and never disable", async () => {
    const key = await newKey()
    receiver.respond("/gone", 410)
    const sub = await call(key, "POST", "/v2/tickers/aapl/subscribe", {
      condition: "price > 0",
      target_url: receiver.url("/gone")
    })
    const test = await call(key, "POST", `/v2/webhooks/${sub.body.id}/test`)
    expect(test.status).toBe(202)
    expect(test.body.delivery).toMatchObject({ test: true, status: "pending" })
    await waitFor(() => receiver.at("/gone").length === 1)
    const ping = verify(sub.body.signing_secret, receiver.at("/gone")[0]!)
    expect(ping.data.test).toBe(true)
    expect(ping.data.matches[0].ticker).toBe("AAPL")
    await new Promise((r) => setTimeout(r, 300))
    expect((await call(key, "GET", `/v2/webhooks/${sub.body.id}`)).body.status).toBe("active")
    await refresh()
    await waitFor(async () => (await call(key, "GET", `/v2/webhooks/${sub.body.id}`)).body.status === "disabled")
    expect(receiver.at("/gone")).toHaveLength(2)
    expect((await call(key, "GET", `/v2/webhooks/${sub.body.id}`)).body.disabled_reason).toBe("gone")
  }, 60_000)

  it("a test ping racing the webhook's deletion answers 202 or 404, never 5xx", async () => {
    const key = await newKey("scale")
    const subs = await Promise.all(
      Array.from({ length: 24 }, (_, k) =>
        call(key, "POST", "/v2/tickers/aapl/subscribe", {
          condition: `price > ${k}`,
          target_url: receiver.url("/race")
        })
      )
    )
    const answers = await Promise.all(
      subs.flatMap((sub) => [
        call(key, "DELETE", `/v2/webhooks/${sub.body.id}`),
        call(key, "POST", `/v2/webhooks/${sub.body.id}/test`)
      ])
    )
    const tests = answers.filter((_, k) => k % 2 === 1)
    for (const t of tests) {
      expect([202, 404], JSON.stringify(t.body)).toContain(t.status)
      if (t.status === 404) expect(t.body.error.code).toBe("not_found")
    }
    for (const d of answers.filter((_, k) => k % 2 === 0)) expect(d.status).toBe(200)
  }, 60_000)

  it("rotates the signing secret with an overlap in which both sign", async () => {
    const key = await newKey()
    const sub = await call(key, "POST", "/v2/tickers/aapl/subscribe", {
      condition: "price > 0",
      target_url: receiver.url("/rot")
    })
    const rotated = await call(key, "POST", `/v2/webhooks/${sub.body.id}/rotate-secret`)
    expect(rotated.status).toBe(200)
    expect(rotated.body.signing_secret).toMatch(/^whsec_/)
    expect(rotated.body.signing_secret).not.toBe(sub.body.signing_secret)
    expect(rotated.body.webhook.signing_secret).toBeUndefined()
    await call(key, "POST", `/v2/webhooks/${sub.body.id}/test`)
    await waitFor(() => receiver.at("/rot").length === 1)
    const r = receiver.at("/rot")[0]!
    expect(String(r.headers["webhook-signature"]).split(" ")).toHaveLength(2)
    verify(sub.body.signing_secret, r)
    verify(rotated.body.signing_secret, r)
  })

  it("delivers to chat, the in-app inbox and mobile push", async () => {
    const key = await newKey()
    const chat = await call(key, "POST", "/v2/tickers/aapl/subscribe", {
      condition: "price > 0",
      chat_url: receiver.url("/chat")
    })
    expect(chat.body).toMatchObject({ channel: "chat", target_url: null, channel_config_present: true })
    expect(JSON.stringify(chat.body)).not.toContain("/chat")
    const inbox = await call(key, "POST", "/v2/tickers/msft/subscribe", { condition: "price > 0" })
    expect(inbox.body.channel).toBe("in_app")
    const device = await call(key, "POST", "/v2/devices/register", { platform: "ios", token: "apns-token-1234567890" })
    expect(device.status).toBe(201)
    expect(
      (await call(key, "POST", "/v2/devices/register", { platform: "ios", token: "apns-token-1234567890" })).body
        .device_id
    ).toBe(device.body.device_id)
    const push = await call(key, "POST", "/v2/tickers/nvda/subscribe", {
      condition: "price > 0",
      channel: "mobile_push",
      device_id: device.body.device_id
    })
    expect(push.status).toBe(200)
    await refresh()
    await waitFor(() => receiver.at("/chat").length === 1)
    const message = JSON.parse(receiver.at("/chat")[0]!.body)
    expect(message.text).toContain("AAPL")
    await waitFor(async () => (await call(key, "GET", "/v2/notifications")).body.count === 1)
    const notes = await call(key, "GET", "/v2/notifications")
    expect(notes.body).toMatchObject({ unread_count: 1 })
    expect(notes.body.notifications[0]).toMatchObject({ webhook_id: inbox.body.id, read: false })
    expect(notes.body.notifications[0].event.data.matches[0].ticker).toBe("MSFT")
    expect((await call(key, "POST", "/v2/notifications/read", {})).body.marked).toBe(1)
    expect((await call(key, "GET", "/v2/notifications?unread=true")).body.count).toBe(0)
    await waitFor(
      async () =>
        (await call(key, "GET", `/v2/webhooks/${push.body.id}/deliveries`)).body.deliveries[0]?.status === "delivered"
    )
    const pushed = (await call(key, "GET", `/v2/webhooks/${push.body.id}/deliveries`)).body.deliveries[0]
    expect(pushed.target_url).toBe(`push:${device.body.device_id}`)
    const chatDelivery = (await call(key, "GET", `/v2/webhooks/${chat.body.id}/deliveries`)).body.deliveries[0]
    expect(chatDelivery.target_url).toBe("chat")
  }, 60_000)

  it("changes name, target, cadence and fields", async () => {
    const key = await newKey()
    const sub = await call(key, "POST", "/v2/tickers/aapl/subscribe", {
      condition: "price > 0",
      target_url: receiver.url("/p1")
    })
    const patched = await call(key, "PATCH", `/v2/webhooks/${sub.body.id}`, {
      name: "renamed",
      target_url: receiver.url("/p2"),
      cadence: "exchange_open",
      fields: ["pe_ratio"]
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({
      name: "renamed",
      target_url: receiver.url("/p2"),
      cadence: "exchange_open",
      fields: ["pe_ratio"]
    })
    expectError(await call(key, "PATCH", `/v2/webhooks/${sub.body.id}`, { cadence: "15m" }), 400, "bad_request")
    expectError(
      await call(key, "PATCH", `/v2/webhooks/${sub.body.id}`, { chat_url: receiver.url("/x") }),
      400,
      "bad_request"
    )
    expectError(await call(key, "PATCH", `/v2/webhooks/${sub.body.id}`, { q: "price > 1" }), 400, "bad_request")
  })

  it("refuses the same settings with the same 400 on create and on update (one set of rules)", async () => {
    const key = await newKey()
    const made = await call(key, "POST", "/v2/webhooks", { q: "price > 1", target_url: receiver.url("/same") })
    expect(made.status).toBe(201)
    const cases: ReadonlyArray<Record<string, unknown>> = [
      { name: "   " },
      { name: "n".repeat(81) },
      { cadence: "5m" },
      { cadence: "weekly" },
      { fields: "no_such_column" },
      { target_url: "ftp://example.com/hook" }
    ]
    for (const bad of cases) {
      const created = await call(key, "POST", "/v2/webhooks", {
        q: "price > 1",
        target_url: receiver.url("/same"),
        ...bad
      })
      const updated = await call(key, "PATCH", `/v2/webhooks/${made.body.id}`, bad)
      expectError(created, 400, "bad_request")
      expectError(updated, 400, "bad_request")
      expect(updated.body.error.message, JSON.stringify(bad)).toBe(created.body.error.message)
    }
  })
  it("firing options (issue 16): defaults on every record, set on every create endpoint and by PATCH, shown normalized", async () => {
    const key = await newKey()
    const plain = await call(key, "POST", "/v2/webhooks", { q: "price > 1" })
    expect(plain.status).toBe(201)
    expect(plain.body).toMatchObject({
      fire_on: "enter",
      pending_for: "0s",
      clear_q: null,
      cooldown: "0s",
      repeat_interval: null,
      snoozed_until: null
    })
    const options = {
      fire_on: "both",
      pending_for: "300s",
      clear_q: "rsi_14>40",
      cooldown: "24h",
      repeat_interval: "90m"
    }
    const shown = {
      fire_on: "both",
      pending_for: "5m",
      clear_q: "rsi_14 > 40",
      cooldown: "1d",
      repeat_interval: "90m"
    }
    const made = [
      await call(key, "POST", "/v2/webhooks", { q: "rsi_14 < 30", ...options }),
      await call(key, "POST", "/v2/tickers/AAPL/subscribe", { condition: "rsi_14 < 30", ...options }),
      await call(key, "POST", "/v2/signals/rsi_14/subscribe", { condition: "<30", ...options })
    ]
    for (const r of made) {
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(300)
      expect(r.body).toMatchObject(shown)
      expect((await call(key, "GET", `/v2/webhooks/${r.body.id}`)).body).toMatchObject(shown)
    }
    const edited = await call(key, "PATCH", `/v2/webhooks/${plain.body.id}`, {
      fire_on: "EXIT",
      repeat_interval: "2h",
      clear_q: "price < 1"
    })
    expect(edited.status).toBe(200)
    expect(edited.body).toMatchObject({ fire_on: "exit", repeat_interval: "2h", clear_q: "price < 1", cooldown: "0s" })
    const cleared = await call(key, "PATCH", `/v2/webhooks/${plain.body.id}`, { repeat_interval: null, clear_q: null })
    expect(cleared.body).toMatchObject({ fire_on: "exit", repeat_interval: null, clear_q: null })
  })

  it("refuses bad firing options with the same error on create and on update; clear_q follows q's rules", async () => {
    const key = await newKey()
    const made = await call(key, "POST", "/v2/webhooks", { q: "price > 1" })
    const cases: ReadonlyArray<readonly [Record<string, unknown>, number, string, RegExp]> = [
      [{ fire_on: "sometimes" }, 400, "bad_request", /fire_on must be enter, exit or both/],
      [{ pending_for: "5 minutes" }, 400, "bad_request", /pending_for must be a duration/],
      [{ pending_for: "2d" }, 400, "bad_request", /pending_for must be between 0s and 1d/],
      [{ cooldown: "-1m" }, 400, "bad_request", /cooldown must be a duration/],
      [{ cooldown: "31d" }, 400, "bad_request", /cooldown must be between 0s and 30d/],
      [{ repeat_interval: "0s" }, 400, "bad_request", /repeat_interval must be between 1s and 30d/],
      [{ clear_q: "" }, 400, "bad_request", /clear_q must not be empty/],
      [{ clear_q: "price >" }, 400, "invalid_query", /clear_q/],
      [{ clear_q: "x".repeat(4001) }, 400, "invalid_query", /clear_q is 4001 characters/]
    ]
    for (const [bad, status, code, message] of cases) {
      const created = await call(key, "POST", "/v2/webhooks", { q: "price > 1", ...bad })
      const updated = await call(key, "PATCH", `/v2/webhooks/${made.body.id}`, bad)
      expectError(created, status, code)
      expectError(updated, status, code)
      expect(created.body.error.message).toMatch(message)
      expect(updated.body.error.message, JSON.stringify(bad)).toBe(created.body.error.message)
    }
    // nothing half-written: the webhook kept its options
    expect((await call(key, "GET", `/v2/webhooks/${made.body.id}`)).body).toMatchObject({
      fire_on: "enter",
      clear_q: null
    })
    // a custom signal in clear_q is frozen for Pro, refused once downgraded
    const account = await newAccount("pro")
    const pro = account.api_key as string
    expect((await call(pro, "POST", "/v2/signals", { name: "calm", expr: "rsi_14 > 40" })).status).toBe(201)
    const frozen = await call(pro, "POST", "/v2/webhooks", { q: "rsi_14 < 30", clear_q: "calm" })
    expect(frozen.status).toBe(201)
    expect(frozen.body.clear_q).toBe("(rsi_14 > 40)")
    expect((await admin(server, "PATCH", `/admin/accounts/${account.account_id}`, { plan: "hobby" })).status).toBe(200)
    expectError(
      await call(pro, "PATCH", `/v2/webhooks/${frozen.body.id}`, { clear_q: "calm" }),
      403,
      "custom_signals_tier_required"
    )
  })
  it("the event feed: every event numbered, snoozed ones suppressed and not delivered, bodies as sent (issue 16)", async () => {
    const key = await newKey()
    expect(
      (await call(key, "POST", "/v2/universes", { id: "feed", name: "Feed", tickers: ["AAPL", "MSFT"] })).status
    ).toBe(201)
    const made = await call(key, "POST", "/v2/webhooks", {
      q: "price > 0",
      universe: "feed",
      fire_on: "both",
      target_url: receiver.url("/feed")
    })
    expect(made.status).toBe(201)
    const id = made.body.id as string
    const events = async (query = "") => {
      const r = await call(key, "GET", `/v2/webhooks/${id}/events${query}`)
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      return r.body
    }
    expect(await events()).toMatchObject({ oldest_sequence: null, count: 0, next_cursor: null, events: [] })

    await refresh()
    await waitFor(() => receiver.at("/feed").length === 1)
    const first = JSON.parse(receiver.at("/feed")[0]!.body)
    expect(first).toMatchObject({ type: "webhook.fired", data: { sequence: 1, match_count: 2 } })
    expect(first.data.data_as_of).toMatch(/^\d{4}-\d{2}-\d{2}T/)

    const until = new Date(Date.now() + 3_600_000).toISOString()
    const snoozed = await call(key, "POST", `/v2/webhooks/${id}/snooze`, { until })
    expect(snoozed.status).toBe(200)
    expect(snoozed.body.snoozed_until).toBe(Math.floor(Date.parse(until) / 1000))
    expect((await call(key, "PATCH", "/v2/universes/feed", { remove: ["MSFT"] })).status).toBe(200)
    await refresh()
    const woken = await call(key, "DELETE", `/v2/webhooks/${id}/snooze`)
    expect(woken.body.snoozed_until).toBeNull()
    expect((await call(key, "PATCH", "/v2/universes/feed", { add: ["MSFT"] })).status).toBe(200)
    await refresh()
    await waitFor(() => receiver.at("/feed").length === 2)

    const feed = await events()
    expect(feed).toMatchObject({ oldest_sequence: 1, count: 3, next_cursor: null })
    expect(feed.events.map((e: any) => [e.sequence, e.type, e.suppressed])).toEqual([
      [1, "webhook.fired", false],
      [2, "webhook.cleared", true],
      [3, "webhook.fired", false]
    ])
    expect(feed.events[1].body.data.matches.map((m: any) => m.ticker)).toEqual(["MSFT"])
    // the bodies, byte for byte what the receiver got; the suppressed one was never sent
    expect(receiver.at("/feed").map((r) => r.body)).toEqual([
      JSON.stringify(feed.events[0].body),
      JSON.stringify(feed.events[2].body)
    ])
    const page = await events("?after=1&limit=1")
    expect(page).toMatchObject({ count: 1, next_cursor: "2" })
    expect(page.events[0].sequence).toBe(2)
    expect((await events("?after=3")).count).toBe(0)

    for (const [query, message] of [
      ["?after=-1", /after must be/],
      ["?limit=101", /limit must be an integer from 1 to 100/],
      ["?after=x", /after/],
      ["?since=1", /since/]
    ] as const) {
      const r = await call(key, "GET", `/v2/webhooks/${id}/events${query}`)
      expectError(r, 400, "bad_request")
      expect(r.body.error.message).toMatch(message)
    }
    for (const [until, message] of [
      [new Date(Date.now() - 60_000).toISOString(), /in the future/],
      [Math.floor(Date.now() / 1000) + 31 * 86_400, /at most 30 days ahead/],
      ["tomorrow", /ISO 8601 time .* or epoch seconds/]
    ] as const) {
      const r = await call(key, "POST", `/v2/webhooks/${id}/snooze`, { until })
      expectError(r, 400, "bad_request")
      expect(r.body.error.message).toMatch(message)
    }
    expectError(await call(key, "POST", `/v2/webhooks/${id}/snooze`, {}), 400, "bad_request")
    // another account's webhook: 404, for the feed and the snooze alike
    const other = await newKey()
    expectError(await call(other, "GET", `/v2/webhooks/${id}/events`), 404, "not_found")
    expectError(await call(other, "POST", `/v2/webhooks/${id}/snooze`, { until }), 404, "not_found")
    expectError(await call(other, "DELETE", `/v2/webhooks/${id}/snooze`), 404, "not_found")
  })
  it("creates webhooks in bulk: all or nothing, the first bad item named, the cap for the whole batch, idempotent (issue 16)", async () => {
    const key = await newKey()
    expect((await call(key, "POST", "/v2/universes", { id: "bulk", name: "Bulk", tickers: ["AAPL"] })).status).toBe(201)
    const count = async () => (await call(key, "GET", "/v2/webhooks?limit=100")).body.count as number
    const good = [
      { q: "price > 1" },
      { q: "rsi_14 < 30", universe: "bulk", fire_on: "both", target_url: receiver.url("/bulk") },
      { q: "price > 2", name: "third", cooldown: "1h" }
    ]
    const made = await call(key, "POST", "/v2/webhooks/batch", { webhooks: good })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    expect(made.body.webhooks.map((w: any) => [w.q, w.universe_id, w.channel, w.fire_on, w.cooldown])).toEqual([
      ["price > 1", null, "in_app", "enter", "0s"],
      ["rsi_14 < 30", "bulk", "webhook", "both", "0s"],
      ["price > 2", null, "in_app", "enter", "1h"]
    ])
    expect(made.body.webhooks[1].signing_secret).toMatch(/^whsec_/)
    expect(made.body.webhooks[0]).not.toHaveProperty("signing_secret")
    expect(await count()).toBe(3)

    for (const [bad, index, message] of [
      [{ q: "price >" }, 2, /^webhooks\[2\]: invalid_query: /],
      [{ q: "price > 1", universe: "nope" }, 2, /^webhooks\[2\]: universe_not_found: /],
      [{ q: "price > 1", cadence: "5m" }, 2, /^webhooks\[2\]: bad_request: cadence must be/],
      [{ rule_id: "rul_missing" }, 2, /^webhooks\[2\]: not_found: /]
    ] as const) {
      const r = await call(key, "POST", "/v2/webhooks/batch", { webhooks: [good[0], good[2], bad] })
      expectError(r, 400, "bad_request")
      expect(r.body.error.message, String(index)).toMatch(message)
    }
    expectError(await call(key, "POST", "/v2/webhooks/batch", { webhooks: [] }), 400, "bad_request")
    const tooMany = await call(key, "POST", "/v2/webhooks/batch", {
      webhooks: Array.from({ length: 501 }, () => good[0])
    })
    expectError(tooMany, 400, "bad_request")
    expect(tooMany.body.error.message).toMatch(/1 to 500 webhooks \(got 501\)/)
    expect(await count()).toBe(3)

    // Hobby: 10 active at most, for the whole batch
    const hobby = await newKey("hobby")
    const eight = await call(hobby, "POST", "/v2/webhooks/batch", {
      webhooks: Array.from({ length: 8 }, (_, i) => ({ q: `price > ${i}` }))
    })
    expect(eight.status).toBe(200)
    const over = await call(hobby, "POST", "/v2/webhooks/batch", { webhooks: [good[0], good[0], good[0]] })
    expectError(over, 403, "webhook_limit_reached")
    expect(over.body.error.message).toMatch(/has 8 active webhooks; 3 more would pass the 10/)
    expect((await call(hobby, "GET", "/v2/webhooks")).body.count).toBe(8)
    const fits = await call(hobby, "POST", "/v2/webhooks/batch", { webhooks: [good[0], good[0]] })
    expect(fits.status).toBe(200)

    // the same Idempotency-Key answers the same batch again, creating nothing more
    const send = () =>
      api(server, key, "/v2/webhooks/batch", {
        method: "POST",
        body: JSON.stringify({ webhooks: [good[0]] }),
        headers: { "idempotency-key": "bulk-once" }
      })
    const once = await send()
    const again = await send()
    expect(once.status).toBe(200)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.body.webhooks[0].id).toBe(once.body.webhooks[0].id)
    expect(await count()).toBe(4)
  })
  it("explains a screen for one ticker, agreeing with the scan, and a webhook's state for one ticker (issue 16)", async () => {
    const key = await newKey()
    const q = "price > 100 AND rsi_14 >= 0"
    const scan = await call(key, "POST", "/v2/scan", { q, limit: 100, order: "price", dir: "asc" })
    expect(scan.status).toBe(200)
    const inside = scan.body.results[0].ticker as string
    const outside = await call(key, "POST", "/v2/scan", { q: "price <= 100", limit: 1 })
    const below = outside.body.results[0].ticker as string
    const yes = await call(key, "POST", "/v2/scan/explain", { q, ticker: inside.toLowerCase() })
    expect(yes.status, JSON.stringify(yes.body)).toBe(200)
    expect(yes.body).toMatchObject({
      ticker: inside,
      in_universe: true,
      matched: true,
      tree: { op: "AND", result: true }
    })
    const no = await call(key, "POST", "/v2/scan/explain", { q, ticker: below })
    expect(no.body).toMatchObject({ matched: false, tree: { op: "AND", result: false } })
    expect(no.body.tree.args[0]).toMatchObject({ expr: "price > 100", op: ">", result: false })
    expect(no.body.tree.args[0].operands[0].expr).toBe("price")
    expect(no.body.reason).toMatch(/^price = [\d.]+ is not > 100$/)
    const top = await call(key, "POST", "/v2/scan/explain", { q, ticker: inside, universe: "top_10" })
    expect(top.body.matched).toBe(top.body.in_universe)
    for (const [body, status, code] of [
      [{ q, ticker: "!!" }, 400, "bad_request"],
      [{ q, ticker: "ZZZZZQ" }, 404, "not_found"],
      [{ q: "price >", ticker: inside }, 400, "invalid_query"],
      [{ q, ticker: inside, asof: "2999-01-01" }, 400, "bad_request"],
      [{ q, ticker: inside, universe: "nope" }, 404, "universe_not_found"],
      [{ ticker: inside }, 400, "bad_request"]
    ] as const) {
      expectError(await call(key, "POST", "/v2/scan/explain", body), status, code)
    }

    const sub = await call(key, "POST", `/v2/tickers/${inside}/subscribe`, { condition: "price > 0", cooldown: "1h" })
    const id = sub.body.id as string
    const before = await call(key, "GET", `/v2/webhooks/${id}/explain?ticker=${inside}`)
    expect(before.status, JSON.stringify(before.body)).toBe(200)
    expect(before.body).toMatchObject({ webhook_id: id, ticker: inside, state: "idle", evaluated_at: null })
    expect(before.body.reason).toMatch(/^matches now \(.*\); enters at the next evaluation$/)
    await refresh()
    const after = await call(key, "GET", `/v2/webhooks/${id}/explain?ticker=${inside}`)
    expect(after.body).toMatchObject({ state: "inside", tree: { op: "AND", result: true } })
    expect(after.body.reason).toMatch(/^inside since it fired at .*; q holds: /)
    expect(after.body.evaluated_at).not.toBeNull()
    const other = await call(key, "GET", `/v2/webhooks/${id}/explain?ticker=${below}`)
    expect(other.body.state).toBe("idle")
    expect(other.body.reason).toMatch(/^ticker = '.*' is not = /)
    expectError(await call(key, "GET", `/v2/webhooks/${id}/explain`), 400, "bad_request")
    expectError(await call(await newKey(), "GET", `/v2/webhooks/${id}/explain?ticker=${inside}`), 404, "not_found")
  })
  it("the market feed pauses and resumes (issue 16): refresh ticks go on without new data, nothing fires, the status shows data_as_of", async () => {
    const key = await newKey()
    const sub = await call(key, "POST", "/v2/tickers/MSFT/subscribe", { condition: "price > 0" })
    const id = sub.body.id as string
    const before = await call(key, "GET", "/v2/market/status")
    expect(before.body.stale).toBe(false)
    expect(before.body.data_as_of).toMatch(/^\d{4}-\d{2}-\d{2}T/)
    expect((await admin(server, "POST", "/admin/feed/pause")).body).toEqual({ paused: true })
    try {
      const held = await refresh()
      expect(held).toBe(before.body.data_as_of)
      expect((await call(key, "GET", "/v2/market/status")).body.data_as_of).toBe(held)
      expect((await call(key, "GET", `/v2/webhooks/${id}/events`)).body.count).toBe(0)
      const metrics = await (await fetch(`${server.url}/metrics`)).text()
      expect(Number(/^market_data_age_seconds ([\d.]+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(0)
    } finally {
      expect((await admin(server, "POST", "/admin/feed/resume")).body).toEqual({ paused: false })
    }
    const fresh = await refresh()
    expect(Date.parse(fresh)).toBeGreaterThan(Date.parse(before.body.data_as_of))
    expect((await call(key, "GET", "/v2/market/status")).body).toMatchObject({ data_as_of: fresh, stale: false })
    expect((await call(key, "GET", `/v2/webhooks/${id}/events`)).body.count).toBe(1)
  })
})
