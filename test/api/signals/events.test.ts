/**
 * GET /v2/signals/{signal}/{ticker}/events and GET /v2/signals/{signal}/stats over
 * real HTTP, against one started server. Values are cross-checked against the
 * as-of reads of other endpoints (ticker rows, signal matches).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Service, startService } from "../../support/inProcess.js"
import { admin, api, waitReady } from "../../support/server.js"

const expectEnvelope = (res: { status: number; body: any }, status: number, code: string, mentions?: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status)
  expect(res.body.error.code).toBe(code)
  expect(typeof res.body.error.message).toBe("string")
  expect(res.body.error.request_id).toMatch(/^req_/)
  if (mentions !== undefined) expect(res.body.error.message).toContain(mentions)
}

const DAY_MS = 86_400_000
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay()

describe("signal events and stats over HTTP", () => {
  let server: Service
  let pro: string
  let hobby: string
  let scale: string

  const account = async (plan: string) => {
    const created = await admin(server, "POST", "/admin/accounts", { plan })
    expect(created.status).toBe(201)
    return created.body.api_key as string
  }
  const get = (key: string | undefined, path: string) => api(server, key, path)

  beforeAll(async () => {
    server = await startService({ HISTORY_DAYS: "60" })
    await waitReady(server)
    pro = await account("pro")
    hobby = await account("hobby")
    scale = await account("scale")
    // the flag history is built in the background once the market is ready: 503 until then
    const deadline = Date.now() + 420_000
    for (;;) {
      const res = await get(pro, "/v2/signals/above_sma_50/stats")
      if (res.status === 200) break
      expectEnvelope(res, 503, "service_unavailable")
      expect(res.headers.get("retry-after")).toBe("5")
      if (Date.now() > deadline) throw new Error(`flag history not ready in time:\n${server.logs()}`)
      await new Promise((r) => setTimeout(r, 1000))
    }
  }, 600_000)
  afterAll(async () => {
    await server?.stop()
  })

  /** Every event of a request, walking the cursors. */
  const allEvents = async (key: string, path: string, limit: number) => {
    const events: Array<any> = []
    let cursor: string | null = null
    for (let pages = 0; pages < 500; pages++) {
      const sep = path.includes("?") ? "&" : "?"
      const res = await get(
        key,
        `${path}${sep}limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
      )
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.count).toBe(res.body.events.length)
      expect(res.body.events.length).toBeLessThanOrEqual(limit)
      events.push(...res.body.events)
      cursor = res.body.next_cursor
      if (cursor === null) break
      expect(res.body.events.length).toBe(limit)
    }
    return events
  }

  /** The flag in the ticker's daily row as of `date`, and that row's date. */
  const rowAsOf = async (ticker: string, flag: string, date: string) => {
    const res = await get(pro, `/v2/tickers/${ticker}?asof=${date}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return { date: res.body.data.date as string, value: res.body.data[flag] as boolean | null }
  }

  it("lists the days a flag turned on and off, newest first, each matching the ticker's daily rows", async () => {
    for (const [ticker, flag] of [
      ["AAPL", "above_sma_20"],
      ["BTC-USD", "above_sma_20"],
      ["MSFT", "earnings_this_week"]
    ] as const) {
      const res = await get(pro, `/v2/signals/${flag.toUpperCase()}/${ticker.toLowerCase()}/events`)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toMatchObject({ ticker, signal: flag, next_cursor: null })
      expect(typeof res.body.as_of).toBe("string")
      expect(res.body.to).toBe(isoDay(Date.now()))
      expect(res.body.from < res.body.to).toBe(true)
      const events = res.body.events as Array<any>
      expect(events.length, `${ticker} ${flag}`).toBeGreaterThan(1)
      expect(res.body.count).toBe(events.length)
      for (let k = 0; k < events.length; k++) {
        const e = events[k]
        expect(Object.keys(e).sort()).toEqual(["close", "date", "event", "previous_date", "value"])
        expect(e.event === "on").toBe(e.value === true)
        expect(e.previous_date < e.date).toBe(true)
        expect(e.close).toBeGreaterThan(0)
        if (k > 0) {
          // newest first, and the state alternates
          expect(e.date < events[k - 1].date).toBe(true)
          expect(e.event).not.toBe(events[k - 1].event)
        }
      }
      // the ticker's daily rows: the event day has the new state, the previous row the old one
      for (const e of events.slice(0, 2)) {
        const day = await rowAsOf(ticker, flag, e.date)
        expect(day).toEqual({ date: e.date, value: e.value })
        const before = await rowAsOf(ticker, flag, e.previous_date)
        expect(before.date).toBe(e.previous_date)
        expect(before.value === true).toBe(e.event === "off")
      }
      // latest: the flag in the newest daily row of the window
      expect(res.body.latest.date >= events[0].date).toBe(true)
      expect(await rowAsOf(ticker, flag, res.body.latest.date)).toEqual(res.body.latest)
      // the newest event's state holds up to the latest row
      expect(res.body.latest.value === true).toBe(events[0].event === "on")
    }
  })

  it("pages with cursors (no gaps, no duplicates), honours from/to, and refuses altered cursors", async () => {
    const path = "/v2/signals/above_sma_10/AAPL/events"
    const whole = await allEvents(pro, path, 1000)
    expect(whole.length).toBeGreaterThan(6)
    const paged = await allEvents(pro, path, 3)
    expect(paged).toEqual(whole)
    expect(new Set(paged.map((e) => e.date)).size).toBe(paged.length)

    const from = whole[whole.length - 2].date
    const to = whole[1].date
    const window = await get(pro, `${path}?from=${from}&to=${to}`)
    expect(window.status).toBe(200)
    expect(window.body.from).toBe(from)
    expect(window.body.to).toBe(to)
    expect(window.body.events).toEqual(whole.slice(1, whole.length - 1))
    // ISO timestamps: the time is part of the bound
    const iso = await get(pro, `${path}?from=${from}T00:00:00Z&to=${to}T23:59:59Z`)
    expect(iso.body.events).toEqual(window.body.events)

    const first = await get(pro, `${path}?limit=2`)
    const cursor = first.body.next_cursor as string
    expect(typeof cursor).toBe("string")
    expectEnvelope(await get(pro, `${path}?limit=3&cursor=${cursor}`), 400, "bad_request", "cursor")
    expectEnvelope(await get(pro, `/v2/signals/above_sma_20/AAPL/events?limit=2&cursor=${cursor}`), 400, "bad_request")
    const tampered = cursor.slice(0, -2) + (cursor.endsWith("AA") ? "BB" : "AA")
    expectEnvelope(await get(pro, `${path}?limit=2&cursor=${tampered}`), 400, "bad_request", "cursor")
    expectEnvelope(await get(pro, `${path}?limit=2&cursor=garbage!`), 400, "bad_request", "cursor")
  })

  it("applies the plan history windows and counts against the history rate limit", async () => {
    const today = isoDay(Date.now())
    // Hobby: a window of 0 days; without from it never fails
    const hobbyDefault = await get(hobby, "/v2/signals/above_sma_20/AAPL/events")
    expect(hobbyDefault.status).toBe(200)
    expect(hobbyDefault.body.from).toBe(today)
    expect(hobbyDefault.headers.get("x-ratelimit-limit")).toBe("60")
    const monthAgo = isoDay(Date.now() - 30 * DAY_MS)
    const refused = await get(hobby, `/v2/signals/above_sma_20/AAPL/events?from=${monthAgo}`)
    expectEnvelope(refused, 400, "history_window_exceeded")
    expect(refused.body.error.max_history_days).toBe(0)
    expect(refused.body.error.earliest_allowed_from).toBe(today)
    // Pro and Scale: the data starts before 5 years; before it is refused with the data's start
    const proDefault = await get(pro, "/v2/signals/above_sma_20/AAPL/events")
    expect(proDefault.headers.get("x-ratelimit-limit")).toBe("2000")
    const tooEarly = await get(scale, "/v2/signals/above_sma_20/AAPL/events?from=2000-01-03")
    expectEnvelope(tooEarly, 400, "history_window_exceeded")
    expect(tooEarly.body.error.max_history_days).toBeNull()
    expect(tooEarly.body.error.earliest_allowed_from).toBe(proDefault.body.from)
    const atStart = await get(scale, `/v2/signals/above_sma_20/AAPL/events?from=${proDefault.body.from}`)
    expect(atStart.status).toBe(200)
    expect(atStart.body.events).toEqual(proDefault.body.events)
    // the stats count against the general limit
    const stats = await get(pro, "/v2/signals/above_sma_20/stats")
    expect(stats.headers.get("x-ratelimit-limit")).toBe("6000")
  })

  it("refuses custom, numeric, unknown and malformed requests with the envelope", async () => {
    const created = await api(server, pro, "/v2/signals", {
      method: "POST",
      body: JSON.stringify({ name: "breakout_ev", expr: "price > sma_20 AND relative_volume > 1" })
    })
    expect(created.status).toBe(201)
    expectEnvelope(
      await get(pro, "/v2/signals/breakout_ev/AAPL/events"),
      400,
      "not_supported_for_custom_signal",
      "breakout_ev"
    )
    expectEnvelope(await get(pro, "/v2/signals/rsi_14/AAPL/events"), 400, "bad_request", "numeric")
    // another account's custom signal does not exist for this one
    expectEnvelope(await get(scale, "/v2/signals/breakout_ev/AAPL/events"), 404, "not_found")
    expectEnvelope(await get(pro, "/v2/signals/no_such_signal/AAPL/events"), 404, "not_found", "no_such_signal")
    expectEnvelope(await get(pro, "/v2/signals/sector/AAPL/events"), 404, "not_found", "sector")
    expectEnvelope(await get(pro, "/v2/signals/above_sma_20/NOPEX/events"), 404, "not_found", "NOPEX")
    for (const [query, mentions] of [
      ["from=yesterday", "from"],
      ["to=2026-13-01", "to"],
      ["from=2026-06-10&to=2026-06-01", "before"],
      ["limit=0", "limit"],
      ["limit=1001", "limit"],
      ["bogus=1", "bogus"]
    ]) {
      expectEnvelope(await get(pro, `/v2/signals/above_sma_20/AAPL/events?${query}`), 400, "bad_request", mentions)
    }
    expectEnvelope(await get(undefined, "/v2/signals/above_sma_20/AAPL/events"), 401, "unauthenticated")
    expectEnvelope(await get(undefined, "/v2/signals/above_sma_20/stats"), 401, "unauthenticated")
  })

  it("counts a flag's matches per trading day, equal to the as-of matches' totals", async () => {
    const res = await get(pro, "/v2/signals/above_sma_50/stats")
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      signal: "above_sma_50",
      condition: null,
      universe: null,
      source: "precomputed"
    })
    const days = res.body.days as Array<{ date: string; count: number; total: number }>
    // the default window: HISTORY_DAYS (60) trading days, ending with the last final day
    expect(days.length).toBeGreaterThanOrEqual(59)
    expect(days.length).toBeLessThanOrEqual(61)
    expect(res.body.count).toBe(days.length)
    expect(res.body.from).toBe(days[0].date)
    expect(res.body.to).toBe(days[days.length - 1].date)
    expect(res.body.to < isoDay(Date.now())).toBe(true)
    for (let k = 0; k < days.length; k++) {
      expect([0, 6]).not.toContain(weekday(days[k].date))
      if (k > 0) expect(days[k].date > days[k - 1].date).toBe(true)
      expect(days[k].total).toBeGreaterThan(10_000)
      expect(days[k].count).toBeGreaterThan(0)
      expect(days[k].count).toBeLessThan(days[k].total)
    }
    for (const d of [days[0], days[Math.floor(days.length / 2)], days[days.length - 1]]) {
      const matches = await get(pro, `/v2/signals/above_sma_50?asof=${d.date}&limit=1`)
      expect(matches.status).toBe(200)
      expect(matches.body.total, d.date).toBe(d.count)
    }
    // an explicit range, also reaching back before the default window
    const from = days[3].date
    const to = days[8].date
    const ranged = await get(pro, `/v2/signals/above_sma_50/stats?from=${from}&to=${to}T20:00:00Z`)
    expect(ranged.body.days).toEqual(days.slice(3, 9))
    // before the default window: back to the first day the whole market has rows in memory (warm-up
    // days, long averages still null), which a request from before it is told
    const tooEarly = await get(pro, "/v2/signals/above_sma_50/stats?from=2003-01-02")
    expect(tooEarly.status).toBe(400)
    expect(tooEarly.body.error.code).toBe("history_window_exceeded")
    const start = tooEarly.body.error.earliest_allowed_from as string
    expect(start > "2003-01-02").toBe(true)
    const tenLater = isoDay(Date.parse(start) + 13 * DAY_MS)
    const earlier = await get(pro, `/v2/signals/above_sma_50/stats?from=${start}&to=${tenLater}`)
    expect(earlier.status).toBe(200)
    expect(earlier.body.count).toBeGreaterThanOrEqual(8)
    for (const d of earlier.body.days) {
      expect(d.date >= start && d.date <= tenLater).toBe(true)
      expect([0, 6]).not.toContain(weekday(d.date))
    }
    const first = earlier.body.days[2]
    const firstMatches = await get(pro, `/v2/signals/above_sma_50?asof=${first.date}&limit=1`)
    expect(firstMatches.body.total).toBe(first.count)
    // same numbers on every plan (aggregates of the as-of reads, replayable everywhere)
    const onHobby = await get(hobby, "/v2/signals/above_sma_50/stats")
    expect(onHobby.body.days).toEqual(days)
  })

  it("scopes stats to system and own universes", async () => {
    const top = await get(pro, "/v2/signals/above_sma_20/stats?universe=top_100")
    expect(top.status).toBe(200)
    expect(top.body.universe).toBe("top_100")
    const days = top.body.days as Array<any>
    for (const d of [days[1], days[days.length - 1]]) {
      expect(d.total).toBe(100)
      const matches = await get(pro, `/v2/signals/above_sma_20?asof=${d.date}&universe=top_100&limit=1`)
      expect(matches.body.total, d.date).toBe(d.count)
    }
    const created = await api(server, pro, "/v2/universes", {
      method: "POST",
      body: JSON.stringify({ id: "stats_mix", name: "Stats mix", tickers: ["AAPL", "MSFT", "KO", "F", "BTC-USD"] })
    })
    expect(created.status).toBe(201)
    const own = await get(pro, "/v2/signals/above_sma_20/stats?universe=stats_mix")
    expect(own.status).toBe(200)
    const last = own.body.days[own.body.days.length - 1]
    expect(last.total).toBe(5)
    let expected = 0
    for (const t of ["AAPL", "MSFT", "KO", "F", "BTC-USD"]) {
      if ((await rowAsOf(t, "above_sma_20", last.date)).value === true) expected++
    }
    expect(last.count).toBe(expected)
    expectEnvelope(await get(pro, "/v2/signals/above_sma_20/stats?universe=stats_mix_2"), 404, "universe_not_found")
    // another account does not see the universe
    expectEnvelope(await get(scale, "/v2/signals/above_sma_20/stats?universe=stats_mix"), 404, "universe_not_found")
  })

  it("computes numeric conditions and custom signals on demand over a capped range", async () => {
    const flag = await get(pro, "/v2/signals/above_sma_50/stats")
    const days = flag.body.days as Array<any>
    const from = days[days.length - 5].date
    const to = days[days.length - 1].date

    const rsi = await get(pro, `/v2/signals/rsi_14/stats?condition=%3E60&from=${from}&to=${to}`)
    expect(rsi.status, JSON.stringify(rsi.body)).toBe(200)
    expect(rsi.body).toMatchObject({ signal: "rsi_14", condition: ">60", source: "computed", from, to, count: 5 })
    for (const d of [rsi.body.days[0], rsi.body.days[4]]) {
      const matches = await get(pro, `/v2/signals/rsi_14?condition=%3E60&asof=${d.date}&limit=1`)
      expect(matches.body.total, d.date).toBe(d.count)
      expect(d.total).toBeGreaterThan(10_000)
    }

    // a custom signal equal to the flag gives the precomputed counts
    const same = await api(server, pro, "/v2/signals", {
      method: "POST",
      body: JSON.stringify({ name: "over_fifty", expr: "above_sma_50 = true" })
    })
    expect(same.status).toBe(201)
    const custom = await get(pro, `/v2/signals/over_fifty/stats?from=${from}&to=${to}`)
    expect(custom.status, JSON.stringify(custom.body)).toBe(200)
    expect(custom.body.source).toBe("computed")
    expect(custom.body.days).toEqual(days.slice(days.length - 5))

    // a custom signal with a universe and a cross-ticker reference
    const rel = await api(server, pro, "/v2/signals", {
      method: "POST",
      body: JSON.stringify({ name: "beats_spy", expr: "day_change_pct > spy.day_change_pct" })
    })
    expect(rel.status).toBe(201)
    const scoped = await get(pro, `/v2/signals/beats_spy/stats?universe=top_10&from=${from}&to=${to}`)
    expect(scoped.status, JSON.stringify(scoped.body)).toBe(200)
    for (const d of scoped.body.days) {
      const matches = await get(pro, `/v2/signals/beats_spy?asof=${d.date}&universe=top_10&limit=1`)
      expect(matches.body.total, d.date).toBe(d.count)
      expect(d.total).toBe(10)
    }

    // the default range: the last 31 trading days; longer is refused naming the cap
    const recent = await get(pro, "/v2/signals/rsi_14/stats?condition=%3C30")
    expect(recent.status).toBe(200)
    expect(recent.body.count).toBe(31)
    expect(recent.body.to).toBe(to)
    const long = await get(pro, `/v2/signals/rsi_14/stats?condition=%3C30&from=${days[0].date}&to=${to}`)
    expectEnvelope(long, 400, "bad_request", "31 trading days")
    expect(long.body.error.max_days).toBe(31)
    // only from: the 31 trading days from it
    const fromOnly = await get(pro, `/v2/signals/rsi_14/stats?condition=%3C30&from=${days[0].date}`)
    expect(fromOnly.body.count).toBe(31)
    expect(fromOnly.body.from).toBe(days[0].date)
    // only to, before the data (as early as the calendar goes): no days, as for a flag; not a 500
    for (const early of ["1990-01-02", "2001-06-01"]) {
      for (const path of [
        `/v2/signals/rsi_14/stats?condition=%3C30&to=${early}`,
        `/v2/signals/over_fifty/stats?to=${early}`,
        `/v2/signals/above_sma_50/stats?to=${early}`
      ]) {
        const none = await get(pro, path)
        expect(none.status, `${path}: ${JSON.stringify(none.body)}`).toBe(200)
        expect(none.body).toMatchObject({ count: 0, days: [], from: null, to: null })
      }
    }
  }, 90_000)

  it("refuses bad stats requests with the envelope", async () => {
    expectEnvelope(await get(pro, "/v2/signals/rsi_14/stats"), 400, "bad_request", "condition")
    expectEnvelope(await get(pro, "/v2/signals/rsi_14/stats?condition=%3E%3Eseventy"), 400, "bad_request", "condition")
    expectEnvelope(await get(pro, "/v2/signals/no_such_signal/stats"), 404, "not_found")
    expectEnvelope(await get(pro, "/v2/signals/sector/stats"), 404, "not_found")
    expectEnvelope(await get(pro, "/v2/signals/above_sma_50/stats?universe=nope"), 404, "universe_not_found")
    expectEnvelope(await get(pro, "/v2/signals/above_sma_50/stats?from=tomorrow"), 400, "bad_request", "from")
    expectEnvelope(
      await get(pro, "/v2/signals/above_sma_50/stats?from=2026-06-10&to=2026-06-01"),
      400,
      "bad_request",
      "before"
    )
    expectEnvelope(await get(pro, "/v2/signals/above_sma_50/stats?limit=5"), 400, "bad_request", "limit")
    const early = await get(pro, "/v2/signals/above_sma_50/stats?from=2001-01-02")
    expectEnvelope(early, 400, "history_window_exceeded")
    expect(early.body.error.max_history_days).toBeNull()
    expect(typeof early.body.error.earliest_allowed_from).toBe("string")
    // consuming another account's (or no) custom signal: not found; below Pro a custom signal is 403
    expectEnvelope(await get(hobby, "/v2/signals/over_fifty/stats"), 404, "not_found")
  })
})
