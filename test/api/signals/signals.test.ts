import { describe, expect, it } from "vitest"
import { admin, api } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"

const expectEnvelope = (body: any, code: string) => {
  expect(body.error.code).toBe(code)
  expect(typeof body.error.message).toBe("string")
  expect(body.error.message.length).toBeGreaterThan(0)
  expect(body.error.request_id).toMatch(/^req_/)
}

/** ISO date `n` days before today (UTC). */
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10)

/** The most recent Saturday at least a week ago, and the Friday before it. */
const weekend = () => {
  const d = new Date(Date.now() - 7 * 86_400_000)
  while (d.getUTCDay() !== 6) d.setUTCDate(d.getUTCDate() - 1)
  const saturday = d.toISOString().slice(0, 10)
  d.setUTCDate(d.getUTCDate() - 1)
  return { saturday, friday: d.toISOString().slice(0, 10) }
}

describe("signals over HTTP", () => {
  const server = serveForSuite()

  const account = async (plan: string) => {
    const created = await admin(server, "POST", "/admin/accounts", { plan })
    expect(created.status).toBe(201)
    return { key: created.body.api_key as string, id: created.body.account_id as string }
  }
  const get = (key: string, path: string) => api(server, key, path)
  const create = (key: string, body: unknown) =>
    api(server, key, "/v2/signals", { method: "POST", body: JSON.stringify(body) })
  const patch = (key: string, name: string, body: unknown) =>
    api(server, key, `/v2/signals/${name}`, { method: "PATCH", body: JSON.stringify(body) })
  const remove = (key: string, path: string) => api(server, key, `/v2/signals/${path}`, { method: "DELETE" })

  /** Every match of a signal query, walking the cursors. */
  const allMatches = async (key: string, path: string, limit: number) => {
    const rows: Array<any> = []
    let cursor: string | null = null
    let total = -1
    for (let pages = 0; pages < 500; pages++) {
      const sep = path.includes("?") ? "&" : "?"
      const res = await get(
        key,
        `${path}${sep}limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
      )
      expect(res.status).toBe(200)
      expect(res.body.count).toBe(res.body.results.length)
      expect(res.body.results.length).toBeLessThanOrEqual(limit)
      total = res.body.total
      rows.push(...res.body.results)
      cursor = res.body.next_cursor
      if (cursor === null) break
    }
    expect(rows.length).toBe(total)
    return rows
  }

  it("lists every built-in signal on every plan, with kind filters and errors", async () => {
    const { key } = await account("free")
    const res = await get(key, "/v2/signals")
    expect(res.status).toBe(200)
    expect(res.body.count_builtin).toBe(130)
    expect(res.body.count_custom).toBe(0)
    expect(res.body.next_cursor).toBeNull()
    expect(typeof res.body.as_of).toBe("string")
    expect(res.body.signals).toHaveLength(130)
    expect(res.body.signals).toContainEqual({ name: "gap_up", kind: "builtin", type: "boolean", source: "state" })
    expect(res.body.signals).toContainEqual({ name: "market_cap", kind: "builtin", type: "numeric", source: "ticker" })
    expect(res.body.signals.some((s: any) => s.name === "sector")).toBe(false)
    expect((await get(key, "/v2/signals?kind=custom")).body.signals).toEqual([])
    expect((await get(key, "/v2/signals?kind=builtin")).body.signals).toHaveLength(130)
    for (const bad of ["kind=flags", "limit=201", "limit=0", "cursor=garbage", "bogus=1"]) {
      const r = await get(key, `/v2/signals?${bad}`)
      expect(r.status).toBe(400)
      expectEnvelope(r.body, "bad_request")
    }
    expect((await api(server, undefined, "/v2/signals")).status).toBe(401)
  })

  it("creates a custom signal on Pro; below Pro is 403 custom_signals_tier_required", async () => {
    for (const plan of ["free", "hobby"]) {
      const { key } = await account(plan)
      const res = await create(key, { name: "breakout", expr: "price > sma_50" })
      expect(res.status).toBe(403)
      expectEnvelope(res.body, "custom_signals_tier_required")
    }
    const { key } = await account("pro")
    const before = Math.floor(Date.now() / 1000)
    const res = await create(key, {
      name: "breakout",
      expr: "price > sma_50 AND unusual_volume",
      description: "up on volume"
    })
    expect(res.status).toBe(201)
    expect(typeof res.body.as_of).toBe("string")
    expect(res.body.signal).toMatchObject({
      name: "breakout",
      kind: "expression",
      description: "up on volume",
      expr: "price > sma_50 AND unusual_volume"
    })
    expect(res.body.signal.created_at).toBeGreaterThanOrEqual(before - 1)
    expect(res.body.signal.updated_at).toBe(res.body.signal.created_at)
    const noDescription = await create(key, { name: "quiet", expr: "NOT unusual_volume" })
    expect(noDescription.status).toBe(201)
    expect(noDescription.body.signal.description).toBeNull()
  })

  it("enforces the name rules, collisions and length bounds", async () => {
    const { key } = await account("pro")
    for (const name of ["Bad", "1abc", "a-b", "_x", "", `a${"b".repeat(64)}`, "and", "true", "null"]) {
      const res = await create(key, { name, expr: "gap_up" })
      expect(res.status, name).toBe(400)
      expectEnvelope(res.body, "bad_request")
    }
    expect((await create(key, { name: `a${"b".repeat(63)}`, expr: "gap_up" })).status).toBe(201)
    for (const name of ["price", "gap_up", "sector", "ticker"]) {
      const res = await create(key, { name, expr: "gap_up" })
      expect(res.status, name).toBe(409)
      expectEnvelope(res.body, "name_collision")
    }
    expect((await create(key, { name: "mine", expr: "gap_up" })).status).toBe(201)
    const dup = await create(key, { name: "mine", expr: "gap_down" })
    expect(dup.status).toBe(409)
    expectEnvelope(dup.body, "already_exists")
    const longDescription = await create(key, { name: "d", expr: "gap_up", description: "x".repeat(501) })
    expect(longDescription.status).toBe(400)
    expectEnvelope(longDescription.body, "bad_request")
    expect((await create(key, { name: "d", expr: "gap_up", description: "x".repeat(500) })).status).toBe(201)
    const longExpr = await create(key, { name: "e", expr: `price > ${"1".repeat(3995)}` })
    expect(longExpr.status).toBe(400)
    expectEnvelope(longExpr.body, "bad_request")
    const missing = await create(key, { name: "f" })
    expect(missing.status).toBe(400)
    expectEnvelope(missing.body, "bad_request")
    // another account may reuse a name
    const other = await account("pro")
    expect((await create(other.key, { name: "mine", expr: "gap_down" })).status).toBe(201)
  })

  it("reports compile errors with positions, a non-boolean root, depth above 5 and cycles", async () => {
    const { key } = await account("scale")
    const typo = await create(key, { name: "t1", expr: "pricee > 5" })
    expect(typo.status).toBe(400)
    expectEnvelope(typo.body, "compile_failed")
    expect(typo.body.error.errors[0]).toMatchObject({ code: "unknown_column", pos: 0, suggestion: "price" })

    const syntax = await create(key, { name: "t2", expr: "gap_up AND (price >" })
    expect(syntax.status).toBe(400)
    expectEnvelope(syntax.body, "compile_failed")
    expect(syntax.body.error.errors[0].code).toBe("syntax_error")
    expect(typeof syntax.body.error.errors[0].pos).toBe("number")

    const notBoolean = await create(key, { name: "t3", expr: "price * 2" })
    expect(notBoolean.status).toBe(400)
    expectEnvelope(notBoolean.body, "compile_failed")
    expect(notBoolean.body.error.errors[0]).toMatchObject({ code: "not_boolean", pos: 0 })

    const typeError = await create(key, { name: "t4", expr: "gap_up AND sector > 5" })
    expect(typeError.status).toBe(400)
    expect(typeError.body.error.errors[0].code).toBe("type_mismatch")

    // s1 <- s2 <- ... : a sixth level is too deep
    expect((await create(key, { name: "s1", expr: "price > 1" })).status).toBe(201)
    for (let i = 2; i <= 5; i++) {
      expect((await create(key, { name: `s${i}`, expr: `s${i - 1} AND price > ${i}` })).status).toBe(201)
    }
    const deep = await create(key, { name: "s6", expr: "s5 AND gap_up" })
    expect(deep.status).toBe(400)
    expectEnvelope(deep.body, "recursion_depth_exceeded")
    expect(deep.body.error.errors[0].code).toBe("recursion_depth_exceeded")
    expect(deep.body.error.errors[0].pos).toBe(0)

    // a cycle through PATCH, and a signal naming itself
    expect((await create(key, { name: "ca", expr: "gap_up" })).status).toBe(201)
    expect((await create(key, { name: "cb", expr: "ca OR gap_down" })).status).toBe(201)
    const cycle = await patch(key, "ca", { expr: "cb AND price > 1" })
    expect(cycle.status).toBe(400)
    expectEnvelope(cycle.body, "recursion_depth_exceeded")
    expect(cycle.body.error.errors[0].code).toBe("cycle")
    const self = await create(key, { name: "me", expr: "me OR gap_up" })
    expect(self.status).toBe(400)
    expectEnvelope(self.body, "recursion_depth_exceeded")
    // other signals are inlined: a custom name resolves in expr
    expect((await create(key, { name: "both", expr: "ca AND NOT cb" })).status).toBe(201)
  })

  it("caps Pro at 10 custom signals (the 11th is resource_limit_reached); Scale is unlimited", async () => {
    const { key } = await account("pro")
    for (let i = 0; i < 10; i++) expect((await create(key, { name: `p${i}`, expr: "gap_up" })).status).toBe(201)
    const eleventh = await create(key, { name: "p10", expr: "gap_up" })
    expect(eleventh.status).toBe(403)
    expectEnvelope(eleventh.body, "resource_limit_reached")
    const scale = await account("scale")
    for (let i = 0; i < 12; i++) expect((await create(scale.key, { name: `p${i}`, expr: "gap_up" })).status).toBe(201)
    expect((await get(scale.key, "/v2/signals?kind=custom&limit=200")).body.signals).toHaveLength(12)
  })

  it("pages the custom slice by name with every built-in on every page", async () => {
    const { key } = await account("pro")
    for (const name of ["echo", "alpha", "delta", "charlie", "bravo"]) {
      expect((await create(key, { name, expr: "gap_up", description: name })).status).toBe(201)
    }
    const names: Array<string> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const res = await get(key, `/v2/signals?limit=2${cursor === null ? "" : `&cursor=${cursor}`}`)
      expect(res.status).toBe(200)
      pages++
      expect(res.body.count_custom).toBe(5)
      expect(res.body.count_builtin).toBe(130)
      const custom = res.body.signals.filter((s: any) => s.kind === "expression")
      const builtin = res.body.signals.filter((s: any) => s.kind === "builtin")
      expect(builtin).toHaveLength(130)
      expect(res.body.signals.slice(0, custom.length)).toEqual(custom)
      for (const s of custom) {
        expect(Object.keys(s).sort()).toEqual(["created_at", "description", "expr", "kind", "name", "updated_at"])
      }
      names.push(...custom.map((s: any) => s.name))
      cursor = res.body.next_cursor
    } while (cursor !== null)
    expect(pages).toBe(3)
    expect(names).toEqual(["alpha", "bravo", "charlie", "delta", "echo"])

    const first = await get(key, "/v2/signals?kind=custom&limit=2")
    expect(first.body.signals.map((s: any) => s.name)).toEqual(["alpha", "bravo"])
    const changed = await get(key, `/v2/signals?kind=custom&limit=3&cursor=${first.body.next_cursor}`)
    expect(changed.status).toBe(400)
    expectEnvelope(changed.body, "bad_request")
    const otherAccount = await account("pro")
    expect(
      (await get(otherAccount.key, `/v2/signals?kind=custom&limit=2&cursor=${first.body.next_cursor}`)).status
    ).toBe(400)
  })

  it("patches expr and description; built-ins, unknown names and lower plans are refused", async () => {
    const { key, id } = await account("pro")
    const created = await create(key, { name: "hot", expr: "rsi_14 > 70", description: "overbought" })
    const patched = await patch(key, "hot", { expr: "rsi_14 > 80" })
    expect(patched.status).toBe(200)
    expect(patched.body.signal).toMatchObject({ name: "hot", expr: "rsi_14 > 80", description: "overbought" })
    expect(patched.body.signal.created_at).toBe(created.body.signal.created_at)
    const described = await patch(key, "hot", { description: "very hot" })
    expect(described.body.signal).toMatchObject({ expr: "rsi_14 > 80", description: "very hot" })
    expect((await patch(key, "hot", { description: null })).body.signal.description).toBeNull()

    const bad = await patch(key, "hot", { expr: "rsi_14 >" })
    expect(bad.status).toBe(400)
    expectEnvelope(bad.body, "compile_failed")
    const empty = await patch(key, "hot", {})
    expect(empty.status).toBe(400)
    expectEnvelope(empty.body, "bad_request")
    const builtin = await patch(key, "rsi_14", { expr: "true" })
    expect(builtin.status).toBe(400)
    expectEnvelope(builtin.body, "bad_request")
    const missing = await patch(key, "nothing", { expr: "gap_up" })
    expect(missing.status).toBe(404)
    expectEnvelope(missing.body, "not_found")

    await admin(server, "PATCH", `/admin/accounts/${id}`, { plan: "hobby" })
    const downgraded = await patch(key, "hot", { expr: "rsi_14 > 75" })
    expect(downgraded.status).toBe(403)
    expectEnvelope(downgraded.body, "custom_signals_tier_required")
    expect((await remove(key, "hot")).status).toBe(403)
    // the catalog still lists it (metadata is readable on every plan)
    expect((await get(key, "/v2/signals?kind=custom")).body.signals.map((s: any) => s.name)).toEqual(["hot"])
    const consume = await get(key, "/v2/signals/hot")
    expect(consume.status).toBe(403)
    expectEnvelope(consume.body, "custom_signals_tier_required")
  })

  it("consumes custom signals on Pro only: a downgraded account is refused everywhere they resolve", async () => {
    const { key, id } = await account("pro")
    const send = (method: string, path: string, body?: unknown) =>
      api(server, key, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    const day = weekend().friday
    expect((await create(key, { name: "cheap", expr: "price < 20" })).status).toBe(201)
    expect((await create(key, { name: "cheap_up", expr: "cheap AND day_change_pct > 0" })).status).toBe(201)
    const rule = await send("POST", "/v2/rules", { name: "cheap ones", q: "cheap AND volume_today > 0" })
    expect(rule.status).toBe(201)
    expect((await send("POST", "/v2/scan", { q: "cheap", limit: 1 })).status).toBe(200)

    expect((await admin(server, "PATCH", `/admin/accounts/${id}`, { plan: "hobby" })).status).toBe(200)
    const refused: Array<[string, string, unknown?]> = [
      ["POST", "/v2/scan", { q: "cheap AND price > 1" }],
      ["POST", "/v2/scan", { q: "cheap", asof: day }],
      ["POST", "/v2/scan/history", { q: "cheap", asof: day }],
      ["GET", "/v2/scan?q=cheap"],
      ["GET", `/v2/scan?q=cheap&asof=${day}`],
      ["POST", "/v2/scan", { rule: rule.body.id }],
      ["GET", "/v2/signals/cheap"],
      ["GET", `/v2/signals/cheap?asof=${day}`],
      ["GET", "/v2/signals/cheap/AAPL/history/1d"],
      ["GET", `/v2/signals/cheap/stats?from=${day}&to=${day}`],
      ["POST", "/v2/tickers/aapl/subscribe", { condition: "cheap" }],
      ["POST", "/v2/signals/cheap/subscribe", {}],
      ["POST", "/v2/webhooks", { q: "cheap_up" }],
      ["POST", "/v2/webhooks", { rule_id: rule.body.id }],
      ["POST", "/v2/rules", { name: "again", q: "cheap" }],
      ["PATCH", `/v2/rules/${rule.body.id}`, { q: "cheap_up" }],
      ["POST", "/v2/signals", { name: "cheaper", expr: "cheap AND price < 10" }],
      ["PATCH", "/v2/signals/cheap_up", { expr: "cheap" }]
    ]
    for (const [method, path, body] of refused) {
      const res = await send(method, path, body)
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(403)
      expectEnvelope(res.body, "custom_signals_tier_required")
    }
    // a name that is not one of the account's signals is a column as written: plain scans keep working
    expect((await send("POST", "/v2/scan", { q: "price > 1", limit: 1 })).status).toBe(200)
    expect((await send("GET", `/v2/scan?q=price%20%3E%201&asof=${day}&limit=1`)).status).toBe(200)
    expect((await send("POST", "/v2/tickers/aapl/subscribe", { condition: "price > 1" })).status).toBe(200)
    const unknown = await send("POST", "/v2/scan", { q: "pricey > 1" })
    expect(unknown.status).toBe(400)
    expectEnvelope(unknown.body, "invalid_query")
  })

  it("refuses to delete a referenced signal (spec's variant body) unless forced", async () => {
    const { key } = await account("pro")
    await create(key, { name: "base", expr: "gap_up" })
    await create(key, { name: "uses_base", expr: "base AND price > 5" })
    await create(key, { name: "also", expr: "NOT base" })
    await create(key, { name: "unrelated", expr: "gap_down" })
    const refused = await remove(key, "base")
    expect(refused.status).toBe(409)
    expect(refused.body).toEqual({
      error: "signal_referenced",
      message: expect.any(String),
      referencing_signals: ["also", "uses_base"],
      request_id: refused.headers.get("x-request-id")
    })
    expect((await remove(key, "base?force=false")).status).toBe(409)
    const unrelated = await remove(key, "unrelated")
    expect(unrelated.status).toBe(200)
    expect(unrelated.body).toEqual({ as_of: expect.any(String), ok: true })
    const forced = await remove(key, "base?force=true")
    expect(forced.status).toBe(200)
    expect(forced.body.ok).toBe(true)
    const gone = await remove(key, "base")
    expect(gone.status).toBe(404)
    expectEnvelope(gone.body, "not_found")
    // the dangling reference now fails to compile when read
    const dangling = await get(key, "/v2/signals/uses_base")
    expect(dangling.status).toBe(400)
    const builtin = await remove(key, "gap_up")
    expect(builtin.status).toBe(400)
    expectEnvelope(builtin.body, "bad_request")
    expect((await remove(key, "x?force=yes")).status).toBe(400)
  })

  it("lists boolean, numeric and custom matches that agree with each other (as of a fixed day)", async () => {
    const { key } = await account("pro")
    const day = weekend().friday
    const flag = await allMatches(key, `/v2/signals/rsi_overbought?asof=${day}`, 200)
    expect(flag.length).toBeGreaterThan(0)
    expect(flag.every((r) => r.value === true && typeof r.name === "string")).toBe(true)
    const tickers = flag.map((r) => r.ticker)
    expect(tickers).toEqual([...tickers].sort())

    const numeric = await allMatches(key, `/v2/signals/rsi_14?asof=${day}&condition=${encodeURIComponent(">70")}`, 150)
    expect(numeric.every((r) => typeof r.value === "number" && r.value > 70)).toBe(true)
    for (let i = 1; i < numeric.length; i++) {
      const [a, b] = [numeric[i - 1], numeric[i]]
      expect(a.value > b.value || (a.value === b.value && a.ticker < b.ticker)).toBe(true)
    }
    expect(numeric.map((r) => r.ticker).sort()).toEqual(tickers)

    await create(key, { name: "hot", expr: "rsi_14 > 70" })
    const custom = await allMatches(key, `/v2/signals/hot?asof=${day}&condition=ignored`, 200)
    expect(custom.map((r) => r.ticker)).toEqual(tickers)
    expect(custom.every((r) => r.value === true)).toBe(true)

    // a value agrees with the ticker's daily history on that day
    const sample = numeric[0]
    const hist = await get(key, `/v2/signals/rsi_14/${sample.ticker}/history/1d?from=${day}&to=${day}`)
    expect(hist.status).toBe(200)
    expect(hist.body.bars).toEqual([{ t: day, v: sample.value }])

    const first = await get(key, `/v2/signals/rsi_14?asof=${day}&condition=${encodeURIComponent(">70")}&limit=3`)
    expect(first.body).toMatchObject({
      as_of: day,
      signal: "rsi_14",
      condition: ">70",
      count: 3,
      total: numeric.length,
      _meta: { resolution: "daily", frozen_fields: ["name", "sector", "industry", "asset_type", "exchange"] }
    })
    expect(first.body.results).toEqual(numeric.slice(0, 3))
  })

  it("reads live matches, universes, conditions and errors", async () => {
    const { key } = await account("hobby")
    const live = await get(key, "/v2/signals/price?condition=%3E0&limit=5")
    expect(live.status).toBe(200)
    expect(live.body.as_of).toMatch(/^\d{4}-\d{2}-\d{2}T/)
    expect(live.body._meta).toBeUndefined()
    expect(live.body.results).toHaveLength(5)
    expect(Object.keys(live.body.results[0]).sort()).toEqual(["name", "ticker", "value"])
    const flags = await get(key, "/v2/signals/GAP_UP?condition=%3E5")
    expect(flags.status).toBe(200)
    expect(flags.body.condition).toBeNull()
    expect(flags.body.signal).toBe("gap_up")

    const top10 = await get(key, "/v2/signals/price?condition=%3E0&universe=top_10&limit=200")
    expect(top10.body.total).toBe(10)
    const top100 = await get(key, "/v2/signals/price?condition=%3E0&universe=top_100&limit=200")
    expect(top100.body.total).toBe(100)
    for (const r of top10.body.results) expect(top100.body.results.map((x: any) => x.ticker)).toContain(r.ticker)

    const cases: Array<[string, number, string]> = [
      ["/v2/signals/rsi_14", 400, "bad_request"],
      ["/v2/signals/rsi_14?condition=70", 400, "bad_request"],
      ["/v2/signals/rsi_14?condition=%3E%3Eabc", 400, "bad_request"],
      ["/v2/signals/rsi_14?condition=%3E70&asof=2024-13-40", 400, "bad_request"],
      ["/v2/signals/gap_up?limit=201", 400, "bad_request"],
      ["/v2/signals/gap_up?cursor=abc", 400, "bad_request"],
      ["/v2/signals/gap_up?universe=mine", 404, "universe_not_found"],
      ["/v2/signals/no_such_signal", 404, "not_found"],
      ["/v2/signals/sector", 404, "not_found"]
    ]
    for (const [path, status, code] of cases) {
      const res = await get(key, path)
      expect(res.status, path).toBe(status)
      expectEnvelope(res.body, code)
    }
  })

  it("carries the prior trading day forward on a weekend, and is empty long before the data", async () => {
    const { key } = await account("free")
    const { saturday, friday } = weekend()
    const sat = await get(key, `/v2/signals/price?condition=%3E0&asof=${saturday}&universe=top_100&limit=200`)
    expect(sat.status).toBe(200)
    expect(sat.body.as_of).toBe(saturday)
    expect(sat.body._meta.resolution).toBe("daily")
    const fri = await get(key, `/v2/signals/price?condition=%3E0&asof=${friday}&universe=top_100&limit=200`)
    const friday_ = new Map(fri.body.results.map((r: any) => [r.ticker, r.value]))
    // equities have no Saturday state: their Saturday value is Friday's (crypto trades on)
    let same = 0
    for (const r of sat.body.results) if (friday_.get(r.ticker) === r.value) same++
    expect(same).toBeGreaterThan(50)
    const old = await get(key, "/v2/signals/gap_up?asof=1995-01-03")
    expect(old.status).toBe(200)
    expect(old.body).toMatchObject({ as_of: "1995-01-03", count: 0, total: 0, results: [], next_cursor: null })
  })

  it("pages matches with cursors bound to the query", async () => {
    const { key } = await account("pro")
    const rows = await allMatches(key, "/v2/signals/price?condition=%3E0&universe=top_100", 30)
    expect(rows).toHaveLength(100)
    expect(new Set(rows.map((r) => r.ticker)).size).toBe(100)
    const first = await get(key, "/v2/signals/price?condition=%3E0&universe=top_100&limit=30")
    const changed = await get(
      key,
      `/v2/signals/price?condition=%3E1&universe=top_100&limit=30&cursor=${first.body.next_cursor}`
    )
    expect(changed.status).toBe(400)
    expectEnvelope(changed.body, "bad_request")
  })

  it("returns history at 1d and 1w with a backward cursor, and at 1m/1h for minute-tier tickers", async () => {
    const { key } = await account("pro")
    const top = await get(key, "/v2/signals/avg_dollar_volume_30d?condition=%3E0&limit=1")
    const ticker = top.body.results[0].ticker as string

    const daily = await get(key, `/v2/signals/price/${ticker.toLowerCase()}/history/1d?limit=20`)
    expect(daily.status).toBe(200)
    expect(daily.body).toMatchObject({ ticker, signal: "price", interval: "1d", count: 20 })
    const dates = daily.body.bars.map((b: any) => b.t)
    expect(dates.every((t: string) => /^\d{4}-\d{2}-\d{2}$/.test(t))).toBe(true)
    expect(dates).toEqual([...dates].sort())
    expect(daily.body.bars.every((b: any) => typeof b.v === "number")).toBe(true)
    const older = await get(key, `/v2/signals/price/${ticker}/history/1d?limit=20&cursor=${daily.body.next_cursor}`)
    expect(older.status).toBe(200)
    expect(older.body.bars).toHaveLength(20)
    expect(older.body.bars[19].t < dates[0]).toBe(true)
    const both = await get(key, `/v2/signals/price/${ticker}/history/1d?limit=40`)
    expect(both.body.bars).toEqual([...older.body.bars, ...daily.body.bars])
    expect(
      (await get(key, `/v2/signals/price/${ticker}/history/1d?limit=10&cursor=${daily.body.next_cursor}`)).status
    ).toBe(400)

    const weekly = await get(key, `/v2/signals/rsi_14/${ticker}/history/1w?limit=10`)
    expect(weekly.status).toBe(200)
    expect(weekly.body.bars).toHaveLength(10)
    const weeks = weekly.body.bars.map((b: any) => Math.floor((Date.parse(b.t) / 86_400_000 - 4) / 7))
    expect(new Set(weeks).size).toBe(10)
    const weeklyOlder = await get(
      key,
      `/v2/signals/rsi_14/${ticker}/history/1w?limit=10&cursor=${weekly.body.next_cursor}`
    )
    const olderWeeks = weeklyOlder.body.bars.map((b: any) => Math.floor((Date.parse(b.t) / 86_400_000 - 4) / 7))
    expect(Math.max(...olderWeeks)).toBeLessThan(Math.min(...weeks))

    for (const interval of ["1m", "1h"]) {
      const res = await get(key, `/v2/signals/pct_from_vwap/${ticker}/history/${interval}?limit=30`)
      expect(res.status, interval).toBe(200)
      expect(res.body.bars.length).toBeGreaterThan(0)
      const ts = res.body.bars.map((b: any) => b.t)
      expect(ts.every((t: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/.test(t))).toBe(true)
      expect(ts).toEqual([...ts].sort())
      if (interval === "1h") {
        const page2 = await get(
          key,
          `/v2/signals/pct_from_vwap/${ticker}/history/1h?limit=30&cursor=${res.body.next_cursor}`
        )
        expect(page2.status).toBe(200)
        expect(page2.body.bars[page2.body.bars.length - 1].t < ts[0]).toBe(true)
      }
    }
  })

  it("returns a custom signal's history as booleans that follow its expression", async () => {
    const { key } = await account("pro")
    await create(key, { name: "up_day", expr: "day_change_pct > 0" })
    await create(key, { name: "strong_up", expr: "up_day AND rsi_14 > 50" })
    const top = await get(key, "/v2/signals/avg_dollar_volume_30d?condition=%3E0&limit=1")
    const ticker = top.body.results[0].ticker as string
    const custom = await get(key, `/v2/signals/up_day/${ticker}/history/1d?limit=60`)
    expect(custom.status).toBe(200)
    const values = await get(key, `/v2/signals/day_change_pct/${ticker}/history/1d?limit=60`)
    expect(custom.body.bars.map((b: any) => b.t)).toEqual(values.body.bars.map((b: any) => b.t))
    expect(custom.body.bars.map((b: any) => b.v)).toEqual(
      values.body.bars.map((b: any) => typeof b.v === "number" && b.v > 0)
    )
    expect(new Set(custom.body.bars.map((b: any) => b.v)).size).toBe(2)
    const minute = await get(key, `/v2/signals/up_day/${ticker}/history/1h?limit=10`)
    expect(minute.status).toBe(200)
    expect(minute.body.bars.every((b: any) => typeof b.v === "boolean")).toBe(true)
    const daily = await get(key, `/v2/signals/strong_up/${ticker}/history/1m`)
    expect(daily.status).toBe(400)
    expectEnvelope(daily.body, "signal_not_available_at_interval")
  })

  it("refuses intervals, daily-only columns at 1m/1h, tickers outside the minute tier, and dates outside the plan window", async () => {
    const pro = await account("pro")
    const top = await get(pro.key, "/v2/signals/avg_dollar_volume_30d?condition=%3E0&limit=1")
    const ticker = top.body.results[0].ticker as string
    const small = await get(pro.key, "/v2/signals/avg_dollar_volume_30d?condition=%3C100000&limit=1")
    const smallTicker = small.body.results[0].ticker as string

    const cases: Array<[string, number, string]> = [
      [`/v2/signals/price/${ticker}/history/5m`, 400, "bad_request"],
      [`/v2/signals/rsi_14/${ticker}/history/1m`, 400, "signal_not_available_at_interval"],
      [`/v2/signals/sma_50/${ticker}/history/1h`, 400, "signal_not_available_at_interval"],
      [`/v2/signals/price/${smallTicker}/history/1m`, 400, "ticker_not_in_minute_tier"],
      [`/v2/signals/price/NOPE_NOT_A_TICKER/history/1d`, 404, "not_found"],
      [`/v2/signals/nothing/${ticker}/history/1d`, 404, "not_found"],
      [`/v2/signals/price/${ticker}/history/1d?limit=1001`, 400, "bad_request"],
      [`/v2/signals/price/${ticker}/history/1d?from=yesterday`, 400, "bad_request"],
      [`/v2/signals/price/${ticker}/history/1d?cursor=zzz`, 400, "bad_request"]
    ]
    for (const [path, status, code] of cases) {
      const res = await get(pro.key, path)
      expect(res.status, path).toBe(status)
      expectEnvelope(res.body, code)
    }
    expect((await get(pro.key, `/v2/signals/price/${smallTicker}/history/1d?limit=5`)).status).toBe(200)

    const proOld = await get(pro.key, `/v2/signals/price/${ticker}/history/1d?from=${daysAgo(6 * 365)}`)
    expect(proOld.status).toBe(400)
    expectEnvelope(proOld.body, "history_window_exceeded")
    expect(proOld.body.error.max_history_days).toBe(1825)
    expect(proOld.body.error.earliest_allowed_from).toBe(daysAgo(1825))

    const hobby = await account("hobby")
    const hobbyOld = await get(hobby.key, `/v2/signals/price/${ticker}/history/1d?from=${daysAgo(30)}`)
    expect(hobbyOld.status).toBe(400)
    expectEnvelope(hobbyOld.body, "history_window_exceeded")
    expect(hobbyOld.body.error.max_history_days).toBe(0)
    expect(hobbyOld.body.error.earliest_allowed_from).toBe(daysAgo(0))
    // the default window never fails: Hobby sees today only
    const hobbyDefault = await get(hobby.key, `/v2/signals/price/${ticker}/history/1d`)
    expect(hobbyDefault.status).toBe(200)
    expect(hobbyDefault.body.bars.every((b: any) => b.t === daysAgo(0))).toBe(true)

    // Scale: no plan window; the default starts at the first available bar
    const scale = await account("scale")
    const all = await get(scale.key, `/v2/signals/price/${ticker}/history/1d?limit=1000&from=${daysAgo(365)}`)
    expect(all.status).toBe(200)
    expect(all.body.bars[0].t >= daysAgo(365)).toBe(true)
    const everything = await get(scale.key, `/v2/signals/price/${ticker}/history/1w?limit=1000`)
    expect(everything.status).toBe(200)
    expect(everything.body.next_cursor).toBeNull()
    expect(everything.body.bars.length).toBeGreaterThan(52)
  })
})
