import { beforeAll, describe, expect, it } from "vitest"
import { ALL } from "../../support/inProcess.js"
import { admin, api } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"

const expectError = (res: { status: number; body: any }, status: number, code: string) => {
  expect(res.status).toBe(status)
  expect(res.body.error.code).toBe(code)
  expect(res.body.error.message.length).toBeGreaterThan(0)
  expect(res.body.error.request_id).toMatch(/^req_/)
}

const DEFAULT_KEYS = [
  "ticker",
  "name",
  "asset_type",
  "price",
  "day_change_pct",
  "gap_pct",
  "relative_volume",
  "market_cap"
]

/** a before b in scan order (NULLs last, ties by ticker ascending) */
const inOrder = (a: any, b: any, col: string, dir: "asc" | "desc") => {
  const x = a[col]
  const y = b[col]
  if (x === y) return a.ticker < b.ticker
  if (x === null) return false
  if (y === null) return true
  return dir === "asc" ? x < y : x > y
}

describe("scan over HTTP", () => {
  const server = serveForSuite({ REFRESH_INTERVAL: "1h" }, ALL)
  let key: string
  const newKey = async (plan = "scale") => (await admin(server, "POST", "/admin/accounts", { plan })).body.api_key
  const post = (body: unknown, k = key, path = "/v2/scan") =>
    api(server, k, path, { method: "POST", body: JSON.stringify(body) })
  const get = (params: Record<string, string | number>, k = key, path = "/v2/scan") =>
    api(
      server,
      k,
      `${path}?${new URLSearchParams(Object.entries(params).map(([a, b]): [string, string] => [a, String(b)]))}`
    )

  /** every page of a scan, checking the pagination contract on the way */
  const walk = async (body: Record<string, unknown>, k = key) => {
    const rows: Array<any> = []
    let cursor: string | null = null
    let total = -1
    for (let i = 0; i < 2000; i++) {
      const res: any = await post(cursor === null ? body : { ...body, cursor }, k)
      expect(res.status).toBe(200)
      if (total >= 0) expect(res.body.total).toBe(total)
      total = res.body.total
      expect(res.body.count).toBe(res.body.results.length)
      rows.push(...res.body.results)
      cursor = res.body.next_cursor
      if (cursor === null) break
      expect(res.body.count).toBe(body.limit ?? 50)
    }
    expect(rows.length).toBe(total)
    expect(new Set(rows.map((r) => r.ticker)).size).toBe(rows.length)
    return rows
  }

  beforeAll(async () => {
    key = await newKey("scale")
  }, 120_000)

  it("scans live with the defaults", async () => {
    const res = await post({ q: "price > 0" })
    expect(res.status).toBe(200)
    expect(res.body.query).toEqual({
      q: "price > 0",
      limit: 50,
      order: "day_change_pct",
      dir: "desc",
      fields: [],
      full: false,
      universe: null
    })
    expect(res.body.count).toBe(50)
    expect(res.body.total).toBeGreaterThan(10_000)
    expect(typeof res.body.next_cursor).toBe("string")
    expect(new Date(res.body.as_of).toISOString()).toBe(res.body.as_of)
    expect(res.body._meta).toEqual({})
    for (const row of res.body.results) {
      expect(Object.keys(row)).toEqual(DEFAULT_KEYS)
      expect(row.price).toBeGreaterThan(0)
    }
    for (let i = 1; i < res.body.results.length; i++) {
      expect(inOrder(res.body.results[i - 1], res.body.results[i], "day_change_pct", "desc")).toBe(true)
    }
    // GET takes the same parameters in the query string
    const viaGet = await get({ q: "price > 0" })
    expect(viaGet.status).toBe(200)
    expect(viaGet.body.results).toEqual(res.body.results)
    expect(viaGet.body.total).toBe(res.body.total)
  })

  it("orders by any column in both directions and adds fields", async () => {
    const asc = await post({
      q: "market_cap > 1000000000",
      order: "rsi_14",
      dir: "asc",
      limit: 100,
      fields: "rsi_14,pe_ratio, sector"
    })
    expect(asc.status).toBe(200)
    expect(asc.body.query).toMatchObject({
      order: "rsi_14",
      dir: "asc",
      limit: 100,
      fields: ["rsi_14", "pe_ratio", "sector"]
    })
    expect(Object.keys(asc.body.results[0])).toEqual([...DEFAULT_KEYS, "rsi_14", "pe_ratio", "sector"])
    for (let i = 1; i < asc.body.results.length; i++) {
      expect(inOrder(asc.body.results[i - 1], asc.body.results[i], "rsi_14", "asc")).toBe(true)
    }
    for (const r of asc.body.results) expect(r.market_cap).toBeGreaterThan(1e9)
    const byName = await get({ q: "price > 0", order: "name", dir: "asc", limit: 20 })
    const names = byName.body.results.map((r: any) => r.name)
    expect([...names].sort()).toEqual(names)
    const flag = await post({ q: "price > 0", order: "golden_cross", limit: 5 })
    expect(flag.body.results.every((r: any) => r.golden_cross === true)).toBe(true)
    const full = await post({ q: "ticker = 'AAPL'", fields: "*" })
    expect(full.body.query).toMatchObject({ fields: ["*"], full: true })
    expect(Object.keys(full.body.results[0]).length).toBeGreaterThan(40)
    expect(full.body.results[0]).toMatchObject({
      ticker: "AAPL",
      exchange: expect.any(String),
      rsi_14: expect.anything()
    })
    const asArray = await post({ q: "ticker = 'AAPL'", fields: ["rsi_14"] })
    expect(asArray.body.query.fields).toEqual(["rsi_14"])
  })

  it("walks every page with no duplicates or gaps, NULL order values last in both directions", async () => {
    const body = { q: "asset_type = 'ETF' OR price > 300", order: "pe_ratio", limit: 100 }
    for (const dir of ["asc", "desc"] as const) {
      const rows = await walk({ ...body, dir })
      const nulls = rows.filter((r) => r.pe_ratio === null)
      expect(nulls.length).toBeGreaterThan(100)
      expect(nulls.length).toBeLessThan(rows.length)
      for (let i = 1; i < rows.length; i++) expect(inOrder(rows[i - 1], rows[i], "pe_ratio", dir)).toBe(true)
      for (const r of rows) expect(r.asset_type === "ETF" || r.price > 300).toBe(true)
    }
    // the same matches in any order, and each page equals the big page's slice
    const asc = (await walk({ ...body, dir: "asc" })).map((r) => r.ticker).sort()
    const desc = (await walk({ ...body, dir: "desc", limit: 37 })).map((r) => r.ticker).sort()
    expect(desc).toEqual(asc)
    const small = await walk({ q: "price > 300", order: "day_change_pct", limit: 7 })
    const big = await walk({ q: "price > 300", order: "day_change_pct", limit: 100 })
    expect(big.length).toBeGreaterThan(100)
    expect(small.map((r) => r.ticker)).toEqual(big.map((r) => r.ticker))
  }, 120_000)

  it("refuses tampered cursors and cursors of other parameters", async () => {
    const body = { q: "price > 5", order: "gap_pct", dir: "asc", limit: 10, fields: "rsi_14" }
    const first = await post(body)
    const cursor = first.body.next_cursor as string
    expect((await post({ ...body, cursor })).status).toBe(200)
    expect((await get({ ...body, cursor })).status).toBe(200)
    const flipped = cursor.slice(0, 5) + (cursor[5] === "A" ? "B" : "A") + cursor.slice(6)
    expectError(await post({ ...body, cursor: flipped }), 400, "bad_request")
    expectError(await post({ ...body, cursor: "not a cursor" }), 400, "bad_request")
    expectError(await post({ ...body, cursor: "" }), 400, "bad_request")
    for (const change of [
      { q: "price > 6" },
      { order: "day_change_pct" },
      { dir: "desc" },
      { limit: 11 },
      { fields: "rsi_14,pe_ratio" },
      { universe: "top_100" },
      { asof: "2025-06-02" }
    ]) {
      const res = await post({ ...body, ...change, cursor })
      expectError(res, 400, "bad_request")
      expect(res.body.error.message).toMatch(/cursor/)
    }
    expectError(await post({ ...body, cursor }, await newKey()), 400, "bad_request")
  })

  it("validates every parameter", async () => {
    expectError(await post({}), 400, "bad_request")
    expectError(await post({ q: "" }), 400, "bad_request")
    expectError(await get({}), 400, "bad_request")
    expectError(await post({ q: `price > 0 ${"AND price > 0 ".repeat(400)}` }), 400, "invalid_query")
    expectError(await post({ q: "price >" }), 400, "invalid_query")
    expectError(await post({ q: "no_such_column > 1" }), 400, "invalid_query")
    expectError(await post({ q: "price > 1; DROP TABLE x" }), 400, "invalid_query")
    const notBool = await post({ q: "price + 1" })
    expect(notBool.status).toBe(400)
    expect(["invalid_query", "compile_failed"]).toContain(notBool.body.error.code)
    expectError(await post({ q: "price > 0", order: "nope" }), 400, "bad_request")
    expectError(await post({ q: "price > 0", order: "Price" }), 400, "bad_request")
    expectError(await post({ q: "price > 0", order: "price desc" }), 400, "bad_request")
    expectError(await post({ q: "price > 0", dir: "up" }), 400, "bad_request")
    expectError(await post({ q: "price > 0", dir: "DESC" }), 400, "bad_request")
    const fields = await post({ q: "price > 0", fields: "rsi_14,bogus" })
    expectError(fields, 400, "bad_request")
    expect(fields.body.error.message).toMatch(/bogus/)
    expectError(await post({ q: "price > 0", limit: 0 }), 400, "bad_request")
    expectError(await post({ q: "price > 0", limit: 101 }), 400, "bad_request")
    expectError(await post({ q: "price > 0", limit: 2.5 }), 400, "bad_request")
    expectError(await get({ q: "price > 0", limit: "ten" }), 400, "bad_request")
    expectError(await post({ q: "price > 0", extra: true }), 400, "bad_request")
    expectError(await get({ q: "price > 0", extra: "1" }), 400, "bad_request")
    expectError(await post({ q: "price > 0", asof: "yesterday" }), 400, "bad_request")
    expectError(await post({ q: "price > 0", asof: "2999-01-01" }), 400, "bad_request")
    // before 2003 no ticker has a state: the spec's empty answer (the years since are test/api/scan/deepAsOf.test.ts's)
    const early = await post({ q: "price > 0", asof: "2002-06-03" })
    expect(early.status).toBe(200)
    expect(early.body.results).toEqual([])
    expectError(await post({ q: "price > 0", universe: "nope" }), 404, "universe_not_found")
    expectError(await get({ q: "price > 0", universe: "Top 10" }), 404, "universe_not_found")
    expectError(await post({ q: "price > 0", rule: "rule_nope" }), 404, "not_found")
    expect((await post({ q: "price > 0", limit: 100 })).body.count).toBe(100)
    expect((await post({ q: "price > 0", limit: 1 })).body.count).toBe(1)
    expectError(await api(server, undefined, "/v2/scan?q=price%3E0"), 401, "unauthenticated")
  })

  it("scopes to system and own universes", async () => {
    const top10 = (await api(server, key, "/v2/universes/top_10")).body.tickers as Array<string>
    const res = await post({ q: "price > 0", universe: "top_10" })
    expect(res.status).toBe(200)
    expect(res.body._meta.scope).toEqual({ universe: "top_10", size: 10 })
    expect(res.body.query.universe).toBe("top_10")
    expect(res.body.total).toBe(10)
    expect(res.body.results.map((r: any) => r.ticker).sort()).toEqual([...top10].sort())
    const top100 = await post({ q: "price > 0", universe: "top_100", limit: 100 })
    expect(top100.body._meta.scope).toEqual({ universe: "top_100", size: 100 })
    expect(top100.body.total).toBe(100)

    const own = await newKey()
    await api(server, own, "/v2/universes", {
      method: "POST",
      body: JSON.stringify({ id: "pair", name: "Pair", tickers: ["AAPL", "MSFT", "SPY"] })
    })
    const scoped = await post({ q: "asset_type = 'CS'", universe: "pair", order: "ticker", dir: "asc" }, own)
    expect(scoped.body._meta.scope).toEqual({ universe: "pair", size: 3 })
    expect(scoped.body.results.map((r: any) => r.ticker)).toEqual(["AAPL", "MSFT"])
    expectError(await post({ q: "price > 0", universe: "pair" }), 404, "universe_not_found")
  })

  it("supports cross-ticker references", async () => {
    const spy = (await post({ q: "ticker = 'SPY'" })).body.results[0]
    const res = await walk({
      q: "relative_volume > spy.relative_volume",
      order: "relative_volume",
      dir: "asc",
      limit: 100
    })
    expect(res.length).toBeGreaterThan(0)
    for (const r of res) expect(r.relative_volume).toBeGreaterThan(spy.relative_volume)
    const all = await post({ q: "relative_volume IS NOT NULL AND relative_volume > 0", limit: 1 })
    const above = (await post({ q: "relative_volume > SPY.relative_volume", limit: 1 })).body.total
    expect(above).toBe(res.length)
    expect(above).toBeLessThan(all.body.total)
  }, 60_000)

  it("scans as of a past date: weekends carry the last session forward", async () => {
    const today = new Date()
    const saturday = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 14))
    while (saturday.getUTCDay() !== 6) saturday.setUTCDate(saturday.getUTCDate() - 1)
    const date = saturday.toISOString().slice(0, 10)
    const res = await post({ q: "asset_type = 'CS' AND price > 0", asof: date, order: "price", limit: 100 })
    expect(res.status).toBe(200)
    expect(res.body.as_of).toBe(date)
    expect(res.body.query.asof).toBe(date)
    expect(res.body._meta).toEqual({
      resolution: "daily",
      frozen_fields: ["name", "sector", "industry", "asset_type", "exchange"]
    })
    expect(res.body.total).toBeGreaterThan(1000)
    for (const r of res.body.results) {
      expect(r.date < date).toBe(true)
      expect([0, 6]).not.toContain(new Date(`${r.date}T00:00:00Z`).getUTCDay())
    }
    // crypto trades on Saturdays
    const crypto = await post({ q: "asset_type = 'CRYPTO'", asof: date, limit: 5 })
    expect(crypto.body.results.every((r: any) => r.date === date)).toBe(true)
    // a timestamp is truncated to its date; GET and the history alias agree
    const stamped = await post({
      q: "asset_type = 'CS' AND price > 0",
      asof: `${date}T18:30:00Z`,
      order: "price",
      limit: 100
    })
    expect(stamped.body.results).toEqual(res.body.results)
    expect(stamped.body.as_of).toBe(date)
    const history = await post(
      { q: "asset_type = 'CS' AND price > 0", asof: date, order: "price", limit: 100 },
      key,
      "/v2/scan/history"
    )
    expect(history.body.results).toEqual(res.body.results)
    const historyGet = await get(
      { q: "asset_type = 'CS' AND price > 0", asof: date, order: "price", limit: 100 },
      key,
      "/v2/scan/history"
    )
    expect(historyGet.body.results).toEqual(res.body.results)
    expectError(await post({ q: "price > 0" }, key, "/v2/scan/history"), 400, "bad_request")
    expectError(await get({ q: "price > 0" }, key, "/v2/scan/history"), 400, "bad_request")
    // pages walk in the as-of form too
    const rows = await walk({ q: "asset_type = 'ETF'", asof: date, order: "pe_ratio", limit: 100 })
    expect(rows.every((r) => r.pe_ratio === null)).toBe(true)
    expect(rows.map((r) => r.ticker)).toEqual(rows.map((r) => r.ticker).sort())
  }, 60_000)

  it("answers empty results for a date older than the history", async () => {
    const res = await post({ q: "price > 0", asof: "1995-01-03", universe: "top_10" })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ as_of: "1995-01-03", count: 0, total: 0, next_cursor: null, results: [] })
    expect(res.body.query.asof).toBe("1995-01-03")
    expect(res.body._meta).toMatchObject({ resolution: "daily", scope: { universe: "top_10", size: 0 } })
  })

  it("scopes as-of scans to the universe membership of that date", async () => {
    const date = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 2, 15))
    const iso = date.toISOString().slice(0, 10)
    const res = await post({ q: "price > 0", asof: iso, universe: "top_10", order: "ticker", dir: "asc" })
    expect(res.body._meta.scope).toEqual({ universe: "top_10", size: 10 })
    expect(res.body.total).toBeLessThanOrEqual(10)
    expect(res.body.total).toBeGreaterThan(0)
  })
})
