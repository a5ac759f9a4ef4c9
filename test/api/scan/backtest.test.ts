/**
 * `POST /v2/scan/backtest` over HTTP: a backtest recomputed independently
 * from as-of scans (`POST /v2/scan` with `asof`) and ticker rows (`GET
 * /v2/tickers/{t}?asof=`) matches to 1e-9; every bad field is a 400 naming it,
 * `q` errors are the scan's; the plan's history window, universes, `limit` /
 * `order`, the benchmark, empty periods and the end of the data.
 */
import { describe, expect, it } from "vitest"
import { SAMPLE } from "../../support/inProcess.js"
import { admin, api, expectError } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"

const DAY = 86_400_000
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length

describe("screen backtests over HTTP", () => {
  const server = serveForSuite({ REFRESH_INTERVAL: "1h" }, SAMPLE)
  const newKey = async (plan: string) =>
    (await admin(server, "POST", "/admin/accounts", { plan })).body as { api_key: string; account_id: string }
  const post = (key: string, path: string, body: unknown) =>
    api(server, key, path, { method: "POST", body: JSON.stringify(body) })
  const backtest = (key: string, body: unknown) => post(key, "/v2/scan/backtest", body)
  const from = isoDay(Date.now() - 120 * DAY)
  const to = isoDay(Date.now() - 20 * DAY)
  const base = { q: "rsi_14 < 55", universe: "top_10", from, to, every: "1w", hold: "5d" }

  it("equals the as-of scans and ticker rows of each period, to 1e-9", async () => {
    const { api_key: key } = await newKey("scale")
    const body = { ...base, order: "rsi_14", dir: "asc", limit: 3 }
    const res = await backtest(key, body)
    expect(res.status).toBe(200)
    expect(res.body.query).toEqual({ ...body, benchmark: "SPY" })
    const periods = res.body.periods as Array<any>
    expect(periods.length).toBeGreaterThan(10)
    const priceOn = async (ticker: string, date: string) => {
      const row = await api(server, key, `/v2/tickers/${ticker}?asof=${date}`)
      expect(row.status).toBe(200)
      return row.body.data.price as number
    }
    const returns: Array<number | null> = []
    const benchmarks: Array<number> = []
    let previousWeek = ""
    for (const p of periods) {
      // rebalance days: weekdays from `from` to `to`, one a week; exits after them
      const day = new Date(`${p.date}T00:00:00Z`)
      expect([1, 2, 3, 4, 5]).toContain(day.getUTCDay())
      expect(p.date >= from && p.date <= to).toBe(true)
      const monday = isoDay(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY)
      expect(monday > previousWeek).toBe(true)
      previousWeek = monday
      expect(p.exit_date > p.date).toBe(true)

      const scan = await post(key, "/v2/scan", {
        q: body.q,
        universe: body.universe,
        asof: p.date,
        order: body.order,
        dir: body.dir,
        limit: body.limit
      })
      expect(scan.status).toBe(200)
      const held: Array<number> = []
      for (const row of scan.body.results) {
        if (!(row.price > 0)) continue
        held.push((await priceOn(row.ticker, p.exit_date)) / row.price - 1)
      }
      expect(p.count).toBe(held.length)
      if (held.length === 0) expect(p.return).toBeNull()
      else expect(Math.abs(p.return - mean(held))).toBeLessThan(1e-9)
      returns.push(held.length === 0 ? null : mean(held))
      const spy = (await priceOn("SPY", p.exit_date)) / (await priceOn("SPY", p.date)) - 1
      expect(Math.abs(p.benchmark_return - spy)).toBeLessThan(1e-9)
      benchmarks.push(spy)
    }
    const invested = returns.filter((r): r is number => r !== null)
    expect(invested.length).toBeGreaterThan(0)
    const s = res.body.summary
    const near = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-9)
    expect(s.periods).toBe(periods.length)
    near(s.mean_count, mean(periods.map((p) => p.count)))
    near(s.mean_return, mean(invested))
    near(s.benchmark_mean_return, mean(benchmarks))
    near(s.hit_rate, invested.filter((r) => r > 0).length / invested.length)
    near(s.cumulative_return, invested.reduce((e, r) => e * (1 + r), 1) - 1)
    near(s.benchmark_cumulative_return, benchmarks.reduce((e, r) => e * (1 + r), 1) - 1)
    const excess = returns.flatMap((r, i) => (r === null ? [] : [r - benchmarks[i]!]))
    near(s.excess_return, mean(excess))
    let equity = 1
    let peak = 1
    let drawdown = 0
    for (const r of invested) {
      equity *= 1 + r
      peak = Math.max(peak, equity)
      drawdown = Math.max(drawdown, 1 - equity / peak)
    }
    near(s.max_drawdown, drawdown)
  }, 180_000)

  it("ranks among each day's scope as the as-of scan does: the universe's members, or the whole market", async () => {
    const { api_key: key } = await newKey("scale")
    for (const body of [
      { q: "PCT_RANK(rsi_14) >= 0.5", universe: "top_10", from, to, every: "1w", hold: "5d" },
      { q: "RANK(day_change_pct) <= 7", from, to, every: "1w", hold: "5d" }
    ]) {
      const res = await backtest(key, body)
      expect(res.status).toBe(200)
      const periods = res.body.periods as Array<any>
      expect(periods.length).toBeGreaterThan(10)
      for (const p of periods.filter((_, i) => i % 4 === 0)) {
        const scan = await post(key, "/v2/scan", { q: body.q, universe: body.universe, asof: p.date, limit: 100 })
        expect(scan.status).toBe(200)
        const priced = (scan.body.results as Array<any>).filter((r) => r.price > 0)
        expect(priced.length).toBeGreaterThan(0)
        expect(p.count, `${body.q} on ${p.date}`).toBe(priced.length)
      }
    }
  }, 180_000)

  it("answers every bad field with a 400 naming it, and q errors as a scan gives them", async () => {
    const { api_key: key } = await newKey("scale")
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ q: undefined }, "q"],
      [{ q: "  " }, "q"],
      [{ from: undefined }, "from"],
      [{ from: "2026-13-01" }, "from"],
      [{ from: "2026-03-02T10:00:00Z" }, "from"],
      [{ to: undefined }, "to"],
      [{ to: "03/02/2026" }, "to"],
      [{ every: undefined }, "every"],
      [{ every: "2d" }, "every"],
      [{ hold: undefined }, "hold"],
      [{ hold: "5" }, "hold"],
      [{ hold: "0d" }, "hold"],
      [{ hold: "253d" }, "hold"],
      [{ benchmark: "NOPE_NOT_A_TICKER" }, "benchmark"],
      [{ order: "bogus" }, "order"],
      [{ dir: "up" }, "dir"],
      [{ limit: 0 }, "limit"],
      [{ limit: 1.5 }, "limit"],
      [{ limit: 1001 }, "limit"],
      [{ from: isoDay(Date.now() + 5 * DAY), to: isoDay(Date.now() + 9 * DAY) }, "from"],
      [{ from: to, to: from }, "to"],
      [{ from: "2026-02-30" }, "from"],
      [{ limit: "5" }, "limit"],
      [{ q: 5 }, "q"],
      [{ every: 1 }, "every"],
      [{ surprise: 1 }, "surprise"]
    ]
    for (const [change, field] of cases) {
      const res = await backtest(key, { ...base, ...change })
      expectError(res, 400, "bad_request")
      expect(res.body.error.message, JSON.stringify(change)).toContain(field)
    }
    for (const q of ["price >", "nope_column > 1", "price > 1; DROP TABLE x"]) {
      const res = await backtest(key, { ...base, q })
      const scan = await post(key, "/v2/scan", { q })
      expect(res.status).toBe(400)
      const { request_id: _a, ...mine } = res.body.error
      const { request_id: _b, ...theirs } = scan.body.error
      expect(mine).toEqual(theirs)
    }
  }, 120_000)

  it("applies the plan's history window and the data's coverage, as the history endpoints do", async () => {
    const hobby = await newKey("hobby")
    const refused = await backtest(hobby.api_key, base)
    expectError(refused, 400, "history_window_exceeded")
    expect(refused.body.error.max_history_days).toBe(0)
    const { api_key: pro } = await newKey("pro")
    const old = await backtest(pro, { ...base, from: "2019-01-02" })
    expectError(old, 400, "history_window_exceeded")
    expect(old.body.error.max_history_days).toBe(1825)
    const { api_key: scale } = await newKey("scale")
    // the data starts on 2003-01-02 (the years before the window: test/api/scan/deepAsOf.test.ts)
    const uncovered = await backtest(scale, { ...base, from: "2002-06-03" })
    expectError(uncovered, 400, "history_window_exceeded")
    expect(uncovered.body.error.message).toContain("data available")
    expect(uncovered.body.error.earliest_allowed_from).toBe("2003-01-02")
    expect((await backtest(pro, base)).status).toBe(200)
  }, 60_000)

  it("scopes to a universe's members of each day, buys the top limit in order, and holds the benchmark asked for", async () => {
    const { api_key: key } = await newKey("scale")
    expectError(await backtest(key, { ...base, universe: "nope_nope" }), 404, "universe_not_found")
    const created = await post(key, "/v2/universes", { id: "bt_pair", name: "pair", tickers: ["AAPL", "MSFT"] })
    expect(created.status).toBe(201)
    const pair = await backtest(key, { ...base, q: "price > 0", universe: "bt_pair" })
    expect(pair.status).toBe(200)
    for (const p of pair.body.periods) expect(p.count).toBe(2)
    const all = await backtest(key, { ...base, q: "price > 0" })
    for (const p of all.body.periods) expect(p.count).toBe(10)
    const top2 = await backtest(key, { ...base, q: "price > 0", order: "price", dir: "desc", limit: 2 })
    const low2 = await backtest(key, { ...base, q: "price > 0", order: "price", dir: "asc", limit: 2 })
    expect(top2.body.periods.every((p: any) => p.count === 2)).toBe(true)
    expect(top2.body.periods.map((p: any) => p.return)).not.toEqual(low2.body.periods.map((p: any) => p.return))
    const qqq = await backtest(key, { ...base, benchmark: "qqq" })
    expect(qqq.status).toBe(200)
    expect(qqq.body.query.benchmark).toBe("QQQ")
    const spy = await backtest(key, base)
    expect(qqq.body.periods.map((p: any) => p.return)).toEqual(spy.body.periods.map((p: any) => p.return))
    expect(qqq.body.periods.map((p: any) => p.benchmark_return)).not.toEqual(
      spy.body.periods.map((p: any) => p.benchmark_return)
    )
  }, 120_000)

  it("keeps empty periods as cash and leaves out the periods whose exit the data does not hold yet", async () => {
    const { api_key: key } = await newKey("scale")
    const empty = await backtest(key, { ...base, q: "price < 0", every: "1mo" })
    expect(empty.status).toBe(200)
    expect(empty.body.periods.length).toBeGreaterThan(0)
    for (const p of empty.body.periods) {
      expect(p.count).toBe(0)
      expect(p.return).toBeNull()
      expect(typeof p.benchmark_return).toBe("number")
    }
    expect(empty.body.summary).toMatchObject({
      invested_periods: 0,
      mean_count: 0,
      mean_return: null,
      hit_rate: null,
      excess_return: null,
      cumulative_return: 0,
      max_drawdown: 0
    })
    const recent = await backtest(key, {
      ...base,
      every: "1d",
      from: isoDay(Date.now() - 14 * DAY),
      to: isoDay(Date.now()),
      hold: "5d"
    })
    expect(recent.status).toBe(200)
    const { data_end: end, dropped_periods: dropped } = recent.body._meta
    expect(dropped).toBeGreaterThanOrEqual(4)
    for (const p of recent.body.periods) expect(p.exit_date <= end).toBe(true)
  }, 60_000)

  it("expands custom signals on Pro and refuses them below, as the scan does", async () => {
    const pro = await newKey("pro")
    const signal = await post(pro.api_key, "/v2/signals", { name: "bt_cheap", expr: "rsi_14 < 55" })
    expect(signal.status).toBe(201)
    const mine = await backtest(pro.api_key, { ...base, q: "bt_cheap" })
    expect(mine.status).toBe(200)
    const plain = await backtest(pro.api_key, base)
    expect(mine.body.periods).toEqual(plain.body.periods)
    await admin(server, "PATCH", `/admin/accounts/${pro.account_id}`, { plan: "hobby" })
    expectError(await backtest(pro.api_key, { ...base, q: "bt_cheap" }), 403, "custom_signals_tier_required")
  }, 60_000)
})
