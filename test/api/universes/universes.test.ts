import { FetchHttpClient } from "@effect/platform"
import { Effect } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { makeVigilClient } from "../../../src/client.js"
import { ADMIN_TOKEN, admin, api } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"

const expectError = (res: { status: number; body: any }, status: number, code: string) => {
  expect(res.status).toBe(status)
  expect(res.body.error.code).toBe(code)
  expect(res.body.error.message.length).toBeGreaterThan(0)
  expect(res.body.error.request_id).toMatch(/^req_/)
}

describe("universes over HTTP", () => {
  const server = serveForSuite({ REFRESH_INTERVAL: "1h" })
  const newKey = async (plan = "scale") => (await admin(server, "POST", "/admin/accounts", { plan })).body.api_key
  const call = (key: string, method: string, path: string, body?: unknown) =>
    api(server, key, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

  it("creates a universe with canonical tickers and reads it back", async () => {
    const key = await newKey("free")
    const created = await call(key, "POST", "/v2/universes", {
      id: "my_tech",
      name: "My tech",
      description: "big names",
      tickers: ["aapl", "$MSFT", "brk-b", "spy"]
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      id: "my_tech",
      name: "My tech",
      description: "big names",
      tickers: ["AAPL", "MSFT", "BRK.B", "SPY"],
      size: 4,
      system: false
    })
    expect(Number.isInteger(created.body.created_at)).toBe(true)
    expect(created.body.updated_at).toBe(created.body.created_at)
    const got = await call(key, "GET", "/v2/universes/my_tech")
    expect(got.status).toBe(200)
    expect(got.body).toMatchObject({ ...created.body })
    expect(typeof got.body.as_of).toBe("string")
  })

  it("generates unique slugs from the name and refuses taken or reserved ids", async () => {
    const key = await newKey()
    const a = await call(key, "POST", "/v2/universes", { name: "Semis & Chips!", tickers: ["NVDA"] })
    expect(a.status).toBe(201)
    expect(a.body.id).toBe("semis_chips")
    expect(a.body.description).toBeNull()
    const b = await call(key, "POST", "/v2/universes", { name: "semis chips", tickers: ["AMD"] })
    expect(b.body.id).toBe("semis_chips_2")
    const c = await call(key, "POST", "/v2/universes", { name: "Top 10", tickers: ["AMD"] })
    expect(c.body.id).toBe("top_10_2")
    const d = await call(key, "POST", "/v2/universes", { name: "!!!", tickers: ["AMD"] })
    expect(d.body.id).toBe("universe")
    expectError(
      await call(key, "POST", "/v2/universes", { id: "semis_chips", name: "x", tickers: ["A"] }),
      409,
      "slug_taken"
    )
    expectError(
      await call(key, "POST", "/v2/universes", { id: "top_10", name: "x", tickers: ["A"] }),
      409,
      "slug_taken"
    )
    expectError(
      await call(key, "POST", "/v2/universes", { id: "top_100", name: "x", tickers: ["A"] }),
      409,
      "slug_taken"
    )
    // another account may use the same id
    const other = await newKey()
    expect((await call(other, "POST", "/v2/universes", { id: "semis_chips", name: "x", tickers: ["A"] })).status).toBe(
      201
    )
  })

  it("validates the body", async () => {
    const key = await newKey()
    const post = (body: unknown) => call(key, "POST", "/v2/universes", body)
    const unknown = await post({ name: "x", tickers: ["AAPL", "ZZZZZZ", "QQQQQ"] })
    expectError(unknown, 400, "unknown_tickers")
    expect(unknown.body.error.disallowed).toEqual(["ZZZZZZ", "QQQQQ"])
    expectError(await post({ name: "x", tickers: ["AAPL", "not a symbol!"] }), 400, "bad_request")
    expectError(await post({ name: "x", tickers: ["AAPL", "aapl"] }), 400, "bad_request")
    expectError(await post({ name: "x", tickers: [] }), 400, "bad_request")
    const big = await post({ name: "x", tickers: Array.from({ length: 5001 }, (_, i) => `A${i}`) })
    expectError(big, 400, "bad_request")
    expect(big.body.error.message).toMatch(/5000/)
    expectError(await post({ name: "x" }), 400, "bad_request")
    expectError(await post({ tickers: ["AAPL"] }), 400, "bad_request")
    expectError(await post({ name: " ", tickers: ["AAPL"] }), 400, "bad_request")
    expectError(await post({ id: "Bad-Id", name: "x", tickers: ["AAPL"] }), 400, "bad_request")
    expectError(await post({ id: "a".repeat(65), name: "x", tickers: ["AAPL"] }), 400, "bad_request")
    expectError(await post({ name: "x", tickers: ["AAPL"], extra: 1 }), 400, "bad_request")
    expectError(await post({ name: "x", tickers: "AAPL" }), 400, "bad_request")
    expect((await call(key, "GET", "/v2/universes")).body.universes).toEqual([])
  })

  it("lists own universes by id with cursors", async () => {
    const key = await newKey()
    for (const id of ["u_c", "u_a", "u_e", "u_b", "u_d"]) {
      expect((await call(key, "POST", "/v2/universes", { id, name: id, tickers: ["SPY"] })).status).toBe(201)
    }
    const first = await call(key, "GET", "/v2/universes?limit=2")
    expect(first.status).toBe(200)
    expect(first.body.count).toBe(2)
    expect(first.body.universes.map((u: any) => u.id)).toEqual(["u_a", "u_b"])
    expect(typeof first.body.as_of).toBe("string")
    const second = await call(key, "GET", `/v2/universes?limit=2&cursor=${first.body.next_cursor}`)
    expect(second.body.universes.map((u: any) => u.id)).toEqual(["u_c", "u_d"])
    const third = await call(key, "GET", `/v2/universes?limit=2&cursor=${second.body.next_cursor}`)
    expect(third.body.universes.map((u: any) => u.id)).toEqual(["u_e"])
    expect(third.body.next_cursor).toBeNull()
    const all = await call(key, "GET", "/v2/universes")
    expect(all.body.count).toBe(5)
    expect(all.body.next_cursor).toBeNull()
    // the cursor is bound to the page size and the account
    expectError(await call(key, "GET", `/v2/universes?limit=3&cursor=${first.body.next_cursor}`), 400, "bad_request")
    expectError(
      await call(await newKey(), "GET", `/v2/universes?limit=2&cursor=${first.body.next_cursor}`),
      400,
      "bad_request"
    )
    expectError(await call(key, "GET", `/v2/universes?limit=2&cursor=${first.body.next_cursor}x`), 400, "bad_request")
    expectError(await call(key, "GET", "/v2/universes?limit=101"), 400, "bad_request")
    expectError(await call(key, "GET", "/v2/universes?limit=0"), 400, "bad_request")
    expectError(await call(key, "GET", "/v2/universes?bogus=1"), 400, "bad_request")
    expect((await call(key, "GET", "/v2/universes?limit=100")).body.count).toBe(5)
  })

  it("lists the system universes and reads them by id", async () => {
    const key = await newKey("free")
    const res = await call(key, "GET", "/v2/universes/system")
    expect(res.status).toBe(200)
    expect(res.body.count).toBe(2)
    expect(res.body.next_cursor).toBeNull()
    const [top10, top100] = res.body.universes
    expect(top10).toMatchObject({
      id: "top_10",
      system: true,
      size: 10,
      rebalance_method: "30-day-trailing-dollar-volume"
    })
    expect(top10.tickers).toHaveLength(10)
    expect(top100).toMatchObject({ id: "top_100", system: true, size: 100 })
    expect(top100.tickers).toBeUndefined()
    for (const u of [top10, top100]) {
      expect(new Date(u.effective_at * 1000).getUTCDate()).toBe(1)
      expect(new Date(u.next_rebalance_at * 1000).getUTCDate()).toBe(1)
      expect(u.next_rebalance_at).toBeGreaterThan(u.effective_at)
      expect(u.next_rebalance_at * 1000).toBeGreaterThan(Date.now())
      expect(u.created_at).toBeUndefined()
    }
    const one = await call(key, "GET", "/v2/universes/top_100")
    expect(one.status).toBe(200)
    expect(one.body.tickers).toHaveLength(100)
    expect(one.body.tickers.slice(0, 10)).toEqual(top10.tickers)
    expect(typeof one.body.as_of).toBe("string")
  })

  it("patches names, descriptions and tickers", async () => {
    const key = await newKey()
    await call(key, "POST", "/v2/universes", { id: "p", name: "P", tickers: ["AAPL", "MSFT"] })
    const renamed = await call(key, "PATCH", "/v2/universes/p", { name: "Q", description: "desc" })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toMatchObject({ id: "p", name: "Q", description: "desc", tickers: ["AAPL", "MSFT"] })
    const added = await call(key, "PATCH", "/v2/universes/p", { add: ["msft", "NVDA", "nvda", "amd"] })
    expect(added.body.tickers).toEqual(["AAPL", "MSFT", "NVDA", "AMD"])
    expect(added.body.size).toBe(4)
    const removed = await call(key, "PATCH", "/v2/universes/p", { remove: ["aapl", "TSLA"], add: ["SPY"] })
    expect(removed.body.tickers).toEqual(["MSFT", "NVDA", "AMD", "SPY"])
    const replaced = await call(key, "PATCH", "/v2/universes/p", { tickers: ["qqq"], description: null })
    expect(replaced.body).toMatchObject({ tickers: ["QQQ"], size: 1, description: null, name: "Q" })
    expectError(await call(key, "PATCH", "/v2/universes/p", { tickers: ["A"], add: ["B"] }), 400, "bad_request")
    expectError(await call(key, "PATCH", "/v2/universes/p", { remove: ["QQQ"] }), 400, "bad_request")
    expectError(await call(key, "PATCH", "/v2/universes/p", { tickers: ["ZZZZZZ"] }), 400, "unknown_tickers")
    expectError(await call(key, "PATCH", "/v2/universes/p", { add: ["ZZZZZZ"] }), 400, "unknown_tickers")
    expectError(await call(key, "PATCH", "/v2/universes/p", { tickers: ["A", "a"] }), 400, "bad_request")
    expectError(await call(key, "PATCH", "/v2/universes/p", { name: "" }), 400, "bad_request")
    expectError(await call(key, "PATCH", "/v2/universes/top_10", { name: "x" }), 403, "forbidden")
    expectError(await call(key, "PATCH", "/v2/universes/top_100", { add: ["AAPL"] }), 403, "forbidden")
    expectError(await call(key, "PATCH", "/v2/universes/nope", { name: "x" }), 404, "not_found")
    expect((await call(key, "GET", "/v2/universes/p")).body.tickers).toEqual(["QQQ"])
  })

  it("deletes; another account's universes are not found", async () => {
    const key = await newKey()
    const other = await newKey()
    await call(key, "POST", "/v2/universes", { id: "mine", name: "Mine", tickers: ["AAPL"] })
    expectError(await call(other, "GET", "/v2/universes/mine"), 404, "not_found")
    expectError(await call(other, "PATCH", "/v2/universes/mine", { name: "x" }), 404, "not_found")
    expectError(await call(other, "DELETE", "/v2/universes/mine"), 404, "not_found")
    expect((await call(other, "GET", "/v2/universes")).body.universes).toEqual([])
    expectError(await call(key, "DELETE", "/v2/universes/top_10"), 403, "forbidden")
    expectError(await call(key, "GET", "/v2/universes/Not-A-Slug"), 404, "not_found")
    const deleted = await call(key, "DELETE", "/v2/universes/mine")
    expect(deleted).toMatchObject({ status: 200, body: { ok: true } })
    expectError(await call(key, "DELETE", "/v2/universes/mine"), 404, "not_found")
    expectError(await call(key, "GET", "/v2/universes/mine"), 404, "not_found")
  })

  describe("the universe parameter: system and own slugs resolve alike on every endpoint that takes one", () => {
    const OWN = ["AAPL", "MSFT", "NVDA", "SPY"]
    /** a weekday about six weeks back: an as-of day, likely under an earlier top-list membership */
    const day = (() => {
      const d = new Date(Date.now() - 42 * 86_400_000)
      while (d.getUTCDay() === 0 || d.getUTCDay() === 6) d.setUTCDate(d.getUTCDate() - 1)
      return d.toISOString().slice(0, 10)
    })()
    let key: string
    let other: string
    const tickersOf = (res: { status: number; body: any }) => {
      expect(res.status).toBe(200)
      return (res.body.results as Array<{ ticker: string }>).map((r) => r.ticker).sort()
    }
    beforeAll(async () => {
      key = await newKey("pro")
      other = await newKey("pro")
      expect((await call(key, "POST", "/v2/universes", { id: "mine", name: "Mine", tickers: OWN })).status).toBe(201)
    })

    it("scan, live and as of a date, POST and GET", async () => {
      for (const asof of [undefined, day]) {
        const body = { q: "price > 0", universe: "mine", limit: 100, ...(asof === undefined ? {} : { asof }) }
        const posted = await call(key, "POST", "/v2/scan", body)
        expect(tickersOf(posted)).toEqual([...OWN].sort())
        expect(posted.body._meta.scope).toEqual({ universe: "mine", size: OWN.length })
        const query = new URLSearchParams(Object.entries(body).map(([k, v]): [string, string] => [k, String(v)]))
        expect(tickersOf(await call(key, "GET", `/v2/scan?${query}`))).toEqual([...OWN].sort())
        expectError(await call(other, "POST", "/v2/scan", body), 404, "universe_not_found")
      }
    })

    it("signal matches, live and as of a date, agree with the scan of the same universe and day", async () => {
      for (const universe of ["mine", "top_10", "top_100"]) {
        for (const asof of [undefined, day]) {
          const at = asof === undefined ? "" : `&asof=${asof}`
          const matches = await call(key, "GET", `/v2/signals/price?condition=%3E0&universe=${universe}&limit=200${at}`)
          const scan = await call(key, "POST", "/v2/scan", {
            q: "price > 0",
            universe,
            limit: 100,
            ...(asof === undefined ? {} : { asof })
          })
          expect(tickersOf(matches), `${universe} ${asof}`).toEqual(tickersOf(scan))
        }
      }
      expect(tickersOf(await call(key, "GET", "/v2/signals/price?condition=%3E0&universe=mine"))).toEqual(
        [...OWN].sort()
      )
      expectError(await call(other, "GET", "/v2/signals/gap_up?universe=mine"), 404, "universe_not_found")
      expectError(await call(key, "GET", `/v2/signals/gap_up?universe=nope&asof=${day}`), 404, "universe_not_found")
    })

    it("signal stats", async () => {
      const stats = await call(key, "GET", `/v2/signals/price/stats?condition=%3E0&universe=mine&from=${day}&to=${day}`)
      expect(stats.status).toBe(200)
      expect(stats.body.universe).toBe("mine")
      expect(stats.body.days).toEqual([{ date: day, count: OWN.length, total: OWN.length }])
      expectError(
        await call(other, "GET", `/v2/signals/price/stats?condition=%3E0&universe=mine`),
        404,
        "universe_not_found"
      )
    })

    it("as of a date, an own universe is the list it had then (the first list before it existed); live, its list now", async () => {
      const FIRST = ["AAPL", "MSFT"]
      const created = await call(key, "POST", "/v2/universes", { id: "hist", name: "Hist", tickers: FIRST })
      expect(created.status).toBe(201)
      expect((await call(key, "PATCH", "/v2/universes/hist", { tickers: ["NVDA", "SPY", "QQQ"] })).status).toBe(200)
      const patched = await call(key, "PATCH", "/v2/universes/hist", { add: ["AMD"], remove: ["QQQ"] })
      expect(patched.status).toBe(200)
      const NOW = ["NVDA", "SPY", "AMD"]
      /** the day of the last change, by the service's clock: the list in effect at its end is NOW */
      const today = new Date(patched.body.updated_at * 1000).toISOString().slice(0, 10)
      const rule = await call(key, "POST", "/v2/rules", { name: "hist", q: "price > 0", universe: "hist" })
      expect(rule.status).toBe(201)
      /** every as-of read of the universe on `asof` (the list it had then), and the live ones (its list now) */
      const members = async (asof: string | undefined, expected: ReadonlyArray<string>) => {
        const want = [...expected].sort()
        const at = asof === undefined ? {} : { asof }
        const scan = await call(key, "POST", "/v2/scan", { q: "price > 0", universe: "hist", limit: 100, ...at })
        expect(tickersOf(scan), `scan ${asof}`).toEqual(want)
        expect(scan.body._meta.scope).toEqual({ universe: "hist", size: expected.length })
        const query = new URLSearchParams({ q: "price > 0", universe: "hist", limit: "100", ...at })
        expect(tickersOf(await call(key, "GET", `/v2/scan?${query}`)), `GET scan ${asof}`).toEqual(want)
        const matches = await call(
          key,
          "GET",
          `/v2/signals/price?condition=%3E0&universe=hist&limit=200${asof === undefined ? "" : `&asof=${asof}`}`
        )
        expect(tickersOf(matches), `signal matches ${asof}`).toEqual(want)
        expect(tickersOf(await call(key, "POST", "/v2/scan", { rule: rule.body.id, ...at })), `rule ${asof}`).toEqual(
          want
        )
        if (asof !== undefined) {
          const history = await call(key, "POST", "/v2/scan/history", { q: "price > 0", universe: "hist", asof })
          expect(tickersOf(history), `history ${asof}`).toEqual(want)
        }
      }
      await members(day, FIRST) // before the universe existed: the list it was created with
      await members(today, NOW)
      await members(undefined, NOW)
      // signal stats: each day counts the universe's members of that day
      const stats = await call(key, "GET", `/v2/signals/price/stats?condition=%3E0&universe=hist&from=${day}&to=${day}`)
      expect(stats.status).toBe(200)
      expect(stats.body.days).toEqual([{ date: day, count: FIRST.length, total: FIRST.length }])
      // over a range: each day's own list (every final day precedes the changes of today)
      const from = new Date(Date.parse(today) - 10 * 86_400_000).toISOString().slice(0, 10)
      const range = await call(
        key,
        "GET",
        `/v2/signals/price/stats?condition=%3E0&universe=hist&from=${from}&to=${today}`
      )
      expect(range.status).toBe(200)
      expect(range.body.days.length).toBeGreaterThan(0)
      for (const d of range.body.days) expect(d.total, d.date).toBe(d.date < today ? FIRST.length : NOW.length)

      // deleted and created again: a history of its own, nothing of the old one
      expect((await call(key, "DELETE", "/v2/universes/hist")).status).toBe(200)
      expectError(
        await call(key, "POST", "/v2/scan", { q: "price > 0", universe: "hist", asof: day }),
        404,
        "universe_not_found"
      )
      expect((await call(key, "POST", "/v2/universes", { id: "hist", name: "Hist", tickers: ["TSLA"] })).status).toBe(
        201
      )
      await members(day, ["TSLA"])
      await members(today, ["TSLA"])
      const again = await call(key, "GET", `/v2/signals/price/stats?condition=%3E0&universe=hist&from=${day}&to=${day}`)
      expect(again.body.days).toEqual([{ date: day, count: 1, total: 1 }])
    })

    it("signal subscribe, POST /v2/webhooks and saved rules (and scans by them)", async () => {
      const signal = await call(key, "POST", "/v2/signals/golden_cross/subscribe", { universe: "mine" })
      expect(signal.status).toBe(200)
      expect(signal.body.universe_id).toBe("mine")
      const webhook = await call(key, "POST", "/v2/webhooks", { q: "price > 0", universe: "mine" })
      expect(webhook.status).toBe(201)
      expect(webhook.body.universe_id).toBe("mine")
      const rule = await call(key, "POST", "/v2/rules", { name: "own", q: "price > 0", universe: "mine" })
      expect(rule.status).toBe(201)
      expect(tickersOf(await call(key, "POST", "/v2/scan", { rule: rule.body.id, asof: day }))).toEqual([...OWN].sort())
      const viaRule = await call(key, "POST", "/v2/webhooks", { rule_id: rule.body.id })
      expect(viaRule.body.universe_id).toBe("mine")
      for (const [path, body] of [
        ["/v2/signals/golden_cross/subscribe", { universe: "mine" }],
        ["/v2/webhooks", { q: "price > 0", universe: "mine" }],
        ["/v2/rules", { name: "theirs", q: "price > 0", universe: "mine" }]
      ] as const) {
        expectError(await call(other, "POST", path, body), 404, "universe_not_found")
      }
    })

    describe("own universes as of a date between the versions of their list (in-process service, Clock moved, typed client)", () => {
      const DAY = 86_400_000
      const service = serveForSuite({ HISTORY_DAYS: "90", REFRESH_INTERVAL: "1h" })

      it("uses the list in effect at the end of the date read: before, between and after the changes", async () => {
        const created = await fetch(`${service.url}/admin/accounts`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ plan: "pro" })
        })
        expect(created.status).toBe(201)
        const key = ((await created.json()) as { api_key: string }).api_key
        const run = <A, E>(
          f: (client: Effect.Effect.Success<ReturnType<typeof makeVigilClient>>) => Effect.Effect<A, E>
        ) =>
          Effect.runPromise(
            Effect.flatMap(makeVigilClient(service.url, key), f).pipe(Effect.provide(FetchHttpClient.layer))
          )
        const date = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10)
        /** the tickers an as-of scan and as-of signal matches give for the universe on a date, or live */
        const members = (asof: string | undefined) =>
          run((client) =>
            Effect.gen(function* () {
              const at = asof === undefined ? {} : { asof }
              const scan = yield* client.scan.scan({
                payload: { q: "price > 0", universe: "dated", limit: 100, ...at }
              })
              const matches = yield* client.signals.matches({
                path: { signal: "price" },
                urlParams: { condition: ">0", universe: "dated", limit: 200, ...at }
              })
              const sorted = (rows: ReadonlyArray<{ readonly [k: string]: unknown }>) =>
                rows.map((r) => String(r.ticker)).sort()
              expect(sorted(matches.results), `matches ${asof}`).toEqual(sorted(scan.results))
              return sorted(scan.results)
            })
          )

        // created 20 days ago, changed 10 and 3 days ago, by the service's Clock
        service.setOffset(-20 * DAY)
        await run((c) => c.universes.create({ payload: { id: "dated", name: "Dated", tickers: ["AAPL", "MSFT"] } }))
        service.setOffset(-10 * DAY)
        await run((c) => c.universes.update({ path: { id: "dated" }, payload: { tickers: ["NVDA", "SPY"] } }))
        service.setOffset(-3 * DAY)
        await run((c) => c.universes.update({ path: { id: "dated" }, payload: { add: ["AMD"], remove: ["SPY"] } }))
        service.setOffset(0)

        expect(await members(date(25))).toEqual(["AAPL", "MSFT"]) // before it existed: its first list
        expect(await members(date(15))).toEqual(["AAPL", "MSFT"]) // between the first two versions
        expect(await members(date(7))).toEqual(["NVDA", "SPY"]) // after the first change
        expect(await members(date(1))).toEqual(["AMD", "NVDA"]) // after the second
        expect(await members(undefined)).toEqual(["AMD", "NVDA"]) // live: the list now

        // deleted and created again: nothing of the old history
        await run((c) => c.universes.delete({ path: { id: "dated" } }))
        await run((c) => c.universes.create({ payload: { id: "dated", name: "Dated", tickers: ["TSLA"] } }))
        for (const ago of [25, 15, 7, 1]) expect(await members(date(ago))).toEqual(["TSLA"])
      }, 60_000)
    })
  })

  it("needs a key", async () => {
    expectError(await api(server, undefined, "/v2/universes"), 401, "unauthenticated")
    expectError(await api(server, undefined, "/v2/universes/system"), 401, "unauthenticated")
  })
})
