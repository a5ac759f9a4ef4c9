/**
 * The ticker page's chart data (issue 18, item 4): minute and hourly bars made from the market's
 * minute tier — each bar's close the minute-tier `price` at its end, its volume what `volume_today`
 * grew by, OHLC well-formed, in order, within the minute coverage and the plan's window — beside
 * the daily and weekly ones; and the markers: the account's `webhook.fired` and `webhook.cleared`
 * events naming the ticker (in the store, suppressed ones too), never another account's.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { Alerts } from "../../../src/alerts/Alerts.js"
import { DEFAULT_FIRING } from "../../../src/alerts/firing/options.js"
import { INTRADAY_SESSIONS } from "../../../src/api/dashboard/chart.js"
import { type IntradayBars, intradayBars } from "../../../src/market/engine/intradayBars.js"
import { MarketData } from "../../../src/market/engine/MarketData.js"
import { DAY_MS } from "../../../src/market/indicators/days.js"
import { loadTickers } from "../../../src/market/tickers/index.js"
import { WebhookEvents } from "../../../src/store/webhookEvents.js"
import { Webhooks } from "../../../src/store/webhooks.js"
import { layerFor, snapshot } from "../../alerts/support.js"
import { backends } from "../../support/backends.js"
import { admin, api } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"
import { inAppConfig } from "../../support/webhooks.js"

const MIN = 60_000
const HOUR = 3_600_000

/** OHLC holds (low ≤ open, close ≤ high), volumes are whole and not negative, times strictly rise */
const wellFormed = (b: {
  t: ReadonlyArray<number>
  o: ReadonlyArray<number>
  h: ReadonlyArray<number>
  l: ReadonlyArray<number>
  c: ReadonlyArray<number>
  v: ReadonlyArray<number>
}) => {
  const n = b.t.length
  for (const col of [b.o, b.h, b.l, b.c, b.v]) expect(col).toHaveLength(n)
  for (let k = 0; k < n; k++) {
    if (k > 0 && !(b.t[k]! > b.t[k - 1]!)) return `bar ${k}: time ${b.t[k]} after ${b.t[k - 1]}`
    if (!(b.l[k]! <= Math.min(b.o[k]!, b.c[k]!) && b.h[k]! >= Math.max(b.o[k]!, b.c[k]!) && b.l[k]! > 0)) {
      return `bar ${k}: o ${b.o[k]} h ${b.h[k]} l ${b.l[k]} c ${b.c[k]}`
    }
    if (!(Number.isInteger(b.v[k]) && b.v[k]! >= 0)) return `bar ${k}: volume ${b.v[k]}`
  }
  return "ok"
}

describe("intraday chart bars", () => {
  const PICK = new Set(["AAPL", "MSFT", "BTC-USD"])
  const tickers = loadTickers().filter((t, i) => PICK.has(t.ticker) || i % 500 === 0)
  /** Friday 2026-11-20, 13:30 New York: the session is open */
  const FRIDAY_MIDDAY = Date.UTC(2026, 10, 20, 18, 30)
  const md = MarketData.build({ seed: 7, tickers, historyDays: 30, now: FRIDAY_MIDDAY })

  /**
   * Where a bar disagrees with the market's minute tier: its close is `price` at its last minute,
   * its open `price` at its start (but a session's first), its volume what `volume_today` grew by.
   */
  const disagreements = (ticker: string, bars: IntradayBars, interval: "1m" | "1h") => {
    const step = interval === "1m" ? MIN : HOUR
    const crypto = md.isCrypto[md.index.get(ticker)!] === 1
    const read = (column: string) =>
      new Map(md.intradaySeries(ticker, column, "1m", bars.t[0]!, FRIDAY_MIDDAY, 1e6).map((p) => [p.t, p.value]))
    const price = read("price")
    const volume = read("volume_today") as Map<number, number>
    const problems: Array<string> = []
    for (let k = 0; k < bars.t.length; k++) {
      const t = bars.t[k]!
      // the bar's last minute: its step's end, or its session's last minute before that
      let end = (Math.floor(t / step) + 1) * step
      while (end > t && !price.has(end)) end -= MIN
      // a session's first minute starts where no minute of it ends (a crypto day's 00:00 ends the day before)
      const first = !price.has(t) || (crypto && t % DAY_MS === 0)
      const grew = volume.get(end)! - (first ? 0 : volume.get(t)!)
      if (price.get(end) !== bars.c[k] || (!first && price.get(t) !== bars.o[k]) || grew !== bars.v[k]) {
        problems.push(
          `${new Date(t).toISOString()}: o ${bars.o[k]} c ${bars.c[k]} v ${bars.v[k]}; tier ${price.get(t)} ${price.get(end)} ${grew}`
        )
      }
    }
    return problems.slice(0, 5)
  }

  it("minutes: the newest sessions, each bar closing at the minute tier's price, volumes adding up to volume_today", () => {
    for (const ticker of ["AAPL", "BTC-USD"]) {
      const i = md.index.get(ticker)!
      const bars = intradayBars(md, i, "1m", 0, FRIDAY_MIDDAY, INTRADAY_SESSIONS["1m"])
      expect(wellFormed(bars)).toBe("ok")
      const sessions = new Set(bars.t.map((t) => Math.floor(t / DAY_MS)))
      expect([ticker, sessions.size]).toEqual([ticker, 5])
      // the open session to the latest refresh: its last minute ends at 13:30 New York
      expect(bars.t[bars.t.length - 1]).toBe(FRIDAY_MIDDAY - MIN)
      // equities: 390 minutes a completed session, 240 so far today; crypto: 1,440 a UTC day
      expect(bars.t.length).toBe(ticker === "AAPL" ? 4 * 390 + 240 : 4 * 1440 + 1110)
      expect(disagreements(ticker, bars, "1m")).toEqual([])
      for (const t of bars.t) expect(t % MIN).toBe(0)
    }
  })

  it("hours: within the minute coverage, each closing at the hour's last price; one session on a plan without history", () => {
    for (const ticker of ["AAPL", "BTC-USD"]) {
      const i = md.index.get(ticker)!
      const coverage = md.minuteCoverage(i)
      const bars = intradayBars(md, i, "1h", 0, FRIDAY_MIDDAY, INTRADAY_SESSIONS["1h"])
      expect(wellFormed(bars)).toBe("ok")
      expect(bars.t.length).toBeGreaterThan(100)
      expect(bars.t[0]!).toBeGreaterThanOrEqual(coverage.from * DAY_MS)
      expect(bars.t[bars.t.length - 1]!).toBeLessThan((coverage.to + 1) * DAY_MS)
      // a bar starts on the hour, or at the session's open (09:30 New York)
      for (const t of bars.t) expect([0, 30 * MIN]).toContain(t % HOUR)
      expect(disagreements(ticker, intradayBars(md, i, "1h", 0, FRIDAY_MIDDAY, 20), "1h")).toEqual([])
      const one = intradayBars(md, i, "1h", 0, FRIDAY_MIDDAY, 1)
      expect(new Set(one.t.map((t) => Math.floor(t / DAY_MS)))).toEqual(new Set([Math.floor(FRIDAY_MIDDAY / DAY_MS)]))
    }
    // minutes after `to` are left out, an empty window gives none
    const i = md.index.get("AAPL")!
    const early = intradayBars(md, i, "1m", 0, FRIDAY_MIDDAY - HOUR, 1)
    expect(early.t[early.t.length - 1]).toBe(FRIDAY_MIDDAY - HOUR - MIN)
    expect(intradayBars(md, i, "1m", FRIDAY_MIDDAY, FRIDAY_MIDDAY - 1, 5).t).toEqual([])
  })
})

for (const backend of backends()) {
  describe(`the account's events naming a ticker (${backend.name})`, () => {
    const T0 = Date.UTC(2026, 10, 23, 15)
    const make = (accountId: string, id: string, q: string, fireOn: "enter" | "both" = "enter") =>
      Effect.gen(function* () {
        const created = yield* (yield* Webhooks).create(
          accountId,
          id,
          {
            ...inAppConfig(`${id} name`, q),
            firing: { ...DEFAULT_FIRING, fireOn, ...(fireOn === "both" ? { clearQ: "rsi_14 > 40" } : {}) }
          },
          null
        )
        if (created._tag !== "Created") throw new Error("not created")
      })
    const at = (minute: number, rsi: Record<string, number>) =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0 + minute * MIN)
        expect(yield* (yield* Alerts).evaluate(snapshot(T0 + minute * MIN - 5_000, {}, rsi))).not.toHaveProperty(
          "error"
        )
      })

    it.scoped(
      "fired and cleared, newest first, across the account's webhooks; suppressed ones too; never another account's",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          for (const id of ["acc_a", "acc_b", "acc_c"]) {
            yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES (${id}, 'pro', 1, 1)`
          }
          yield* TestClock.setTime(T0)
          yield* make("acc_a", "wh_both", "rsi_14 < 30", "both")
          yield* make("acc_a", "wh_bbb", "ticker = 'BBB' AND rsi_14 < 30")
          yield* make("acc_a", "wh_quiet", "rsi_14 < 30")
          // snoozed: its events are kept in the feed (suppressed), not delivered
          yield* (yield* Webhooks).snooze("acc_a", "wh_quiet", T0 + 60 * MIN)
          yield* make("acc_b", "wh_b", "rsi_14 < 30")
          yield* at(1, { AAA: 28, BBB: 25 })
          yield* at(3, { AAA: 45, BBB: 45 })
          const events = yield* WebhookEvents
          const seen = (accountId: string, ticker: string, limit = 500) =>
            Effect.map(events.forTicker(accountId, ticker, limit), (list) =>
              list.map((e) => `${e.type} ${e.webhookId} ${e.webhookName} ${(e.dataAsOf - T0 + 5_000) / MIN}`)
            )
          expect(yield* seen("acc_a", "AAA")).toEqual([
            "webhook.cleared wh_both wh_both name 3",
            "webhook.fired wh_both wh_both name 1",
            "webhook.fired wh_quiet wh_quiet name 1"
          ])
          expect(yield* seen("acc_a", "BBB")).toEqual([
            "webhook.cleared wh_both wh_both name 3",
            "webhook.fired wh_bbb wh_bbb name 1",
            "webhook.fired wh_both wh_both name 1",
            "webhook.fired wh_quiet wh_quiet name 1"
          ])
          expect(yield* seen("acc_a", "BBB", 2)).toHaveLength(2)
          expect(yield* seen("acc_b", "AAA")).toEqual(["webhook.fired wh_b wh_b name 1"])
          expect(yield* seen("acc_c", "AAA")).toEqual([])
          // a ticker no row carries, nor one whose symbol merely contains it
          expect(yield* seen("acc_a", "CCC")).toEqual([])
          expect(yield* seen("acc_a", "AA")).toEqual([])
        }).pipe(Effect.provide(WebhookEvents.Default.pipe(Layer.provideMerge(layerFor(backend.layer()))))),
      60_000
    )
  })
}

describe("the chart's endpoints", () => {
  const server = serveForSuite()

  /** a dashboard user of a new account, signed in: its cookie and an API key of its account */
  const signIn = async (email: string, plan: string) => {
    const made = await admin(server, "POST", "/admin/users", { email, plan })
    const res = await fetch(`${server.url}/dashboard/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: made.body.password })
    })
    expect(res.status).toBe(200)
    const cookie = String(res.headers.get("set-cookie")).split(";")[0]!
    const key = (await admin(server, "POST", `/admin/accounts/${made.body.account_id}/keys`, {})).body.api_key as string
    const get = async (path: string) => {
      const answer = await fetch(`${server.url}${path}`, { headers: { cookie } })
      return { status: answer.status, body: (await answer.json()) as any }
    }
    return { cookie, key, get }
  }

  it("answers minute and hourly bars within the minute coverage, daily and weekly as before, and refuses what it cannot", async () => {
    const pro = await signIn("bars-pro@example.com", "pro")
    const coverage = await api(server, pro.key, "/v2/tickers/AAPL/coverage")
    expect(coverage.status).toBe(200)
    const from = Date.parse(`${coverage.body.minute_from}T00:00:00Z`)
    const to = Date.parse(`${coverage.body.minute_to}T00:00:00Z`) + DAY_MS
    for (const interval of ["1m", "1h"] as const) {
      const { status, body } = await pro.get(`/dashboard/api/tickers/aapl/bars?interval=${interval}`)
      expect([interval, status]).toEqual([interval, 200])
      expect(body).toMatchObject({ ticker: "AAPL", interval, limited: false })
      expect(body.t.length).toBeGreaterThan(interval === "1m" ? 300 : 100)
      expect(wellFormed(body)).toBe("ok")
      for (const t of body.t) {
        expect(t * 1000).toBeGreaterThanOrEqual(from)
        expect(t * 1000).toBeLessThan(to)
        expect(t % 60).toBe(0)
      }
      expect(body.from).toBe(new Date(body.t[0] * 1000).toISOString())
      expect(body.to).toBe(new Date(body.t[body.t.length - 1] * 1000).toISOString())
      const sessions = new Set(body.t.map((t: number) => Math.floor(t / 86_400)))
      if (interval === "1m") expect(sessions.size).toBe(INTRADAY_SESSIONS["1m"])
    }
    // a plan without history: the last session only
    const hobby = await signIn("bars-hobby@example.com", "hobby")
    const last = await hobby.get("/dashboard/api/tickers/AAPL/bars?interval=1h")
    expect(last.status).toBe(200)
    expect(last.body.limited).toBe(true)
    expect(new Set(last.body.t.map((t: number) => Math.floor(t / 86_400))).size).toBe(1)

    // daily and weekly: as before
    const daily = await pro.get("/dashboard/api/tickers/AAPL/bars")
    expect(daily.status).toBe(200)
    expect(daily.body).toMatchObject({
      interval: "1d",
      limited: true,
      from: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/)
    })
    expect(wellFormed(daily.body)).toBe("ok")
    for (const t of daily.body.t.slice(-10)) expect(t % 86_400).toBe(0)
    const weekly = await pro.get("/dashboard/api/tickers/AAPL/bars?interval=1w")
    expect(weekly.body.interval).toBe("1w")
    expect(weekly.body.t.length).toBeLessThan(daily.body.t.length / 4)

    const bad = await pro.get("/dashboard/api/tickers/AAPL/bars?interval=2d")
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toMatch(/interval: expected one of "1m", "1h", "1d", "1w"; got "2d"/)
    for (const path of ["/dashboard/api/tickers/ZZZZQX/bars?interval=1m", "/dashboard/api/tickers/ZZZZQX/markers"]) {
      const unknown = await pro.get(path)
      expect([path, unknown.status, unknown.body.error.code]).toEqual([path, 404, "not_found"])
    }
    // a ticker outside the minute tier: no minute bars (its days are there)
    const scan = await api(server, pro.key, "/v2/scan", {
      method: "POST",
      body: JSON.stringify({ q: "asset_type = 'CS'", order: "avg_dollar_volume_30d", dir: "asc", limit: 1 })
    })
    const small = scan.body.results[0].ticker as string
    expect((await api(server, pro.key, `/v2/tickers/${small}/coverage`)).body.minute_from).toBeNull()
    const refused = await pro.get(`/dashboard/api/tickers/${small}/bars?interval=1m`)
    expect([refused.status, refused.body.error.code]).toEqual([400, "ticker_not_in_minute_tier"])
    expect((await pro.get(`/dashboard/api/tickers/${small}/bars?interval=1d`)).status).toBe(200)
    // without a session: 401
    expect((await fetch(`${server.url}/dashboard/api/tickers/AAPL/markers`)).status).toBe(401)
  }, 120_000)

  it("marks where the account's subscriptions fired for the ticker: only its own, only that ticker's", async () => {
    const ann = await signIn("markers-ann@example.com", "pro")
    const bob = await signIn("markers-bob@example.com", "pro")
    const subscribe = async (key: string, ticker: string) => {
      const sub = await api(server, key, `/v2/tickers/${ticker}/subscribe`, {
        method: "POST",
        body: JSON.stringify({ condition: "price > 0" })
      })
      expect(sub.status).toBe(200)
      return sub.body as { id: string; name: string }
    }
    const msft = await subscribe(ann.key, "msft")
    await subscribe(ann.key, "aapl")
    await subscribe(bob.key, "aapl")
    expect((await admin(server, "POST", "/admin/refresh")).status).toBe(200)
    await expect
      .poll(async () => (await ann.get("/dashboard/api/tickers/MSFT/markers")).body.markers?.length, {
        timeout: 30_000,
        interval: 250
      })
      .toBe(1)
    const { body } = await ann.get("/dashboard/api/tickers/msft/markers")
    expect(body.markers).toEqual([
      { time: expect.any(String), kind: "fired", webhook_id: msft.id, webhook_name: msft.name }
    ])
    const events = await api(server, ann.key, `/v2/webhooks/${msft.id}/events`)
    expect(body.markers[0].time).toBe(events.body.events[0].data_as_of)
    // bob's AAPL alert is his alone; he has none for MSFT
    await expect
      .poll(async () => (await bob.get("/dashboard/api/tickers/AAPL/markers")).body.markers?.length, {
        timeout: 30_000,
        interval: 250
      })
      .toBe(1)
    expect((await bob.get("/dashboard/api/tickers/MSFT/markers")).body).toEqual({ markers: [] })
    const annAapl = (await ann.get("/dashboard/api/tickers/AAPL/markers")).body.markers
    expect(annAapl.map((m: any) => m.webhook_name)).toEqual(["AAPL: price > 0"])
  }, 120_000)
})
