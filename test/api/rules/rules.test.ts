import { describe, expect, it } from "vitest"
import { admin, api } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"

const expectError = (res: { status: number; body: any }, status: number, code: string) => {
  expect(res.status).toBe(status)
  expect(res.body.error.code).toBe(code)
  expect(res.body.error.message.length).toBeGreaterThan(0)
  expect(res.body.error.request_id).toMatch(/^req_/)
}

describe("saved rules over HTTP", () => {
  const server = serveForSuite({ REFRESH_INTERVAL: "1h" })
  const newKey = async () => (await admin(server, "POST", "/admin/accounts", { plan: "scale" })).body.api_key
  const call = (key: string, method: string, path: string, body?: unknown) =>
    api(server, key, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

  it("creates, reads, lists, updates and deletes rules", async () => {
    const key = await newKey()
    const created = await call(key, "POST", "/v2/rules", { name: "Big movers", q: "price > 50" })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      name: "Big movers",
      q: "price > 50",
      universe: null,
      order: "day_change_pct",
      dir: "desc",
      fields: []
    })
    expect(created.body.id).toMatch(/^rule_[A-Za-z0-9_-]+$/)
    expect(Number.isInteger(created.body.created_at)).toBe(true)
    const id = created.body.id
    expect((await call(key, "GET", `/v2/rules/${id}`)).body).toEqual(created.body)
    const full = await call(key, "POST", "/v2/rules", {
      name: "Top RSI",
      q: "rsi_14 > 0",
      universe: "top_100",
      order: "rsi_14",
      dir: "asc",
      fields: "rsi_14,pe_ratio"
    })
    expect(full.body).toMatchObject({
      universe: "top_100",
      order: "rsi_14",
      dir: "asc",
      fields: ["rsi_14", "pe_ratio"]
    })
    const list = await call(key, "GET", "/v2/rules?limit=1")
    expect(list.body.count).toBe(1)
    const next = await call(key, "GET", `/v2/rules?limit=1&cursor=${list.body.next_cursor}`)
    expect(next.body.next_cursor).toBeNull()
    expect([list.body.rules[0].id, next.body.rules[0].id].sort()).toEqual([id, full.body.id].sort())
    expectError(await call(key, "GET", `/v2/rules?limit=2&cursor=${list.body.next_cursor}`), 400, "bad_request")

    const patched = await call(key, "PATCH", `/v2/rules/${full.body.id}`, {
      universe: null,
      dir: "desc",
      name: "Renamed"
    })
    expect(patched.body).toMatchObject({
      universe: null,
      dir: "desc",
      name: "Renamed",
      order: "rsi_14",
      q: "rsi_14 > 0"
    })
    expect(patched.body.created_at).toBe(full.body.created_at)
    expect((await call(key, "DELETE", `/v2/rules/${id}`)).body).toEqual({ ok: true })
    expectError(await call(key, "GET", `/v2/rules/${id}`), 404, "not_found")
    expectError(await call(key, "DELETE", `/v2/rules/${id}`), 404, "not_found")
    expectError(await call(key, "PATCH", `/v2/rules/${id}`, { name: "x" }), 404, "not_found")
  })

  it("validates rules as a scan would", async () => {
    const key = await newKey()
    const post = (body: unknown) => call(key, "POST", "/v2/rules", body)
    expectError(await post({ name: "x", q: "price >" }), 400, "invalid_query")
    expectError(await post({ name: "x", q: "nope > 1" }), 400, "invalid_query")
    expectError(await post({ name: "x", q: "" }), 400, "bad_request")
    expectError(await post({ name: "", q: "price > 1" }), 400, "bad_request")
    expectError(await post({ q: "price > 1" }), 400, "bad_request")
    expectError(await post({ name: "x", q: "price > 1", order: "bogus" }), 400, "bad_request")
    expectError(await post({ name: "x", q: "price > 1", dir: "sideways" }), 400, "bad_request")
    expectError(await post({ name: "x", q: "price > 1", fields: "bogus" }), 400, "bad_request")
    expectError(await post({ name: "x", q: "price > 1", universe: "missing" }), 404, "universe_not_found")
    expectError(await post({ name: "x", q: "price > 1", extra: 1 }), 400, "bad_request")
    const ok = await post({ name: "x", q: "price > 1" })
    expectError(await call(key, "PATCH", `/v2/rules/${ok.body.id}`, { q: "price >" }), 400, "invalid_query")
    expectError(await call(key, "PATCH", `/v2/rules/${ok.body.id}`, { universe: "missing" }), 404, "universe_not_found")
    expect((await call(key, "GET", "/v2/rules")).body.count).toBe(1)
  })

  it("runs a rule on scan; explicit parameters override it", async () => {
    const key = await newKey()
    const rule = (
      await call(key, "POST", "/v2/rules", {
        name: "r",
        q: "price > 20",
        universe: "top_100",
        order: "price",
        dir: "asc",
        fields: "rsi_14"
      })
    ).body
    const viaRule = await call(key, "POST", "/v2/scan", { rule: rule.id, limit: 100 })
    expect(viaRule.status).toBe(200)
    expect(viaRule.body.query).toMatchObject({
      q: "price > 20",
      universe: "top_100",
      order: "price",
      dir: "asc",
      fields: ["rsi_14"],
      rule: rule.id
    })
    const direct = await call(key, "POST", "/v2/scan", {
      q: "price > 20",
      universe: "top_100",
      order: "price",
      dir: "asc",
      fields: "rsi_14",
      limit: 100
    })
    expect(viaRule.body.results).toEqual(direct.body.results)
    expect(viaRule.body.results[0]).toHaveProperty("rsi_14")
    const overridden = await api(server, key, `/v2/scan?rule=${rule.id}&dir=desc&q=price%20%3E%20100&fields=pe_ratio`)
    expect(overridden.body.query).toMatchObject({
      q: "price > 100",
      dir: "desc",
      order: "price",
      universe: "top_100",
      fields: ["pe_ratio"]
    })
    for (const r of overridden.body.results) expect(r.price).toBeGreaterThan(100)
    const prices = overridden.body.results.map((r: any) => r.price)
    expect(prices).toEqual([...prices].sort((a: number, b: number) => b - a))
    // a cursor is bound to the rule too
    const page = await call(key, "POST", "/v2/scan", { rule: rule.id, limit: 5 })
    expect(
      (await call(key, "POST", "/v2/scan", { rule: rule.id, limit: 5, cursor: page.body.next_cursor })).status
    ).toBe(200)
    expectError(
      await call(key, "POST", "/v2/scan", {
        ...direct.body.query,
        limit: 5,
        rule: undefined,
        asof: undefined,
        full: undefined,
        fields: "rsi_14",
        cursor: page.body.next_cursor
      }),
      400,
      "bad_request"
    )
  })

  it("keeps the slug of a deleted universe: its scans answer universe_not_found", async () => {
    const key = await newKey()
    await call(key, "POST", "/v2/universes", { id: "watch", name: "Watch", tickers: ["AAPL", "MSFT"] })
    const rule = (await call(key, "POST", "/v2/rules", { name: "w", q: "price > 0", universe: "watch" })).body
    const before = await call(key, "POST", "/v2/scan", { rule: rule.id })
    expect(before.body.total).toBe(2)
    expect(before.body._meta.scope).toEqual({ universe: "watch", size: 2 })
    // editing the universe changes what the rule scans
    await call(key, "PATCH", "/v2/universes/watch", { add: ["NVDA"] })
    expect((await call(key, "POST", "/v2/scan", { rule: rule.id })).body.total).toBe(3)
    await call(key, "DELETE", "/v2/universes/watch")
    expect((await call(key, "GET", `/v2/rules/${rule.id}`)).body.universe).toBe("watch")
    expectError(await call(key, "POST", "/v2/scan", { rule: rule.id }), 404, "universe_not_found")
    // an explicit universe overrides; other edits keep working
    expect((await call(key, "POST", "/v2/scan", { rule: rule.id, universe: "top_10" })).body.total).toBe(10)
    expect((await call(key, "PATCH", `/v2/rules/${rule.id}`, { name: "renamed" })).status).toBe(200)
    // recreating the slug brings the rule back
    await call(key, "POST", "/v2/universes", { id: "watch", name: "Watch", tickers: ["SPY"] })
    expect((await call(key, "POST", "/v2/scan", { rule: rule.id })).body.total).toBe(1)
  })

  it("isolates accounts", async () => {
    const a = await newKey()
    const b = await newKey()
    const rule = (await call(a, "POST", "/v2/rules", { name: "mine", q: "price > 0" })).body
    expectError(await call(b, "GET", `/v2/rules/${rule.id}`), 404, "not_found")
    expectError(await call(b, "PATCH", `/v2/rules/${rule.id}`, { name: "x" }), 404, "not_found")
    expectError(await call(b, "DELETE", `/v2/rules/${rule.id}`), 404, "not_found")
    expectError(await call(b, "POST", "/v2/scan", { rule: rule.id }), 404, "not_found")
    expect((await call(b, "GET", "/v2/rules")).body.rules).toEqual([])
    await call(a, "POST", "/v2/universes", { id: "secret", name: "s", tickers: ["AAPL"] })
    expectError(
      await call(b, "POST", "/v2/rules", { name: "x", q: "price > 0", universe: "secret" }),
      404,
      "universe_not_found"
    )
    expect((await call(a, "GET", `/v2/rules/${rule.id}`)).status).toBe(200)
  })
})
