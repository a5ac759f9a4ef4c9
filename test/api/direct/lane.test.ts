/**
 * The direct path (src/api/direct) against a real server: its answers — made
 * now or repeated from the answers cache — are byte for byte the API's for the
 * same request, with fresh per-request headers, a log line and metrics; a
 * repeated answer is never served after the snapshot moved, to a key that
 * stopped being valid, past the rate limit, or to another account (scans);
 * scans whose answer depends on the database (custom signals, own universes,
 * saved rules) and every error are the API's. Runs with the in-process
 * limiter (no fiber) and, with REDIS_URL, the Redis limiter (through a fiber).
 */
import { connect } from "node:net"
import { beforeAll, describe, expect, it } from "vitest"
import { admin, api, expectError } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"

const configs: ReadonlyArray<{ name: string; env: Record<string, string> }> = [
  { name: "in-process limiter", env: {} },
  ...(process.env.REDIS_URL ? [{ name: "Redis limiter", env: { REDIS_URL: process.env.REDIS_URL } }] : [])
]

interface Raw {
  readonly status: number
  readonly text: string
  readonly headers: Headers
}

describe.each(configs)("direct path ($name)", ({ env }) => {
  const server = serveForSuite({ REFRESH_INTERVAL: "1h", ...env })
  let key: string
  let accountId: string

  const raw = async (path: string, init: { key?: string; body?: string; headers?: Record<string, string> } = {}) => {
    const res = await fetch(`${server.url}${path}`, {
      method: init.body === undefined ? "GET" : "POST",
      headers: {
        authorization: `Bearer ${init.key ?? key}`,
        ...(init.body === undefined ? {} : { "content-type": "application/json" }),
        ...init.headers
      },
      ...(init.body === undefined ? {} : { body: init.body })
    })
    return { status: res.status, text: await res.text(), headers: res.headers } satisfies Raw
  }

  const outcome = async (name: "hit" | "miss" | "filled" | "bypass") => {
    const text = (await (await fetch(`${server.url}/metrics`)).text()).split("\n")
    const line = text.find((l) => l.startsWith(`http_hot_lane_total{outcome="${name}"}`))
    return line === undefined ? 0 : Number(line.split(" ")[1])
  }
  const hits = () => outcome("hit")
  /** requests answered on the direct path, made now or repeated */
  const direct = async () => (await outcome("miss")) + (await hits())

  /**
   * The same request three times: made directly twice (an answer is kept from its request's second
   * sighting on, so a `q` sent once is never kept), then repeated from the cache; gives the first
   * and the last.
   */
  const twice = async (path: string, body?: string) => {
    const send = () => raw(path, body === undefined ? {} : { body })
    const [misses, filled] = [await outcome("miss"), await outcome("filled")]
    const first = await send()
    expect([await outcome("miss"), await outcome("filled")]).toEqual([misses + 1, filled])
    await send()
    expect([await outcome("miss"), await outcome("filled")]).toEqual([misses + 2, filled + 1])
    const before = await hits()
    const second = await send()
    expect(await hits()).toBe(before + 1)
    return { first, second }
  }

  let idempotencyKeys = 0
  /** The API's answer to a scan (a POST with an `Idempotency-Key` never takes the direct path). */
  const viaApi = async (body: string) => {
    const before = await direct()
    const answer = await raw("/v2/scan", { body, headers: { "idempotency-key": `direct-${++idempotencyKeys}` } })
    expect(await direct()).toBe(before)
    return answer
  }

  /** b answered as a was, `between` requests after the one after a */
  const expectSameAnswer = (a: Raw, b: Raw, between = 0) => {
    expect(b.status).toBe(200)
    expect(a.status).toBe(200)
    expect(b.text).toBe(a.text)
    for (const h of ["content-type", "content-length", "x-ratelimit-limit", "x-ratelimit-reset"]) {
      expect(b.headers.get(h), h).toBe(a.headers.get(h))
    }
    expect(Number(b.headers.get("x-ratelimit-remaining"))).toBe(
      Number(a.headers.get("x-ratelimit-remaining")) - 1 - between
    )
    expect(b.headers.get("x-request-id")).toMatch(/^req_/)
    expect(b.headers.get("x-request-id")).not.toBe(a.headers.get("x-request-id"))
  }

  beforeAll(async () => {
    const created = (await admin(server, "POST", "/admin/accounts", { plan: "pro" })).body
    key = created.api_key
    accountId = created.account_id
  }, 180_000)

  it("answers the first scan after start directly (the cursor secret is read at start)", async () => {
    const [misses, bypassed] = [await outcome("miss"), await outcome("bypass")]
    expect((await raw("/v2/scan", { body: JSON.stringify({ q: "price > 4.5", limit: 2 }) })).status).toBe(200)
    expect([await outcome("miss"), await outcome("bypass")]).toEqual([misses + 1, bypassed])
  })

  it("answers live scans and ticker rows with the API's bytes, made now and repeated", async () => {
    const scans: ReadonlyArray<Record<string, unknown>> = [
      { q: "price > 5 AND rsi_14 < 70", limit: 20, fields: "rsi_14,sector" },
      { q: "price > 10", order: "price", dir: "asc", limit: 5 },
      { q: "price > 0", universe: "top_100", fields: ["*"], limit: 3 },
      { q: "market_cap > 100000000000", order: "ticker", dir: "asc", limit: 100 },
      { q: "price > 1 AND sector = 'Technology'", order: "name", dir: "desc", limit: 7 },
      { q: "price < 0" },
      { q: "ticker = 'AAPL' OR ticker = 'MSFT'", fields: "*" }
    ]
    for (const params of scans) {
      const body = JSON.stringify(params)
      const api = await viaApi(body)
      const { first, second } = await twice("/v2/scan", body)
      expectSameAnswer(api, first)
      expectSameAnswer(first, second, 1)
    }
    // the GET form answers what the POST form does
    const post = await viaApi(JSON.stringify(scans[1]))
    const get = await twice("/v2/scan?q=price%20%3E%2010&order=price&dir=asc&limit=5")
    expectSameAnswer(post, get.first)
    // a ticker spelled with an escape goes to the API, which reads the same row
    const before = await direct()
    const api = await raw("/v2/tickers/%41APL")
    expect(await direct()).toBe(before)
    const row = await twice("/v2/tickers/AAPL")
    expectSameAnswer(api, row.first)
    expectSameAnswer(row.first, row.second, 1)

    // a cursor walk: the second page is the API's too, made and repeated per account like the first
    const scan = JSON.stringify(scans[0])
    const page1 = JSON.parse((await raw("/v2/scan", { body: scan })).text)
    expect(page1.next_cursor).toEqual(expect.any(String))
    const next = JSON.stringify({ ...scans[0], cursor: page1.next_cursor })
    const page2 = await viaApi(next)
    const { first, second } = await twice("/v2/scan", next)
    expectSameAnswer(page2, first)
    expectSameAnswer(first, second, 1)
    expect(JSON.parse(second.text).results[0].ticker).not.toBe(page1.results[0].ticker)
  })

  it("answers a scan nobody sent before directly, not from the API", async () => {
    for (let i = 0; i < 5; i++) {
      const body = JSON.stringify({ q: `price > ${1 + i / 7} AND rsi_14 < ${60 + i}`, limit: 10 })
      const [misses, bypassed] = [await outcome("miss"), await outcome("bypass")]
      const res = await raw("/v2/scan", { body })
      expect(res.status).toBe(200)
      expect([await outcome("miss"), await outcome("bypass")]).toEqual([misses + 1, bypassed])
    }
  })

  it("echoes X-Request-Id and writes the request's log line and metrics", async () => {
    // made twice (kept from the second sighting on), then answered from the cache
    await raw("/v2/tickers/MSFT")
    await raw("/v2/tickers/MSFT")
    const before = (await (await fetch(`${server.url}/metrics`)).text()).match(
      /http_requests_total\{method="GET",route="\/v2\/tickers\/:ticker",status="200"\} (\d+)/
    )
    const res = await raw("/v2/tickers/MSFT", { headers: { "x-request-id": "direct-probe-1" } })
    expect(res.status).toBe(200)
    expect(res.headers.get("x-request-id")).toBe("direct-probe-1")
    const after = (await (await fetch(`${server.url}/metrics`)).text()).match(
      /http_requests_total\{method="GET",route="\/v2\/tickers\/:ticker",status="200"\} (\d+)/
    )
    expect(Number(after![1])).toBe(Number(before![1]) + 1)
    await new Promise((r) => setTimeout(r, 50))
    const line = server
      .logs()
      .split("\n")
      .find((l) => l.includes('"direct-probe-1"'))
    expect(line).toBeDefined()
    const parsed = JSON.parse(line!)
    expect(parsed.message).toBe("request")
    expect(parsed.annotations).toMatchObject({
      request_id: "direct-probe-1",
      method: "GET",
      path: "/v2/tickers/MSFT",
      route: "/v2/tickers/:ticker",
      status: 200,
      cache: "hit"
    })
  })

  it("never serves an answer from an older snapshot", async () => {
    const { first } = await twice("/v2/tickers/NVDA")
    expect((await admin(server, "POST", "/admin/refresh")).status).toBe(200)
    const before = await hits()
    const after = await raw("/v2/tickers/NVDA")
    expect(after.status).toBe(200)
    expect(await hits()).toBe(before)
    expect(JSON.parse(after.text).as_of).not.toBe(JSON.parse(first.text).as_of)
  })

  it("rate limits direct answers with the API's limiter, then answers 429 with the envelope", async () => {
    const acct = (await admin(server, "POST", "/admin/accounts", { plan: "enterprise" })).body
    expect(
      (
        await admin(server, "PATCH", `/admin/accounts/${acct.account_id}`, {
          plan: "enterprise",
          rate_limit_per_minute: 4
        })
      ).status
    ).toBe(200)
    const remaining: Array<number> = []
    for (let i = 0; i < 4; i++) {
      const res = await raw("/v2/tickers/AMD", { key: acct.api_key })
      expect(res.status).toBe(200)
      remaining.push(Number(res.headers.get("x-ratelimit-remaining")))
    }
    expect(remaining).toEqual([3, 2, 1, 0])
    const refused = await raw("/v2/tickers/AMD", { key: acct.api_key })
    expectError({ status: refused.status, body: JSON.parse(refused.text) }, 429, "rate_limited")
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0")
  })

  it("refuses a revoked key, and a plan without access, though the answer is cached", async () => {
    const acct = (await admin(server, "POST", "/admin/accounts", { plan: "pro" })).body
    expect((await raw("/v2/tickers/AAPL", { key: acct.api_key })).status).toBe(200)
    expect((await admin(server, "PATCH", `/admin/accounts/${acct.account_id}`, { plan: "none" })).status).toBe(200)
    const none = await raw("/v2/tickers/AAPL", { key: acct.api_key })
    expectError({ status: none.status, body: JSON.parse(none.text) }, 402, "subscription_required")
    expect((await admin(server, "PATCH", `/admin/accounts/${acct.account_id}`, { plan: "pro" })).status).toBe(200)
    expect((await raw("/v2/tickers/AAPL", { key: acct.api_key })).status).toBe(200)
    expect((await admin(server, "DELETE", `/admin/keys/${acct.key_id}`)).status).toBe(200)
    const revoked = await raw("/v2/tickers/AAPL", { key: acct.api_key })
    expectError({ status: revoked.status, body: JSON.parse(revoked.text) }, 401, "unauthenticated")
    const unknown = await raw("/v2/tickers/AAPL", { key: `vigil_test_${"x".repeat(43)}` })
    expect(unknown.status).toBe(401)
  })

  it("keeps scans per account: another account's cursor is refused", async () => {
    const other = (await admin(server, "POST", "/admin/accounts", { plan: "pro" })).body
    const body = JSON.stringify({ q: "price > 1", limit: 2 })
    const mine = JSON.parse((await raw("/v2/scan", { body })).text)
    expect((await raw("/v2/scan", { body })).status).toBe(200) // kept from its second sighting on
    const hitsBefore = await hits()
    expect((await raw("/v2/scan", { body })).status).toBe(200)
    expect(await hits()).toBe(hitsBefore + 1)
    const theirs = await raw("/v2/scan", { key: other.api_key, body })
    expect(await hits()).toBe(hitsBefore + 1)
    expect(theirs.status).toBe(200)
    expect(JSON.parse(theirs.text).next_cursor).not.toBe(mine.next_cursor)
    const stolen = await raw("/v2/scan", {
      key: other.api_key,
      body: JSON.stringify({ q: "price > 1", limit: 2, cursor: mine.next_cursor })
    })
    expect(stolen.status).toBe(400)
  })

  it("leaves scans whose answer the database decides to the API: custom signals, own universes, rules", async () => {
    const signal = await api(server, key, "/v2/signals", {
      method: "POST",
      body: JSON.stringify({ name: "hot_cheap", expr: "price < 20" })
    })
    expect(signal.status).toBe(201)
    const universe = await api(server, key, "/v2/universes", {
      method: "POST",
      body: JSON.stringify({ name: "hot set", tickers: ["AAPL", "MSFT"] })
    })
    expect(universe.status).toBe(201)
    const slug = universe.body.id
    const rule = await api(server, key, "/v2/rules", {
      method: "POST",
      body: JSON.stringify({ name: "hot rule", q: "price > 0", universe: slug })
    })
    expect(rule.status).toBe(201)

    const bySignal = JSON.stringify({ q: "hot_cheap", order: "ticker", dir: "asc", limit: 100 })
    const byUniverse = JSON.stringify({ q: "price > 0", universe: slug, order: "ticker", dir: "asc" })
    const byRule = JSON.stringify({ rule: rule.body.id, order: "ticker", dir: "asc" })
    const before = await direct()
    for (const body of [bySignal, bySignal, byUniverse, byUniverse, byRule, byRule]) {
      expect((await raw("/v2/scan", { body })).status).toBe(200)
    }
    expect(await direct()).toBe(before)

    // each change shows at once
    const cheapBefore = JSON.parse((await raw("/v2/scan", { body: bySignal })).text).total
    expect(
      (
        await api(server, key, "/v2/signals/hot_cheap", {
          method: "PATCH",
          body: JSON.stringify({ expr: "price < 0" })
        })
      ).status
    ).toBe(200)
    expect(cheapBefore).toBeGreaterThan(0)
    expect(JSON.parse((await raw("/v2/scan", { body: bySignal })).text).total).toBe(0)
    expect(
      (await api(server, key, `/v2/universes/${slug}`, { method: "PATCH", body: JSON.stringify({ add: ["NVDA"] }) }))
        .status
    ).toBe(200)
    const tickers = JSON.parse((await raw("/v2/scan", { body: byUniverse })).text).results.map((r: any) => r.ticker)
    expect(tickers).toEqual(["AAPL", "MSFT", "NVDA"])
    const viaRule = JSON.parse((await raw("/v2/scan", { body: byRule })).text).results.map((r: any) => r.ticker)
    expect(viaRule).toEqual(["AAPL", "MSFT", "NVDA"])
  })

  it("passes bodies it read on to the API intact, good and bad", async () => {
    const before = await direct()
    const bad = await raw("/v2/scan", { body: '{"q": "price > 5",' })
    expectError({ status: bad.status, body: JSON.parse(bad.text) }, 400, "bad_request")
    expect(JSON.parse(bad.text).error.message).toContain("not valid JSON")
    const unknown = await raw("/v2/scan", { body: JSON.stringify({ q: "price > 5", bogus: 1 }) })
    expect(unknown.status).toBe(400)
    expect(JSON.parse(unknown.text).error.message).toContain("bogus")
    const asof = await raw("/v2/scan", { body: JSON.stringify({ q: "price > 5", asof: "2026-01-05", limit: 1 }) })
    expect(asof.status).toBe(200)
    expect(JSON.parse(asof.text).query.asof).toBe("2026-01-05")
    const deep = await raw("/v2/scan", { body: `{"q":${"[".repeat(100)}${"]".repeat(100)}}` })
    expect(deep.status).toBe(400)
    const badQ = await raw("/v2/scan", { body: JSON.stringify({ q: "price >" }) })
    expect(badQ.status).toBe(400)
    const badLimit = await raw("/v2/scan?q=price%20%3E%201&limit=0")
    expect(badLimit.status).toBe(400)
    const undeclared = await raw("/v2/scan?zz_unknown=1", { body: JSON.stringify({ q: "price > 1" }) })
    expect(undeclared.status).toBe(400)
    expect(JSON.parse(undeclared.text).error.message).toContain("zz_unknown")
    const undeclaredGet = await raw("/v2/scan?q=price%20%3E%201&zz_unknown=1")
    expect(undeclaredGet.status).toBe(400)
    const asofRow = await raw("/v2/tickers/AAPL?asof=2026-01-05")
    expect(asofRow.status).toBe(200)
    expect(JSON.parse(asofRow.text)._meta.resolution).toBe("daily")
    expect(await direct()).toBe(before)
  })

  it("hands a body that is slow to come to the API as it stands, the rest streamed on", async () => {
    const body = JSON.stringify({ q: "price > 3", limit: 1 })
    const { hostname, port } = new URL(server.url)
    const [missed, bypassed] = [await outcome("miss"), await outcome("bypass")]
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `POST /v2/scan HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`
        )
        // past the direct path's 1 s wait for the body
        setTimeout(() => socket.write(body.slice(10)), 1_500)
      })
      let text = ""
      socket.on("data", (d) => (text += d))
      socket.on("end", () => resolve(text))
      socket.on("error", reject)
    })
    expect(answer).toMatch(/^HTTP\/1\.1 200 /)
    expect(answer).toContain('"q":"price > 3"')
    // handed over unread, not waited for
    expect([await outcome("miss"), await outcome("bypass")]).toEqual([missed, bypassed + 1])
  })

  it("fills the cache for the account that asked only (plan and account in the key)", async () => {
    expect(accountId).toMatch(/^acc_/)
    const hobby = (await admin(server, "POST", "/admin/accounts", { plan: "hobby" })).body
    const body = JSON.stringify({ q: "price > 2", limit: 1 })
    await twice("/v2/scan", body)
    const before = await hits()
    expect((await raw("/v2/scan", { key: hobby.api_key, body })).status).toBe(200)
    expect(await hits()).toBe(before)
  })
})
