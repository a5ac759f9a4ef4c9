/**
 * Dry-runs (issue 16, item 6) over HTTP: the replayed events agree with a
 * model rebuilt independently from as-of scans through the API; the stored
 * webhook's dry-run equals the one of its fields; the window, resolution and
 * minute-tier rules answer 4xx with the spec's codes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SAMPLE, type Service, startService } from "../../support/inProcess.js"
import { admin, api, expectError, waitReady } from "../../support/server.js"

const DAY = 86_400_000
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

describe("webhook dry-runs", () => {
  let server: Service
  let key: string
  const newKey = async (plan: string) =>
    (await admin(server, "POST", "/admin/accounts", { plan })).body.api_key as string
  const call = (k: string, method: string, path: string, body?: unknown) =>
    api(server, k, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

  beforeAll(async () => {
    server = await startService({ REFRESH_INTERVAL: "1h" }, SAMPLE)
    await waitReady(server)
    key = await newKey("scale")
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
  })

  it("replays a rule day by day as the as-of scans see it: entries and exits, numbered gap-free", async () => {
    const q = "rsi_14 < 45"
    const to = Date.now() - 3 * DAY
    const from = to - 40 * DAY
    const res = await call(key, "POST", "/v2/webhooks/dry-run", {
      q,
      universe: "top_10",
      fire_on: "both",
      from: isoDay(from),
      to: isoDay(to)
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ resolution: "1d", from: isoDay(from), to: isoDay(to), q, universe: "top_10" })
    // the reference: every day's as-of matches, diffed (the plain machine with fire_on both)
    const days: Array<string> = []
    for (let t = from; t <= to + 1; t += DAY) if (isoDay(t) <= isoDay(to)) days.push(isoDay(t))
    const expected: Array<{ at: string; type: string; tickers: Array<string> }> = []
    let inside = new Set<string>()
    let evaluations = 0
    for (const day of days) {
      const scan = await call(key, "POST", "/v2/scan", { q, universe: "top_10", asof: day, limit: 100 })
      expect(scan.status).toBe(200)
      const now = new Set<string>(scan.body.results.map((r: any) => r.ticker))
      // a day with no bar of any top_10 member then is not an evaluation
      const all = await call(key, "POST", "/v2/scan", { q: "price > 0", universe: "top_10", asof: day, limit: 100 })
      if (!all.body.results.some((r: any) => r.date === day)) continue
      evaluations++
      const entered = [...now].filter((t) => !inside.has(t)).sort()
      const left = [...inside].filter((t) => !now.has(t)).sort()
      if (entered.length > 0) expected.push({ at: day, type: "webhook.fired", tickers: entered })
      if (left.length > 0) expected.push({ at: day, type: "webhook.cleared", tickers: left })
      inside = now
    }
    expect(res.body.evaluations).toBe(evaluations)
    expect(res.body.events.map(({ at, type, tickers }: any) => ({ at, type, tickers }))).toEqual(expected)
    expect(res.body.events.map((e: any) => e.sequence)).toEqual(expected.map((_, i) => i + 1))
    expect(res.body.event_count).toBe(expected.length)
    expect(res.body.truncated).toBe(false)
    expect(expected.some((e) => e.type === "webhook.cleared")).toBe(true)
    // per ticker: its rows in the events
    for (const t of res.body.per_ticker) {
      const mine = expected.filter((e) => e.tickers.includes(t.ticker))
      expect(t.fires).toBe(mine.filter((e) => e.type === "webhook.fired").length)
      expect(t.clears).toBe(mine.filter((e) => e.type === "webhook.cleared").length)
      expect(t.first_at).toBe(mine[0]!.at)
      expect(t.last_at).toBe(mine.at(-1)!.at)
    }
    // forward returns: at most one per entry; a 1-day horizon exists for every entry but the last days'
    const entries = expected.filter((e) => e.type === "webhook.fired").reduce((n, e) => n + e.tickers.length, 0)
    const fr = res.body.forward_returns
    expect(fr["1d"].n).toBeGreaterThan(0)
    expect(fr["1d"].n).toBeLessThanOrEqual(entries)
    expect(fr["20d"].n).toBeLessThanOrEqual(fr["5d"].n)
    expect(fr["5d"].n).toBeLessThanOrEqual(fr["1d"].n)
    expect(fr["1d"].hit_rate).toBeGreaterThanOrEqual(0)
    expect(fr["1d"].hit_rate).toBeLessThanOrEqual(1)
  }, 120_000)

  it("applies the options: cooldown absorbs re-entries, pending_for delays them, and a stored webhook replays alike", async () => {
    const base = {
      q: "rsi_14 < 50",
      universe: "top_10",
      from: isoDay(Date.now() - 90 * DAY),
      to: isoDay(Date.now() - 2 * DAY)
    }
    const plain = (await call(key, "POST", "/v2/webhooks/dry-run", base)).body
    const cooled = (await call(key, "POST", "/v2/webhooks/dry-run", { ...base, cooldown: "30d" })).body
    const pending = (await call(key, "POST", "/v2/webhooks/dry-run", { ...base, pending_for: "1d" })).body
    expect(plain.evaluations).toBe(cooled.evaluations)
    // within 30 days each ticker fires at most once per run of 30 days
    for (const t of cooled.per_ticker) {
      const p = plain.per_ticker.find((x: any) => x.ticker === t.ticker)
      expect(t.fires).toBeLessThanOrEqual(p.fires)
    }
    const firesOf = (d: any) => d.per_ticker.reduce((n: number, t: any) => n + t.fires, 0)
    expect(firesOf(cooled)).toBeLessThan(firesOf(plain))
    expect(firesOf(pending)).toBeLessThanOrEqual(firesOf(plain))
    // the first evaluation fires at once without pending_for, a day later with it
    expect(plain.events[0].at).toBe(plain.per_ticker.map((t: any) => t.first_at).sort()[0])
    if (pending.events.length > 0) expect(pending.events[0].at > plain.events[0].at).toBe(true)

    // the stored webhook's dry-run is the one of its fields
    const created = await call(key, "POST", "/v2/webhooks", {
      ...base,
      from: undefined,
      to: undefined,
      cooldown: "30d"
    })
    expect(created.status).toBe(201)
    const stored = await call(key, "POST", `/v2/webhooks/${created.body.id}/dry-run`, { from: base.from, to: base.to })
    expect(stored.status).toBe(200)
    expect({ ...stored.body, as_of: null }).toEqual({ ...cooled, as_of: null })
    // another account's webhook is a 404
    const other = await newKey("pro")
    expectError(await call(other, "POST", `/v2/webhooks/${created.body.id}/dry-run`, {}), 404, "not_found")
  }, 120_000)

  it("replays the ticker and signal forms, and pins a ticker rule to its ticker", async () => {
    const window = { from: isoDay(Date.now() - 30 * DAY), to: isoDay(Date.now() - DAY) }
    const byTicker = await call(key, "POST", "/v2/webhooks/dry-run", {
      ticker: "aapl",
      condition: "price > 0",
      ...window
    })
    expect(byTicker.status).toBe(200)
    expect(byTicker.body.q).toBe("ticker = 'AAPL' AND (price > 0)")
    // matches on the first evaluation and never leaves: one event, one ticker
    expect(byTicker.body.events).toEqual([
      { at: byTicker.body.events[0].at, sequence: 1, type: "webhook.fired", tickers: ["AAPL"] }
    ])
    const bySignal = await call(key, "POST", "/v2/webhooks/dry-run", {
      signal: "rsi_14",
      condition: ">0",
      ticker: "AAPL",
      ...window
    })
    expect(bySignal.status).toBe(200)
    expect(bySignal.body.q).toBe("ticker = 'AAPL' AND (rsi_14 > 0)")
    expect(bySignal.body.events.map((e: any) => e.tickers)).toEqual([["AAPL"]])
  }, 60_000)

  it("replays at 1m within the minute history, on the cadence's minutes", async () => {
    const to = new Date().toISOString()
    const from = new Date(Date.now() - DAY).toISOString()
    const realtime = await call(key, "POST", "/v2/webhooks/dry-run", {
      q: "price > 0",
      universe: "top_10",
      resolution: "1m",
      from,
      to
    })
    expect(realtime.status).toBe(200)
    expect(realtime.body.resolution).toBe("1m")
    expect(realtime.body.evaluations).toBeGreaterThan(60)
    expect(realtime.body.events[0].at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/)
    const hourly = await call(key, "POST", "/v2/webhooks/dry-run", {
      q: "price > 0",
      universe: "top_10",
      resolution: "1m",
      cadence: "hourly",
      from,
      to
    })
    expect(hourly.status).toBe(200)
    expect(hourly.body.evaluations).toBeGreaterThan(0)
    expect(hourly.body.evaluations).toBeLessThanOrEqual(25)
    for (const e of hourly.body.events) expect(new Date(e.at).getUTCMinutes()).toBeLessThanOrEqual(1)
    // daily-only columns are refused at 1m
    expectError(
      await call(key, "POST", "/v2/webhooks/dry-run", { q: "pe_ratio > 0", resolution: "1m", from, to }),
      400,
      "signal_not_available_at_interval"
    )
    expectError(
      await call(key, "POST", "/v2/webhooks/dry-run", {
        q: "price > 0",
        resolution: "1m",
        from: isoDay(Date.now() - 20 * DAY),
        to: isoDay(Date.now())
      }),
      400,
      "bad_request"
    )
  }, 120_000)

  it("refuses bad input with the spec's codes", async () => {
    const dry = (body: unknown, k = key) => call(k, "POST", "/v2/webhooks/dry-run", body)
    expectError(await dry({ q: "price > 0", resolution: "1h" }), 400, "bad_request")
    expectError(await dry({ q: "price >" }), 400, "invalid_query")
    expectError(await dry({ q: "price > 0", ticker: "AAPL", condition: "price > 0" }), 400, "bad_request")
    expectError(await dry({ ticker: "AAPL" }), 400, "bad_request")
    expectError(await dry({}), 400, "bad_request")
    expectError(await dry({ q: "price > 0", universe: "nope" }), 404, "universe_not_found")
    expectError(await dry({ signal: "not_a_signal" }), 404, "unknown_signal")
    expectError(await dry({ q: "price > 0", pending_for: "2d" }), 400, "bad_request")
    expectError(await dry({ q: "price > 0", from: "2026-02-30" }), 400, "bad_request")
    expectError(await dry({ q: "price > 0", from: "2026-01-10", to: "2026-01-01" }), 400, "bad_request")
    expectError(await dry({ q: "price > 0", from: "1990-01-02" }), 400, "history_window_exceeded")
    const future = await dry({ q: "price > 0", from: isoDay(Date.now() + 3 * DAY) })
    expectError(future, 400, "bad_request")
    expect(future.body.error.message).toMatch(/in the future/)
    // Hobby's history window is today only; Free has no webhooks
    expectError(
      await dry({ q: "price > 0", from: isoDay(Date.now() - 10 * DAY) }, await newKey("hobby")),
      400,
      "history_window_exceeded"
    )
    expectError(await dry({ q: "price > 0" }, await newKey("free")), 403, "webhook_tier_required")
  }, 60_000)
})
