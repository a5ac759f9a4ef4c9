/**
 * POST /v2/news/scan and POST /v2/sandbox/news/scan over real HTTP, against
 * one started server: shapes, filters, ordering, paging, the archive gate per
 * plan, the sandbox cap and per-IP limit, every error path, and the
 * cross-check of the mentions against the `news_volume` column.
 */
import { request } from "node:http"
import { describe, expect, it } from "vitest"
import { previousTradingDay } from "../../../src/market/calendar.js"
import { admin, api } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"

const DAY = 86_400_000
const HOUR = 3_600_000
const iso = (ms: number) => new Date(ms).toISOString()

/**
 * A window pinned to the busy hours of the last trading day before the market
 * instant's UTC day: from 14:00 UTC for `minutes`. The simulated stream puts 65 %
 * of a day's mentions in 12:00-22:00 UTC and halves equity news on days without
 * a session, so a window placed by the clock (e.g. the last few hours) holds
 * five times fewer mentions at night than in the afternoon; this one holds
 * about the same number whatever the hour the test runs at, and lies wholly
 * before the instant (at least 8 hours) and within the 7-day window of every plan.
 */
const busyWindow = (asOf: number, minutes: number) => {
  const day = previousTradingDay(iso(asOf).slice(0, 10))
  const from = Date.parse(`${day}T14:00:00.000Z`)
  return { from: iso(from), to: iso(from + minutes * 60_000) }
}

interface Item {
  id: string
  ticker: string
  published_at: string
  relevance: number
  sentiment: number
}

const expectEnvelope = (body: any, code: string) => {
  expect(body.error.code).toBe(code)
  expect(typeof body.error.message).toBe("string")
  expect(body.error.message.length).toBeGreaterThan(0)
  expect(body.error.request_id).toMatch(/^req_/)
}

/** The keyset order: published_at desc, ticker asc, index asc. */
const precedes = (a: Item, b: Item): boolean => {
  const ta = Date.parse(a.published_at)
  const tb = Date.parse(b.published_at)
  if (ta !== tb) return ta > tb
  if (a.ticker !== b.ticker) return a.ticker < b.ticker
  return Number(a.id.split(":")[2]) < Number(b.id.split(":")[2])
}

const expectOrdered = (items: ReadonlyArray<Item>) => {
  for (let i = 1; i < items.length; i++) expect(precedes(items[i - 1]!, items[i]!)).toBe(true)
}

const expectItemShape = (item: any) => {
  expect(Object.keys(item).sort()).toEqual(["id", "published_at", "relevance", "sentiment", "ticker"])
  expect(typeof item.ticker).toBe("string")
  const [ticker, day, index] = item.id.split(":")
  expect(ticker).toBe(item.ticker)
  expect(day).toBe(item.published_at.slice(0, 10).replaceAll("-", ""))
  expect(index).toMatch(/^\d+$/)
  expect(item.published_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  expect(item.relevance).toBeGreaterThanOrEqual(0)
  expect(item.relevance).toBeLessThanOrEqual(1)
  expect(item.sentiment).toBeGreaterThanOrEqual(-1)
  expect(item.sentiment).toBeLessThanOrEqual(1)
  expect(Math.round(item.relevance * 1000) / 1000).toBe(item.relevance)
  expect(Math.round(item.sentiment * 1000) / 1000).toBe(item.sentiment)
}

describe("news scan over HTTP", () => {
  const server = serveForSuite()

  const account = async (plan: string) => {
    const created = await admin(server, "POST", "/admin/accounts", { plan })
    expect(created.status).toBe(201)
    return { key: created.body.api_key as string, id: created.body.account_id as string }
  }
  const scan = (key: string | undefined, body: unknown, query = "") =>
    api(server, key, `/v2/news/scan${query}`, { method: "POST", body: JSON.stringify(body) })
  const sandbox = (body: unknown, query = "") =>
    api(server, undefined, `/v2/sandbox/news/scan${query}`, { method: "POST", body: JSON.stringify(body) })

  /** Every item of a walk, following next_cursor; checks each page on the way. */
  const walk = async (send: (body: any) => Promise<{ status: number; body: any }>, body: any, maxPages = 400) => {
    const items: Array<Item> = []
    let cursor: string | null = null
    let first: any
    for (let pages = 0; pages < maxPages; pages++) {
      const res = await send(cursor === null ? body : { ...body, cursor })
      expect(res.status).toBe(200)
      first ??= res.body
      expect(res.body.as_of).toBe(first.as_of)
      expect(res.body.query).toEqual(first.query)
      expect(res.body.count).toBe(res.body.results.length)
      expect(res.body.results.length).toBeLessThanOrEqual(res.body.query.limit)
      items.push(...res.body.results)
      cursor = res.body.next_cursor
      if (cursor === null) return { items, first }
    }
    throw new Error("walk did not end")
  }

  it("answers the default scan with the documented shape, newest first, never after the market instant", async () => {
    const { key } = await account("free")
    const res = await scan(key, {})
    expect(res.status).toBe(200)
    expect(Object.keys(res.body).sort()).toEqual(["as_of", "count", "next_cursor", "query", "results"])
    const asOf = Date.parse(res.body.as_of)
    expect(res.body.query).toEqual({
      tickers: null,
      from: iso(asOf - DAY + 1),
      to: res.body.as_of,
      min_relevance: 0,
      sentiment_min: -1,
      sentiment_max: 1,
      limit: 50
    })
    // every tracked ticker over a day: thousands of mentions, so a full page and a cursor
    expect(res.body.count).toBe(50)
    expect(typeof res.body.next_cursor).toBe("string")
    for (const item of res.body.results) {
      expectItemShape(item)
      const t = Date.parse(item.published_at)
      expect(t).toBeGreaterThan(asOf - DAY)
      expect(t).toBeLessThanOrEqual(asOf)
    }
    expectOrdered(res.body.results)
    expect(new Set(res.body.results.map((i: Item) => i.ticker)).size).toBeGreaterThan(1)
    // the authenticated limit headers of the key's plan
    expect(res.headers.get("x-ratelimit-limit")).toBe("60")
    expect(Number(res.headers.get("x-ratelimit-remaining"))).toBeLessThan(60)
    expect(res.headers.get("x-request-id")).toMatch(/^req_/)

    // `to` in the future is lowered to the market instant; nothing later ever comes back
    const future = await scan(key, { to: "2100-01-01T00:00:00Z", from: iso(asOf - HOUR), limit: 100 })
    expect(future.status).toBe(200)
    expect(Date.parse(future.body.query.to)).toBe(Date.parse(future.body.as_of))
    for (const item of future.body.results) {
      expect(Date.parse(item.published_at)).toBeLessThanOrEqual(Date.parse(future.body.as_of))
    }
    // a window entirely after the market instant is empty, not an error
    const ahead = await scan(key, { from: iso(Date.parse(future.body.as_of) + DAY) })
    expect(ahead.status).toBe(200)
    expect(ahead.body.results).toEqual([])
    expect(ahead.body.next_cursor).toBeNull()
  })

  it("filters by tickers, relevance and sentiment: every item satisfies them and none is missed", async () => {
    const { key } = await account("pro")
    const first = await scan(key, { limit: 1 })
    const asOf = Date.parse(first.body.as_of)
    const window = { from: iso(asOf - 3 * DAY), to: iso(asOf - HOUR) }
    // symbols in other conventions are canonicalised, duplicates dropped
    const all = await walk((b) => scan(key, b), { ...window, tickers: ["aapl", "MSFT", "$AAPL"], limit: 100 })
    expect(all.first.query.tickers).toEqual(["AAPL", "MSFT"])
    expect(all.items.length).toBeGreaterThan(20)
    expect(new Set(all.items.map((i) => i.ticker))).toEqual(new Set(["AAPL", "MSFT"]))
    expectOrdered(all.items)
    for (const item of all.items) {
      expectItemShape(item)
      expect(Date.parse(item.published_at)).toBeGreaterThanOrEqual(Date.parse(window.from))
      expect(Date.parse(item.published_at)).toBeLessThanOrEqual(Date.parse(window.to))
    }

    const filters = { min_relevance: 0.6, sentiment_min: -0.3, sentiment_max: 0.4 }
    const filtered = await walk((b) => scan(key, b), { ...window, tickers: ["AAPL", "MSFT"], ...filters, limit: 7 })
    expect(filtered.first.query).toMatchObject({ ...filters, limit: 7 })
    for (const item of filtered.items) {
      expect(item.relevance).toBeGreaterThanOrEqual(0.6)
      expect(item.sentiment).toBeGreaterThanOrEqual(-0.3)
      expect(item.sentiment).toBeLessThanOrEqual(0.4)
    }
    const expected = all.items.filter((i) => i.relevance >= 0.6 && i.sentiment >= -0.3 && i.sentiment <= 0.4)
    expect(expected.length).toBeGreaterThan(0)
    expect(expected.length).toBeLessThan(all.items.length)
    expect(filtered.items).toEqual(expected)

    // bounds are inclusive: the extreme values select everything
    const everything = await walk((b) => scan(key, b), {
      ...window,
      tickers: ["AAPL", "MSFT"],
      min_relevance: 0,
      sentiment_min: -1,
      sentiment_max: 1,
      limit: 100
    })
    expect(everything.items).toEqual(all.items)

    // one ticker alone gives exactly its part of the two-ticker walk
    const msft = await walk((b) => scan(key, b), { ...window, tickers: ["msft"], limit: 100 })
    expect(msft.items).toEqual(all.items.filter((i) => i.ticker === "MSFT"))

    // date forms: a date `from` is its 00:00 UTC, a date `to` its last millisecond
    const day = iso(asOf - 2 * DAY).slice(0, 10)
    const byDate = await scan(key, { tickers: ["AAPL"], from: day, to: day, limit: 100 })
    expect(byDate.status).toBe(200)
    expect(byDate.body.query.from).toBe(`${day}T00:00:00.000Z`)
    expect(byDate.body.query.to).toBe(`${day}T23:59:59.999Z`)
    expect(byDate.body.results.length).toBeGreaterThan(0)
    for (const item of byDate.body.results) expect(item.published_at.slice(0, 10)).toBe(day)
    // a timestamp with an offset is the same instant as its UTC form
    const offset = await scan(key, { tickers: ["AAPL"], from: `${day}T02:00:00+02:00`, to: `${day}T23:59:59.999Z` })
    expect(offset.body.query.from).toBe(`${day}T00:00:00.000Z`)
    // `to` alone: the 24 hours before it
    const toOnly = await scan(key, { tickers: ["AAPL"], to: day })
    expect(toOnly.body.query.from).toBe(`${day}T00:00:00.000Z`)
  })

  it("pages without duplicates or gaps, whatever the page size, on a fixed window", async () => {
    const { key, id } = await account("pro")
    const probe = await scan(key, { limit: 1 })
    const asOf = Date.parse(probe.body.as_of)
    // the whole market over 90 minutes of a session's afternoon: well over a thousand mentions
    const body = busyWindow(asOf, 90)
    const big = await walk((b) => scan(key, b), { ...body, limit: 100 })
    expect(big.items.length).toBeGreaterThan(300)
    const ids = big.items.map((i) => i.id)
    expect(new Set(ids).size).toBe(ids.length)
    expectOrdered(big.items)
    const small = await walk((b) => scan(key, b), { ...body, limit: 37 })
    expect(small.items.map((i) => i.id)).toEqual(ids)
    // the tickers-restricted walk is exactly the matching subset (no gap in the full walk)
    const some = [...new Set(big.items.slice(0, 200).map((i) => i.ticker))].slice(0, 12)
    const subset = await walk((b) => scan(key, b), { ...body, tickers: some, limit: 100 })
    const wanted = new Set(some)
    expect(subset.items).toEqual(big.items.filter((i) => wanted.has(i.ticker)))

    // a walk keeps the window of its first page
    const open = await scan(key, { limit: 5 })
    const next = await scan(key, { limit: 5, cursor: open.body.next_cursor })
    expect(next.status).toBe(200)
    expect(next.body.as_of).toBe(open.body.as_of)
    expect(next.body.query).toEqual(open.body.query)
    expect(precedes(open.body.results[4], next.body.results[0])).toBe(true)

    // cursors: tampered, other parameters, other account, other endpoint
    const cursor = open.body.next_cursor as string
    const flipped = cursor.slice(0, 10) + (cursor[10] === "A" ? "B" : "A") + cursor.slice(11)
    const tampered = await scan(key, { limit: 5, cursor: flipped })
    expect(tampered.status).toBe(400)
    expectEnvelope(tampered.body, "bad_request")
    expect(tampered.body.error.message).toMatch(/cursor/)
    const garbage = await scan(key, { limit: 5, cursor: "not a cursor!" })
    expect(garbage.status).toBe(400)
    expectEnvelope(garbage.body, "bad_request")
    for (const changed of [{ limit: 6 }, { limit: 5, min_relevance: 0.1 }, { limit: 5, tickers: ["AAPL"] }]) {
      const res = await scan(key, { ...changed, cursor })
      expect(res.status).toBe(400)
      expectEnvelope(res.body, "bad_request")
      expect(res.body.error.message).toMatch(/cursor/)
    }
    const other = await account("pro")
    expect(other.id).not.toBe(id)
    const foreign = await scan(other.key, { limit: 5, cursor })
    expect(foreign.status).toBe(400)
    expectEnvelope(foreign.body, "bad_request")
    const crossed = await sandbox({ limit: 5, cursor })
    expect(crossed.status).toBe(400)
    expectEnvelope(crossed.body, "bad_request")
  })

  it("gates the archive beyond 7 days on Pro and above", async () => {
    const plans = ["free", "hobby", "pro", "scale", "enterprise"] as const
    const keys = Object.fromEntries(await Promise.all(plans.map(async (p) => [p, (await account(p)).key] as const)))
    const probe = await scan(keys.free!, { limit: 1 })
    const asOf = Date.parse(probe.body.as_of)
    const archive = { tickers: ["AAPL"], from: iso(asOf - 10 * DAY), to: iso(asOf - 9 * DAY), limit: 100 }
    for (const plan of ["free", "hobby"]) {
      const res = await scan(keys[plan], archive)
      expect(res.status).toBe(403)
      expectEnvelope(res.body, "news_archive_tier_required")
      // 7 days before the market instant (which a refresh may have moved on since the probe)
      const earliest = Date.parse(res.body.error.earliest_allowed_from)
      expect(earliest).toBeGreaterThanOrEqual(asOf - 7 * DAY)
      expect(earliest).toBeLessThan(asOf - 7 * DAY + 10 * 60_000)
      expect(res.body.error.message).toContain(plan)
      // a `to` older than 7 days alone needs the archive too (from defaults to to - 24 h)
      const old = await scan(keys[plan], { to: iso(asOf - 8 * DAY) })
      expect(old.status).toBe(403)
      expectEnvelope(old.body, "news_archive_tier_required")
      // inside the 7 days: fine
      const recent = await scan(keys[plan], { tickers: ["AAPL"], from: iso(asOf - 6 * DAY), limit: 1 })
      expect(recent.status).toBe(200)
    }
    for (const plan of ["pro", "scale", "enterprise"]) {
      const res = await scan(keys[plan], archive)
      expect(res.status).toBe(200)
      expect(res.body.results.length).toBeGreaterThan(0)
      for (const item of res.body.results) {
        expect(Date.parse(item.published_at)).toBeGreaterThanOrEqual(asOf - 10 * DAY)
        expect(Date.parse(item.published_at)).toBeLessThanOrEqual(asOf - 9 * DAY)
      }
    }
    // a few tickers are read ticker by ticker, many from whole days: the same mentions, the same ids
    const window = { from: iso(asOf - 13 * DAY), to: iso(asOf - 11 * DAY), limit: 100 }
    const alone = await walk((b) => scan(keys.pro!, b), { ...window, tickers: ["NVDA"] })
    const many = ["NVDA", "AAPL", "MSFT", "AMZN", "GOOGL", "META", "TSLA", "JPM", "XOM", "BTC"]
    const together = await walk((b) => scan(keys.scale!, b), { ...window, tickers: many })
    expect(alone.items.length).toBeGreaterThan(10)
    expect(together.items.filter((i) => i.ticker === "NVDA")).toEqual(alone.items)

    // the archive reaches back to the start of the market's history window, no further
    const deep = await scan(keys.pro!, { tickers: ["AAPL"], from: "2000-01-01", limit: 1 })
    expect(deep.status).toBe(200)
    const start = Date.parse(deep.body.query.from)
    expect(deep.body.query.from).toMatch(/T00:00:00\.000Z$/)
    expect(start).toBeGreaterThan(asOf - 450 * DAY)
    expect(start).toBeLessThan(asOf - 300 * DAY)

    // authentication errors
    const none = await account("none")
    const refused = await scan(none.key, {})
    expect(refused.status).toBe(402)
    expectEnvelope(refused.body, "subscription_required")
    const anonymous = await scan(undefined, {})
    expect(anonymous.status).toBe(401)
    expectEnvelope(anonymous.body, "unauthenticated")
    const badKey = await scan("vigil_test_nope", {})
    expect(badKey.status).toBe(401)
    expectEnvelope(badKey.body, "unauthenticated")
  })

  it("refuses every malformed request with a 400 envelope naming the problem", async () => {
    const { key } = await account("pro")
    const cases: Array<[unknown, RegExp, string?]> = [
      [{ foo: 1 }, /foo/],
      [{ tickers: "AAPL" }, /tickers/],
      [{ tickers: [] }, /tickers/],
      [{ tickers: Array.from({ length: 51 }, (_, i) => `T${i}`) }, /at most 50/],
      [{ tickers: ["AAPL", "NOT A SYMBOL"] }, /malformed/],
      [{ tickers: ["AAPL", "ZZZZQX", "QQQQZY"] }, /ZZZZQX, QQQQZY/, "unknown_tickers"],
      [{ from: "yesterday" }, /from/],
      [{ from: "2026-13-01" }, /from/],
      [{ to: "2026-02-30" }, /to/],
      [{ to: "2026-02-03T25:00:00Z" }, /to/],
      [{ from: 5 }, /from/],
      [{ from: "2026-03-02", to: "2026-03-01" }, /after/],
      [{ min_relevance: 1.5 }, /min_relevance/],
      [{ min_relevance: -0.1 }, /min_relevance/],
      [{ min_relevance: "0.5" }, /min_relevance/],
      [{ sentiment_min: -2 }, /sentiment_min/],
      [{ sentiment_max: 1.01 }, /sentiment_max/],
      [{ sentiment_min: 0.5, sentiment_max: 0.1 }, /sentiment_min/],
      [{ limit: 0 }, /limit/],
      [{ limit: 101 }, /limit/],
      [{ limit: 2.5 }, /limit/],
      [{ cursor: 12 }, /cursor/],
      [[], /request/]
    ]
    for (const [body, message, code] of cases) {
      const res = await scan(key, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expectEnvelope(res.body, code ?? "bad_request")
      expect(res.body.error.message, JSON.stringify(body)).toMatch(message)
      if (code === "unknown_tickers") expect(res.body.error.disallowed).toEqual(["ZZZZQX", "QQQQZY"])
    }
    // any query parameter: this endpoint takes its parameters in the body
    const query = await scan(key, {}, "?limit=5&tickers=AAPL")
    expect(query.status).toBe(400)
    expectEnvelope(query.body, "bad_request")
    expect(query.body.error.message).toMatch(/limit, tickers/)
    // malformed JSON
    const broken = await api(server, key, "/v2/news/scan", { method: "POST", body: '{"limit": ' })
    expect(broken.status).toBe(400)
    expectEnvelope(broken.body, "bad_request")
    // nulls count as absent (a next_cursor of null can be sent back as is)
    const nulls = await scan(key, { tickers: null, cursor: null, limit: null, from: null })
    expect(nulls.status).toBe(200)
    expect(nulls.body.query.limit).toBe(50)
    // the same errors on the sandbox
    const sandboxed = await sandbox({ min_relevance: 2 })
    expect(sandboxed.status).toBe(400)
    expectEnvelope(sandboxed.body, "bad_request")
    const sandboxQuery = await sandbox({}, "?x=1")
    expect(sandboxQuery.status).toBe(400)
    expectEnvelope(sandboxQuery.body, "bad_request")
    const sandboxUnknown = await sandbox({ tickers: ["ZZZZQX"] })
    expect(sandboxUnknown.status).toBe(400)
    expectEnvelope(sandboxUnknown.body, "unknown_tickers")
  })

  it("counts exactly news_volume: the mentions at relevance >= 0.6 in the 24 h before the 15-minute boundary", async () => {
    const { key } = await account("pro")
    for (const symbol of ["AAPL", "TSLA", "BTC", "SPY"]) {
      const row = await api(server, key, `/v2/tickers/${symbol}`)
      expect(row.status).toBe(200)
      const asOf = Date.parse(row.body.as_of)
      const tq = Math.floor(asOf / (15 * 60_000)) * 15 * 60_000
      const window = { tickers: [symbol], from: iso(tq - DAY + 1), to: iso(tq), limit: 100 }
      const relevant = await walk((b) => scan(key, b), { ...window, min_relevance: 0.6 })
      expect(relevant.first.query.to).toBe(iso(tq))
      expect(relevant.items.length, symbol).toBe(row.body.data.news_volume)
      // and the weighted sentiment from all the window's mentions
      const all = await walk((b) => scan(key, b), window)
      const ascending = [...all.items].reverse()
      let weight = 0
      let weighted = 0
      for (const m of ascending) {
        if (m.relevance > 0) {
          weight += m.relevance
          weighted += m.relevance * m.sentiment
        }
      }
      const volume = relevant.items.length
      const expected = volume > 0 && weight > 0 ? (weighted / weight) * Math.tanh(volume / 15) : 0
      expect(row.body.data.news_volume_weighted_sentiment, symbol).toBeCloseTo(expected, 9)
    }
  })

  it("mirrors the scan on the sandbox: no key, 50 rows at most, no archive", async () => {
    const { key } = await account("pro")
    const probe = await scan(key, { limit: 1 })
    const asOf = Date.parse(probe.body.as_of)
    // an hour of a session's afternoon: several hundred mentions, so a capped page and a second one
    const body = { ...busyWindow(asOf, 60), limit: 40 }
    const authed = await scan(key, body)
    const open = await sandbox(body)
    expect(open.status).toBe(200)
    expect(open.body.query).toEqual(authed.body.query)
    expect(open.body.results).toEqual(authed.body.results)
    expect(open.headers.get("x-ratelimit-limit")).toBe("60")
    expect(open.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/)
    expect(Number(open.headers.get("x-ratelimit-remaining"))).toBeGreaterThanOrEqual(0)

    // a limit above 50 is lowered to 50
    const capped = await sandbox({ ...body, limit: 100 })
    expect(capped.status).toBe(200)
    expect(capped.body.query.limit).toBe(50)
    expect(capped.body.count).toBe(50)
    expect(capped.body.results).toEqual((await scan(key, { ...body, limit: 50 })).body.results)
    const defaulted = await sandbox({})
    expect(defaulted.body.query.limit).toBe(50)
    expect(defaulted.body.results.length).toBe(50)
    // its cursor walks on, 50 at a time, no duplicates
    const second = await sandbox({ ...body, limit: 100, cursor: capped.body.next_cursor })
    expect(second.status).toBe(200)
    expect(second.body.results.length).toBeLessThanOrEqual(50)
    const ids = [...capped.body.results, ...second.body.results].map((i: Item) => i.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(precedes(capped.body.results[49], second.body.results[0])).toBe(true)
    // over 100 is refused as on the authenticated endpoint
    const over = await sandbox({ limit: 101 })
    expect(over.status).toBe(400)
    expectEnvelope(over.body, "bad_request")

    // no archive
    const archive = await sandbox({ from: iso(asOf - 8 * DAY) })
    expect(archive.status).toBe(403)
    expectEnvelope(archive.body, "news_archive_tier_required")
    expect(archive.body.error.message).toMatch(/sandbox/)
    expect(typeof archive.body.error.earliest_allowed_from).toBe("string")
    expect(archive.headers.get("x-ratelimit-limit")).toBe("60")
  })

  it("rate-limits the sandbox per client IP (the peer address, not X-Forwarded-For)", async () => {
    // loopback aliases give two distinct client IPs (the connection's local address)
    const send = (localAddress: string, body: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; headers: Record<string, any>; body: any }>((resolve, reject) => {
        const url = new URL(`${server.url}/v2/sandbox/news/scan`)
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: "POST",
            localAddress,
            agent: false,
            headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers }
          },
          (res) => {
            let text = ""
            res.setEncoding("utf8")
            res.on("data", (chunk) => (text += chunk))
            res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }))
          }
        )
        req.on("error", reject)
        req.end(body)
      })
    const first = "127.0.0.3"
    const second = "127.0.0.4"
    const remaining: Array<number> = []
    for (let i = 0; i < 60; i++) {
      // malformed requests count as well: the limit applies before the body is read
      const res = await send(first, i % 10 === 9 ? '{"nope": 1}' : JSON.stringify({ limit: 1 }), {
        "x-forwarded-for": `198.51.100.${i}`
      })
      expect(res.status).toBe(i % 10 === 9 ? 400 : 200)
      expect(res.headers["x-ratelimit-limit"]).toBe("60")
      expect(res.headers["x-ratelimit-reset"]).toBe("60")
      remaining.push(Number(res.headers["x-ratelimit-remaining"]))
    }
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i))
    const limited = await send(first, JSON.stringify({ limit: 1 }))
    expect(limited.status).toBe(429)
    expectEnvelope(limited.body, "rate_limited")
    expect(limited.headers["x-ratelimit-remaining"]).toBe("0")
    expect(limited.headers["x-ratelimit-limit"]).toBe("60")
    const retryAfter = Number(limited.headers["retry-after"])
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(retryAfter).toBeLessThanOrEqual(Number(limited.headers["x-ratelimit-reset"]))
    // a forwarding header does not make another client
    const spoofed = await send(first, JSON.stringify({ limit: 1 }), {
      "x-forwarded-for": "203.0.113.99",
      "x-real-ip": "203.0.113.99",
      forwarded: "for=203.0.113.99"
    })
    expect(spoofed.status).toBe(429)
    // another address has its own count
    const fresh = await send(second, JSON.stringify({ limit: 1 }))
    expect(fresh.status).toBe(200)
    expect(fresh.headers["x-ratelimit-remaining"]).toBe("59")
    // the authenticated endpoint is not affected by the sandbox's count
    const { key } = await account("free")
    expect((await scan(key, { limit: 1 })).status).toBe(200)
  })

  it("describes both endpoints in the OpenAPI document", async () => {
    const res = await api(server, undefined, "/v2/openapi.json")
    expect(res.status).toBe(200)
    const scanOp = res.body.paths["/v2/news/scan"].post
    const sandboxOp = res.body.paths["/v2/sandbox/news/scan"].post
    expect(scanOp.description).toMatch(/news_archive_tier_required/)
    expect(scanOp.security).toEqual([{ bearer: [] }])
    expect(sandboxOp.description).toMatch(/per client IP/)
    expect(sandboxOp.security).toEqual([])
    expect(Object.keys(scanOp.requestBody.content["application/json"].schema.properties).sort()).toEqual([
      "cursor",
      "from",
      "limit",
      "min_relevance",
      "sentiment_max",
      "sentiment_min",
      "tickers",
      "to"
    ])
    expect(Object.keys(scanOp.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "402", "403", "429"]))
    expect(Object.keys(sandboxOp.responses)).toEqual(expect.arrayContaining(["200", "400", "403", "429"]))
  })
})
