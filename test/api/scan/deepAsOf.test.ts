/**
 * As-of reads of any day since 2003 through the API (issue 17, items 1 and 2): before the window the
 * market holds, scans, scan history and explain, signal matches and system universes read the whole
 * market's history (`DeepHistory`). Built on first use here (`DEEP_HISTORY=lazy`, the tests'
 * setting): 503 with a Retry-After until then, never an empty answer; kept in the data directory,
 * so the next start reads it at once.
 */
import { cpSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { SAMPLE, type Service, startService } from "../../support/inProcess.js"
import { admin, api, expectError, newDataDir, waitReady } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"

const DATE = "2010-06-03"

describe("as-of reads since 2003", () => {
  const server = serveForSuite({ REFRESH_INTERVAL: "1h" }, SAMPLE)
  const newKey = async (plan = "scale") => (await admin(server, "POST", "/admin/accounts", { plan })).body.api_key
  const post = (body: unknown, k: string, path = "/v2/scan", at: Service = server) =>
    api(at, k, path, { method: "POST", body: JSON.stringify(body) })

  it("answers 503 with a Retry-After while the history is built, then every ticker's row of that day", async () => {
    const key = await newKey()
    const metric = async (name: string) => {
      const text = await (await fetch(`${server.url}/metrics`)).text()
      const m = new RegExp(`^${name} (\\S+)$`, "m").exec(text)
      return m === null ? undefined : Number(m[1])
    }
    // lazy (the tests' setting): nothing built before a read asks
    expect(await metric("market_deep_history_ready")).toBe(0)
    const first = await post({ q: "rsi_14 < 30", asof: DATE }, key)
    expectError(first, 503, "service_unavailable")
    expect(first.body.error.message).toMatch(/being built/)
    expect(Number(first.headers.get("retry-after"))).toBeGreaterThan(0)

    let res = first
    for (let deadline = Date.now() + 150_000; res.status === 503 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 1_000))
      res = await post({ q: "rsi_14 < 45", asof: DATE, fields: "rsi_14,sma_200,obv,price", limit: 100 }, key)
    }
    const built = server
      .logs()
      .split("\n")
      .filter((l) => l.includes("history before the window"))
    expect(res.status, `${JSON.stringify(res.body)}\n${built.join("\n")}`).toBe(200)
    expect(res.body.query.asof).toBe(DATE)
    expect(await metric("market_deep_history_ready")).toBe(1)
    expect(await metric("market_deep_history_build_seconds")).toBeGreaterThan(0)
    expect(res.body.count).toBeGreaterThan(10)
    // each row is the ticker's own row as of that day (GET /v2/tickers/{ticker}?asof= walks its history alone)
    for (const row of res.body.results.slice(0, 8)) {
      expect(row.rsi_14).toBeLessThan(45)
      const own = await api(server, key, `/v2/tickers/${encodeURIComponent(row.ticker)}?asof=${DATE}`)
      expect(own.status).toBe(200)
      for (const f of ["rsi_14", "sma_200", "obv", "price"])
        if (f in row) expect(row[f], `${row.ticker} ${f}`).toBe(own.body.data[f])
    }
    // the GET form, the history alias and explain read the same day
    const viaGet = await api(server, key, `/v2/scan?q=${encodeURIComponent("rsi_14 < 45")}&asof=${DATE}&limit=100`)
    expect(viaGet.status).toBe(200)
    expect(viaGet.body.total).toBe(res.body.total)
    const history = await post({ q: "rsi_14 < 45", asof: DATE, limit: 100 }, key, "/v2/scan/history")
    expect(history.status).toBe(200)
    expect(history.body.total).toBe(res.body.total)
    const ticker = res.body.results[0].ticker as string
    const explain = await post({ q: "rsi_14 < 45", ticker, asof: DATE }, key, "/v2/scan/explain")
    expect(explain.status).toBe(200)
    expect(explain.body.matched).toBe(true)
  }, 200_000)

  it("scopes to the system universes' membership of that month, and lists signal matches", async () => {
    const key = await newKey()
    const top10 = await post({ q: "price > 0", asof: DATE, universe: "top_10", limit: 100 }, key)
    expect(top10.status).toBe(200)
    expect(top10.body._meta.scope).toEqual({ universe: "top_10", size: 10 })
    expect(top10.body.total).toBeGreaterThan(0)
    expect(top10.body.total).toBeLessThanOrEqual(10)
    const top100 = await post({ q: "price > 0", asof: DATE, universe: "top_100", limit: 100 }, key)
    expect(top100.body._meta.scope).toEqual({ universe: "top_100", size: 100 })
    // the month's ten most traded are among its hundred
    const hundred = new Set(top100.body.results.map((r: any) => r.ticker))
    for (const r of top10.body.results) expect(hundred.has(r.ticker)).toBe(true)
    // another month ranks anew
    const later = await post({ q: "price > 0", asof: "2016-02-10", universe: "top_100", limit: 100 }, key)
    expect(later.status).toBe(200)
    expect(later.body.results.map((r: any) => r.ticker).sort()).not.toEqual([...hundred].sort())

    const matches = await api(server, key, `/v2/signals/rsi_14?condition=${encodeURIComponent("< 30")}&asof=${DATE}`)
    expect(matches.status).toBe(200)
    expect(matches.body.count).toBeGreaterThan(0)
    for (const m of matches.body.results) expect(m.value).toBeLessThan(30)
    // before 2003 no ticker has a state: empty, not refused
    const early = await post({ q: "price > 0", asof: "2002-12-31" }, key)
    expect(early.status).toBe(200)
    expect(early.body.results).toEqual([])
  }, 120_000)

  it("backtests a screen over years before the window: each period the as-of scans and ticker rows of its days", async () => {
    const key = await newKey()
    const body = {
      q: "rsi_14 < 55",
      universe: "top_10",
      from: "2008-01-02",
      to: "2008-06-30",
      every: "1w",
      hold: "5d",
      order: "rsi_14",
      dir: "asc",
      limit: 3
    }
    const res = await post(body, key, "/v2/scan/backtest")
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const periods = res.body.periods as Array<any>
    expect(periods.length).toBeGreaterThan(20)
    const priceOn = async (ticker: string, date: string) =>
      (await api(server, key, `/v2/tickers/${encodeURIComponent(ticker)}?asof=${date}`)).body.data.price as number
    /** each sampled period: the as-of scan of its day bought, held to its exit as the ticker rows of that day price it */
    const expectOfAsOfScans = async (b: Record<string, unknown>, sample: Array<any>) => {
      for (const p of sample) {
        const scan = await post(
          { q: b.q, universe: b.universe, asof: p.date, order: b.order, dir: b.dir, limit: b.limit },
          key
        )
        expect(scan.status).toBe(200)
        const held: Array<number> = []
        for (const row of scan.body.results) held.push((await priceOn(row.ticker, p.exit_date)) / row.price - 1)
        expect(p.count, p.date).toBe(held.length)
        if (held.length > 0)
          expect(Math.abs(p.return - held.reduce((x, y) => x + y, 0) / held.length)).toBeLessThan(1e-9)
        const spy = (await priceOn("SPY", p.exit_date)) / (await priceOn("SPY", p.date)) - 1
        expect(Math.abs(p.benchmark_return - spy)).toBeLessThan(1e-9)
      }
    }
    await expectOfAsOfScans(
      body,
      periods.filter((_, i) => i % 5 === 0)
    )
    // the whole market over sixteen years before the window, read a stretch of years at a time
    const wide = { ...body, universe: undefined, from: "2005-01-03", to: "2020-12-31" }
    const big = await post(wide, key, "/v2/scan/backtest")
    expect(big.status, JSON.stringify(big.body)).toBe(200)
    expect(big.body.periods.length).toBeGreaterThan(830)
    await expectOfAsOfScans(
      wide,
      (big.body.periods as Array<any>).filter((_, i) => i % 97 === 3)
    )
  }, 180_000)

  it("replays a subscription day by day over a month before the window as the as-of scans see it", async () => {
    const key = await newKey()
    const q = "rsi_14 < 45"
    const body = { q, universe: "top_10", fire_on: "both", from: "2009-02-02", to: "2009-03-13" }
    const res = await post(body, key, "/v2/webhooks/dry-run")
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const expected: Array<{ at: string; type: string; tickers: Array<string> }> = []
    // the entries (the signals fire_on "both" measures), and the sessions (the month's, and a week past it)
    const entries: Array<{ ticker: string; day: string; price: number }> = []
    const sessions: Array<string> = []
    let inside = new Set<string>()
    for (let t = Date.parse(body.from); t <= Date.parse(body.to) + 7 * 86_400_000; t += 86_400_000) {
      const day = new Date(t).toISOString().slice(0, 10)
      const all = await post({ q: "price > 0", universe: "top_10", asof: day, limit: 100 }, key)
      if (!all.body.results.some((r: any) => r.date === day)) continue
      sessions.push(day)
      if (day > body.to) continue
      const scan = await post({ q, universe: "top_10", asof: day, limit: 100 }, key)
      expect(scan.status).toBe(200)
      const now = new Set<string>(scan.body.results.map((r: any) => r.ticker))
      const entered = [...now].filter((x) => !inside.has(x)).sort()
      const left = [...inside].filter((x) => !now.has(x)).sort()
      if (entered.length > 0) expected.push({ at: day, type: "webhook.fired", tickers: entered })
      if (left.length > 0) expected.push({ at: day, type: "webhook.cleared", tickers: left })
      for (const ticker of entered)
        entries.push({ ticker, day, price: scan.body.results.find((r: any) => r.ticker === ticker).price })
      inside = now
    }
    expect(expected.length).toBeGreaterThan(2)
    expect(res.body.events.map(({ at, type, tickers }: any) => ({ at, type, tickers }))).toEqual(expected)
    // the 1-day forward returns: each entry's price to its close the next session, read as-of that day
    const returns: Array<number> = []
    for (const e of entries) {
      const next = sessions[sessions.indexOf(e.day) + 1]!
      const row = (await api(server, key, `/v2/tickers/${e.ticker}?asof=${next}`)).body.data
      expect(row.date, `${e.ticker} ${next}`).toBe(next)
      returns.push(row.price / e.price - 1)
    }
    const fr = res.body.forward_returns["1d"]
    expect(fr.n).toBe(returns.length)
    // (the answer gives returns to 6 decimals)
    expect(fr.mean).toBeCloseTo(returns.reduce((a, b) => a + b, 0) / returns.length, 6)
  }, 180_000)

  it("keeps the history in the data directory: the next start reads it at once", async () => {
    // another start's data directory holding the built history (its database a new one)
    const dataDir = newDataDir({})
    cpSync(join(server.dataDir, "history"), join(dataDir, "history"), { recursive: true })
    expect(readdirSync(join(dataDir, "history")).filter((f) => f.endsWith(".bin"))).toHaveLength(1)
    const next = await startService({ REFRESH_INTERVAL: "1h", DATA_DIR: dataDir }, SAMPLE)
    try {
      await waitReady(next, 120_000)
      const key = (await admin(next, "POST", "/admin/accounts", { plan: "scale" })).body.api_key
      const res = await post({ q: "price > 0", asof: "2007-03-15", limit: 5 }, key, "/v2/scan", next)
      expect(res.status).toBe(200)
      expect(res.body.total).toBeGreaterThan(100)
    } finally {
      await next.stop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 200_000)
})
