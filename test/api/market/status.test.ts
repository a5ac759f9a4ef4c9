import { rmSync } from "node:fs"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { marketStatusAt } from "../../../src/api/market/Http.js"
import { cryptoTradingDate, equityTradingDate, marketSession } from "../../../src/market/calendar.js"
import { pgliteLayer } from "../../../src/store/Database.js"
import { runMigrations } from "../../../src/store/migrate.js"
import { type Service, startService } from "../../support/inProcess.js"
import { admin, api, newDataDir, waitReady } from "../../support/server.js"

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe("market status at fixed instants", () => {
  it("a regular session in progress", () => {
    // Tuesday 2026-03-10 11:00 EDT
    expect(marketStatusAt(Date.parse("2026-03-10T15:00:00Z"))).toEqual({
      as_of: "2026-03-10T15:00:00.000Z",
      equities: {
        open: true,
        session_date: "2026-03-10",
        opens_at: "2026-03-10T13:30:00.000Z",
        closes_at: "2026-03-10T20:00:00.000Z",
        next_open: "2026-03-11T13:30:00.000Z",
        next_close: "2026-03-10T20:00:00.000Z",
        early_close: false
      },
      crypto: { open: true, trading_date: "2026-03-10" }
    })
  })

  it("an early close, the day after Thanksgiving", () => {
    const s = marketStatusAt(Date.parse("2026-11-27T17:00:00Z"))
    expect(s.equities).toMatchObject({
      open: true,
      session_date: "2026-11-27",
      closes_at: "2026-11-27T18:00:00.000Z",
      early_close: true
    })
    const after = marketStatusAt(Date.parse("2026-11-27T19:00:00Z"))
    expect(after.equities).toMatchObject({
      open: false,
      session_date: "2026-11-27",
      next_open: "2026-11-30T14:30:00.000Z",
      next_close: "2026-11-30T21:00:00.000Z"
    })
  })

  it("a weekend and a pre-market morning belong to the last session", () => {
    const sat = marketStatusAt(Date.parse("2026-11-21T15:00:00Z"))
    expect(sat.equities).toMatchObject({
      open: false,
      session_date: "2026-11-20",
      opens_at: "2026-11-20T14:30:00.000Z",
      closes_at: "2026-11-20T21:00:00.000Z",
      next_open: "2026-11-23T14:30:00.000Z",
      next_close: "2026-11-23T21:00:00.000Z",
      early_close: false
    })
    expect(sat.crypto).toEqual({ open: true, trading_date: "2026-11-21" })
    const pre = marketStatusAt(Date.parse("2026-11-23T12:00:00Z"))
    expect(pre.equities).toMatchObject({
      open: false,
      session_date: "2026-11-20",
      next_open: "2026-11-23T14:30:00.000Z"
    })
  })
})

describe("GET /v2/market/status over HTTP", () => {
  let server: Service
  let key: string
  let dataDir: string | undefined
  beforeAll(async () => {
    // A data directory that already holds the migrated database: the service opens it and then
    // loads the market (on a new directory the market loads while a worker creates the database,
    // and may be ready before the database answers), so the admin API answers while the market loads.
    // The whole market: the sample's builds too fast for the reads made while it loads.
    dataDir = newDataDir()
    await Effect.runPromise(Effect.scoped(Effect.provide(runMigrations, pgliteLayer(dataDir))))
    server = await startService({ DATA_DIR: dataDir })
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
  })

  it("answers 503 on market reads while the market loads; the calendar answers meanwhile", async () => {
    const deadline = Date.now() + 30_000
    let created = await admin(server, "POST", "/admin/accounts", { plan: "pro" }).catch(() => undefined)
    while (created?.status !== 201 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100))
      created = await admin(server, "POST", "/admin/accounts", { plan: "pro" }).catch(() => undefined)
    }
    expect(created?.status).toBe(201)
    key = created!.body.api_key
    // the market takes ~15 s to build; the account is ready long before
    expect((await api(server, undefined, "/readyz")).status).toBe(503)
    for (const path of [
      "/v2/tickers",
      "/v2/tickers?tickers=AAPL",
      "/v2/tickers/AAPL",
      "/v2/tickers/AAPL/history?asof=2026-01-05"
    ]) {
      const res = await api(server, key, path)
      expect(res.status).toBe(503)
      expect(res.body.error.code).toBe("service_unavailable")
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0)
    }
    expect((await api(server, key, "/v2/market/status")).status).toBe(200)
    await waitReady(server, 120_000)
    expect((await api(server, key, "/v2/tickers/AAPL")).status).toBe(200)
  }, 180_000)

  it("gives the calendar now: shape and values", async () => {
    const before = Date.now()
    const res = await api(server, key, "/v2/market/status")
    const after = Date.now()
    expect(res.status).toBe(200)
    const body = res.body
    // issue 16 added the data's freshness
    expect(Object.keys(body)).toEqual(["as_of", "equities", "crypto", "data_as_of", "stale"])
    expect(body.data_as_of).toMatch(ISO)
    expect(body.stale).toBe(false)
    expect(Object.keys(body.equities)).toEqual([
      "open",
      "session_date",
      "opens_at",
      "closes_at",
      "next_open",
      "next_close",
      "early_close"
    ])
    expect(body.as_of).toMatch(ISO)
    const now = Date.parse(body.as_of)
    expect(now).toBeGreaterThanOrEqual(before - 5)
    expect(now).toBeLessThanOrEqual(after + 5)
    for (const f of ["opens_at", "closes_at", "next_open", "next_close"]) expect(body.equities[f]).toMatch(ISO)
    const s = marketSession(now)
    expect(body.equities).toEqual({
      open: s.open,
      session_date: equityTradingDate(now),
      opens_at: new Date(s.opensAt).toISOString(),
      closes_at: new Date(s.closesAt).toISOString(),
      next_open: new Date(s.nextOpen).toISOString(),
      next_close: new Date(s.nextClose).toISOString(),
      early_close: s.earlyClose
    })
    expect(Date.parse(body.equities.opens_at)).toBeLessThan(Date.parse(body.equities.closes_at))
    expect(Date.parse(body.equities.next_open)).toBeGreaterThan(now)
    expect(Date.parse(body.equities.next_close)).toBeGreaterThan(now)
    expect(body.equities.open).toBe(
      now >= Date.parse(body.equities.opens_at) && now < Date.parse(body.equities.closes_at)
    )
    expect(body.crypto).toEqual({ open: true, trading_date: cryptoTradingDate(now) })
  })

  it("needs a key and refuses unknown parameters", async () => {
    const res = await api(server, undefined, "/v2/market/status")
    expect(res.status).toBe(401)
    expect(res.body.error.code).toBe("unauthenticated")
    const extra = await api(server, key, "/v2/market/status?tz=utc")
    expect(extra.status).toBe(400)
    expect(extra.body.error.message).toContain("tz")
  })
})
