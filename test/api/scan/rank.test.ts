/**
 * Cross-sectional functions over HTTP (issue 17 item 5): scans (live and as of, POST and GET) rank
 * among their universe — an own universe, top_100 — or the whole market; a bad partition is a 400
 * naming the argument; scan explain and webhook explain show the rank at the node; a webhook fires
 * on a rank among its universe; a ranked custom signal has no per-ticker history (400).
 */
import { beforeAll, describe, expect, it } from "vitest"
import { ALL } from "../../support/inProcess.js"
import { admin, api, expectError } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"

describe("PCT_RANK, RANK, ZSCORE over HTTP", () => {
  const server = serveForSuite({ REFRESH_INTERVAL: "1h" }, ALL)
  let key: string
  const call = (method: string, path: string, body?: unknown, k = key) =>
    api(server, k, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  const scan = (body: Record<string, unknown>) => call("POST", "/v2/scan", body)
  const tickersOf = (res: { body: any }) => (res.body.results as Array<any>).map((r) => r.ticker as string)
  const TRIO = ["AAPL", "MSFT", "SPY"]

  beforeAll(async () => {
    key = (await admin(server, "POST", "/admin/accounts", { plan: "scale" })).body.api_key
    const made = await call("POST", "/v2/universes", { id: "trio", name: "Trio", tickers: TRIO })
    expect(made.status).toBe(201)
  }, 120_000)

  /** the members of a scan's universe with their `order` values, highest first */
  const ranked = async (universe: string | undefined, order: string, extra: Record<string, unknown> = {}) => {
    const res = await scan({
      q: `${order} IS NOT NULL`,
      order,
      dir: "desc",
      limit: 100,
      fields: [order],
      ...(universe === undefined ? {} : { universe }),
      ...extra
    })
    expect(res.status).toBe(200)
    return res.body.results as Array<any>
  }

  it("ranks a live scan among the whole market by default", async () => {
    const top = (await ranked(undefined, "price")).slice(0, 3)
    const res = await scan({ q: "rank(price) <= 3", order: "price", dir: "desc" })
    expect(res.status).toBe(200)
    expect(res.body.total).toBe(3)
    expect(tickersOf(res)).toEqual(top.map((r) => r.ticker))
  })

  it("ranks among an own universe's members only, POST and GET alike", async () => {
    const members = await ranked("trio", "price")
    expect(members.map((r) => r.ticker).sort()).toEqual(TRIO)
    const highest = await scan({ q: "RANK(price) = 1", universe: "trio" })
    expect(tickersOf(highest)).toEqual([members[0].ticker])
    const lowest = await scan({ q: "pct_rank(price) = 0", universe: "trio" })
    expect(tickersOf(lowest)).toEqual([members[2].ticker])
    const viaGet = await call("GET", `/v2/scan?${new URLSearchParams({ q: "RANK(price) = 1", universe: "trio" })}`)
    expect(viaGet.status).toBe(200)
    expect(tickersOf(viaGet)).toEqual([members[0].ticker])
    // the market-wide rank of the same ticker is not 1 (the universe's highest is not the market's)
    const market = await scan({ q: `ticker = '${members[0].ticker}' AND rank(price) = 1` })
    expect(market.body.total).toBe(0)
  })

  it("ranks among top_100's members: the top decile by price is 10 of them", async () => {
    const members = await ranked("top_100", "price")
    expect(members.length).toBe(100)
    const res = await scan({ q: "pct_rank(price) >= 0.9", universe: "top_100", order: "price", dir: "desc" })
    expect(res.body.total).toBe(10)
    expect(tickersOf(res)).toEqual(members.slice(0, 10).map((r) => r.ticker))
    // z-scores of members: mean 0 over the universe
    const z = await scan({ q: "zscore(price) > 0", universe: "top_100", limit: 100 })
    expect(z.body.total).toBeGreaterThan(0)
    expect(z.body.total).toBeLessThan(100)
  })

  it("ranks an as-of scan among the universe on that date", async () => {
    const d = new Date()
    d.setUTCMonth(d.getUTCMonth() - 2)
    const asof = d.toISOString().slice(0, 10)
    const members = await ranked("trio", "price", { asof })
    expect(members.length).toBe(3)
    const res = await scan({ q: "rank(price) = 1", universe: "trio", asof })
    expect(res.status).toBe(200)
    expect(tickersOf(res)).toEqual([members[0].ticker])
    const history = await call(
      "GET",
      `/v2/scan/history?${new URLSearchParams({ q: "rank(price) = 1", universe: "trio", asof })}`
    )
    expect(tickersOf(history)).toEqual([members[0].ticker])
  })

  it("runs the documented example, partitioned by sector", async () => {
    const res = await scan({ q: "pct_rank(relative_volume, sector) > 0.99 AND day_change_pct > 0", limit: 100 })
    expect(res.status).toBe(200)
    expect(res.body.total).toBeGreaterThan(0)
    for (const r of res.body.results) expect(r.day_change_pct).toBeGreaterThan(0)
  })

  it("refuses a partition that is not a static text column: 400 naming the argument and its position", async () => {
    const res = await scan({ q: "pct_rank(relative_volume, price) > 0.5" })
    expectError(res, 400, "invalid_query")
    expect(res.body.error.message).toContain("second argument (the partition) must be one of the static text columns")
    expect(res.body.error.message).toContain("at position 26")
    expect(res.body.error.errors).toMatchObject([{ code: "invalid_argument", pos: 26 }])
    expectError(await scan({ q: "rank(price, ticker) > 1" }), 400, "invalid_query")
    expectError(await scan({ q: "rank(sector) > 1" }), 400, "compile_failed")
  })

  it("explains a rank at the node, among the universe and the ticker", async () => {
    const members = await ranked("trio", "price")
    const top = members[0].ticker as string
    const inUniverse = await call("POST", "/v2/scan/explain", { q: "rank(price) = 1", ticker: top, universe: "trio" })
    expect(inUniverse.status, JSON.stringify(inUniverse.body)).toBe(200)
    expect(inUniverse.body).toMatchObject({
      matched: true,
      tree: { op: "=", result: true, operands: [{ expr: "RANK(price)", value: 1 }, { value: 1 }] }
    })
    const market = await call("POST", "/v2/scan/explain", { q: "rank(price) = 1", ticker: top })
    expect(market.body.matched).toBe(false)
    expect(market.body.tree.operands[0].value).toBeGreaterThan(1)
    // a ticker outside the universe is ranked as if it were in it
    const outside = (await ranked(undefined, "price"))[0].ticker as string
    const extra = await call("POST", "/v2/scan/explain", { q: "rank(price) = 1", ticker: outside, universe: "trio" })
    expect(extra.body).toMatchObject({ in_universe: false, matched: false, tree: { result: true } })
  })

  it("fires a webhook on a rank among its universe, and explains it", async () => {
    const members = await ranked("trio", "price")
    const top = members[0].ticker as string
    const made = await call("POST", "/v2/webhooks", { q: "rank(price) = 1", universe: "trio" })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    const id = made.body.id as string
    expect((await admin(server, "POST", "/admin/refresh")).status).toBe(200)
    const explained = await call("GET", `/v2/webhooks/${id}/explain?ticker=${top}`)
    expect(explained.status, JSON.stringify(explained.body)).toBe(200)
    expect(explained.body).toMatchObject({
      state: "inside",
      tree: { result: true, operands: [{ expr: "RANK(price)", value: 1 }, { value: 1 }] }
    })
    const events = await call("GET", `/v2/webhooks/${id}/events`)
    expect(events.body.count).toBe(1)
    expect(JSON.stringify(events.body)).toContain(top)
    // the test ping ranks among the universe too
    const ping = await call("POST", `/v2/webhooks/${id}/test`)
    expect(ping.status, JSON.stringify(ping.body)).toBeLessThan(300)
  })

  it("a ranked custom signal scans, but has no per-ticker history (400)", async () => {
    const made = await call("POST", "/v2/signals", { name: "loud", expr: "pct_rank(relative_volume) > 0.9" })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    expect((await scan({ q: "loud", universe: "top_100" })).body.total).toBe(10)
    const history = await call("GET", "/v2/signals/loud/AAPL/history/1d")
    expectError(history, 400, "bad_request")
    expect(history.body.error.message).toContain("no per-ticker history")
  })
})
