import { beforeAll, describe, expect, it } from "vitest"
import { lastClosedTradingDate, previousTradingDay } from "../../../src/market/calendar.js"
import { CATALOG } from "../../../src/market/catalog.js"
import { ALL } from "../../support/inProcess.js"
import { admin, api } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"

const expectError = (res: { status: number; body: any }, status: number, code: string, mentions?: string) => {
  expect(res.status).toBe(status)
  expect(res.body.error.code).toBe(code)
  expect(res.body.error.request_id).toMatch(/^req_/)
  if (mentions !== undefined) expect(res.body.error.message).toContain(mentions)
}

const SLIM = ["ticker", "name", "asset_type", "exchange", "market_cap"]
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** market_cap descending, nulls last, ticker ascending among equals. */
const expectCapOrder = (rows: ReadonlyArray<any>) => {
  for (let k = 1; k < rows.length; k++) {
    const a = rows[k - 1]
    const b = rows[k]
    if (a.market_cap === null) {
      expect(b.market_cap).toBeNull()
      expect(a.ticker < b.ticker).toBe(true)
    } else if (b.market_cap !== null) {
      expect(a.market_cap).toBeGreaterThanOrEqual(b.market_cap)
      if (a.market_cap === b.market_cap) expect(a.ticker < b.ticker).toBe(true)
    }
  }
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** A Saturday about four weeks back, well inside the history. */
const pastSaturday = (): string => {
  const d = new Date(Date.now() - 28 * 86_400_000)
  d.setUTCDate(d.getUTCDate() + ((6 - d.getUTCDay() + 7) % 7))
  return isoDay(d.getTime())
}

describe("tickers over HTTP", () => {
  // a long refresh interval keeps one snapshot for the whole file, so walks compare exactly
  const server = serveForSuite({ REFRESH_INTERVAL: "1h" }, ALL)
  let key: string
  const get = (path: string, k: string | undefined = key) => api(server, k, path)

  /** Every row of a list walk, following next_cursor to the end. */
  const walk = async (query: string, limit: number) => {
    const rows: Array<any> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const c: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`
      const res = await get(`/v2/tickers?${query}${query === "" ? "" : "&"}limit=${limit}${c}`)
      expect(res.status).toBe(200)
      expect(res.body.count).toBe(res.body.results.length)
      expect(res.body.results.length).toBeLessThanOrEqual(limit)
      if (res.body.next_cursor !== null) expect(res.body.results.length).toBe(limit)
      rows.push(...res.body.results)
      cursor = res.body.next_cursor
      pages++
    } while (cursor !== null && pages < 200)
    return { rows, pages }
  }

  beforeAll(async () => {
    key = (await admin(server, "POST", "/admin/accounts", { plan: "pro" })).body.api_key
  }, 180_000)

  it("needs a key on every endpoint", async () => {
    for (const path of [
      "/v2/tickers",
      "/v2/tickers?tickers=AAPL",
      "/v2/tickers/AAPL",
      "/v2/tickers/AAPL?asof=2026-01-05",
      "/v2/tickers/AAPL/history?asof=2026-01-05"
    ]) {
      expectError(await api(server, undefined, path), 401, "unauthenticated")
      expectError(await api(server, "vigil_test_nope", path), 401, "unauthenticated")
    }
  })

  describe("GET /v2/tickers (list)", () => {
    it("defaults to 50 slim rows in ticker order with a cursor", async () => {
      const res = await get("/v2/tickers")
      expect(res.status).toBe(200)
      expect(Object.keys(res.body).sort()).toEqual(["as_of", "count", "next_cursor", "results"])
      expect(res.body.as_of).toMatch(ISO)
      expect(res.body.count).toBe(50)
      expect(typeof res.body.next_cursor).toBe("string")
      for (const row of res.body.results) expect(Object.keys(row)).toEqual(SLIM)
      const tickers = res.body.results.map((r: any) => r.ticker)
      expect(tickers).toEqual([...tickers].sort())
      expect(new Set(tickers).size).toBe(50)
    })

    it("walks every ticker once, in order, with the largest page size", async () => {
      const { rows, pages } = await walk("", 1000)
      expect(rows.length).toBeGreaterThan(13_000)
      expect(pages).toBe(Math.ceil(rows.length / 1000))
      for (let k = 1; k < rows.length; k++) expect(rows[k - 1].ticker < rows[k].ticker).toBe(true)
      const aapl = rows.find((r) => r.ticker === "AAPL")
      expect(aapl).toMatchObject({ name: "Apple Inc.", asset_type: "CS", exchange: "NASDAQ" })
    })

    it("pages match one big page with no duplicates and no gaps (ticker order)", async () => {
      const big = await get("/v2/tickers?asset_type=crypto&limit=1000")
      expect(big.body.next_cursor).toBeNull()
      expect(big.body.count).toBe(100)
      for (const limit of [1, 7, 100]) {
        const { rows, pages } = await walk("asset_type=crypto", limit)
        expect(rows).toEqual(big.body.results)
        expect(pages).toBe(Math.ceil(100 / limit))
      }
    })

    it("pages match one big page in the market_cap order (search, min_market_cap)", async () => {
      for (const query of ["search=bank", "min_market_cap=100000000000", "search=in&exchange=NYSE&sector=Financials"]) {
        const big = await get(`/v2/tickers?${query}&limit=1000`)
        expect(big.status).toBe(200)
        expect(big.body.next_cursor).toBeNull()
        expect(big.body.count).toBeGreaterThan(10)
        expectCapOrder(big.body.results)
        const { rows } = await walk(query, 9)
        expect(rows).toEqual(big.body.results)
      }
    })

    it("search: case-insensitive over ticker and name, by market_cap descending, nulls last", async () => {
      const lower = await get("/v2/tickers?search=apple&limit=1000")
      const upper = await get("/v2/tickers?search=APPLE&limit=1000")
      expect(lower.status).toBe(200)
      expect(upper.body.results).toEqual(lower.body.results)
      expect(lower.body.results[0].ticker).toBe("AAPL")
      for (const r of lower.body.results) expect(`${r.ticker} ${r.name}`.toLowerCase()).toContain("apple")
      expectCapOrder(lower.body.results)

      // a ticker-only match: "brk.b" is not in Berkshire's name
      const byTicker = await get("/v2/tickers?search=brk.b")
      expect(byTicker.body.results.map((r: any) => r.ticker)).toContain("BRK.B")

      // a broad search holds the whole order, nulls (if any) at the end
      const { rows } = await walk("search=e", 1000)
      expect(rows.length).toBeGreaterThan(5000)
      expectCapOrder(rows)
      const firstNull = rows.findIndex((r) => r.market_cap === null)
      if (firstNull >= 0) for (const r of rows.slice(firstNull)) expect(r.market_cap).toBeNull()
      expect(rows[0].market_cap).toBe(Math.max(...rows.filter((r) => r.market_cap !== null).map((r) => r.market_cap)))
    })

    it("asset_type: equity, crypto, CS, ETF case-insensitively; anything else is 400", async () => {
      const equity = await walk("asset_type=equity", 1000)
      expect(equity.rows.length).toBeGreaterThan(12_000)
      expect(new Set(equity.rows.map((r) => r.asset_type))).toEqual(new Set(["CS", "ETF"]))
      const crypto = await get("/v2/tickers?asset_type=CRYPTO&limit=1000")
      expect(crypto.body.count).toBe(100)
      for (const r of crypto.body.results) expect(r.asset_type).toBe("CRYPTO")
      for (const v of ["etf", "ETF", "Etf"]) {
        const res = await get(`/v2/tickers?asset_type=${v}&limit=20`)
        expect(res.body.count).toBe(20)
        for (const r of res.body.results) expect(r.asset_type).toBe("ETF")
      }
      const cs = await get("/v2/tickers?asset_type=cs&limit=20")
      for (const r of cs.body.results) expect(r.asset_type).toBe("CS")
      expectError(await get("/v2/tickers?asset_type=bond"), 400, "bad_request", "asset_type")
    })

    it("exchange, sector and min_market_cap filter; bad values are 400", async () => {
      const nyse = await get("/v2/tickers?exchange=NYSE&limit=200")
      expect(nyse.body.count).toBe(200)
      for (const r of nyse.body.results) expect(r.exchange).toBe("NYSE")
      expectError(await get("/v2/tickers?exchange=MOON"), 400, "bad_request", "exchange")

      const fin = await get("/v2/tickers?sector=Financials&limit=100")
      expect(fin.body.count).toBe(100)
      const sectors = await get(
        `/v2/tickers?tickers=${fin.body.results
          .slice(0, 50)
          .map((r: any) => r.ticker)
          .join(",")}`
      )
      for (const r of sectors.body.results) expect(r.sector).toBe("Financials")
      expect((await get("/v2/tickers?sector=financials")).body.count).toBe(0)
      expectError(await get("/v2/tickers?sector="), 400, "bad_request", "sector")

      const big = await get("/v2/tickers?min_market_cap=500000000000&limit=1000")
      expect(big.body.count).toBeGreaterThan(0)
      for (const r of big.body.results) expect(r.market_cap).toBeGreaterThanOrEqual(500_000_000_000)
      expectCapOrder(big.body.results)
      expect(big.body.results.map((r: any) => r.ticker)).toContain("AAPL")
      const all = await get("/v2/tickers?min_market_cap=0&limit=5")
      expect(all.body.results[0].market_cap).toBeGreaterThan(1e12)
      for (const v of ["abc", "-5", "", "NaN", "Infinity"]) {
        expectError(await get(`/v2/tickers?min_market_cap=${v}`), 400, "bad_request", "min_market_cap")
      }
    })

    it("limit: 1 to 1000, default 50; search must not be empty", async () => {
      expect((await get("/v2/tickers?limit=1")).body.count).toBe(1)
      expect((await get("/v2/tickers?limit=1000")).body.count).toBe(1000)
      for (const v of ["0", "1001", "-1", "2.5", "abc"]) {
        expectError(await get(`/v2/tickers?limit=${v}`), 400, "bad_request", "limit")
      }
      expectError(await get("/v2/tickers?search=%20"), 400, "bad_request", "search")
    })

    it("refuses a tampered cursor, a foreign one, and one passed with changed parameters", async () => {
      const first = await get("/v2/tickers?asset_type=equity&limit=10")
      const cursor: string = first.body.next_cursor
      const ok = await get(`/v2/tickers?asset_type=equity&limit=10&cursor=${cursor}`)
      expect(ok.status).toBe(200)
      expect(ok.body.results[0].ticker > first.body.results[9].ticker).toBe(true)

      const flipped = `${cursor.slice(0, 10)}${cursor[10] === "A" ? "B" : "A"}${cursor.slice(11)}`
      expectError(await get(`/v2/tickers?asset_type=equity&limit=10&cursor=${flipped}`), 400, "bad_request", "cursor")
      expectError(await get("/v2/tickers?asset_type=equity&limit=10&cursor=not!a*cursor"), 400, "bad_request")
      expectError(await get("/v2/tickers?asset_type=equity&limit=10&cursor=abcd"), 400, "bad_request")

      for (const changed of [
        "asset_type=equity&limit=11",
        "asset_type=crypto&limit=10",
        "asset_type=equity&limit=10&exchange=NYSE",
        "asset_type=equity&limit=10&search=a",
        "asset_type=equity&limit=10&sector=Financials",
        "asset_type=equity&limit=10&min_market_cap=1",
        "limit=10"
      ]) {
        expectError(await get(`/v2/tickers?${changed}&cursor=${cursor}`), 400, "bad_request", "cursor")
      }
      const other = (await admin(server, "POST", "/admin/accounts", { plan: "pro" })).body.api_key
      expectError(await get(`/v2/tickers?asset_type=equity&limit=10&cursor=${cursor}`, other), 400, "bad_request")
    })

    it("refuses unknown query parameters, naming them", async () => {
      expectError(await get("/v2/tickers?foo=1"), 400, "bad_request", "foo")
      expectError(await get("/v2/tickers?order=market_cap"), 400, "bad_request", "order")
    })
  })

  describe("GET /v2/tickers?tickers= (bulk)", () => {
    it("returns full rows in request order, misses marked _not_found, and requested", async () => {
      const res = await get("/v2/tickers?tickers=brk-b,%20ZZZZ9,aapl,btc-usd,BRK/B")
      expect(res.status).toBe(200)
      expect(res.body.requested).toEqual(["BRK-B", "ZZZZ9", "AAPL", "BTC-USD", "BRK/B"])
      expect(res.body.count).toBe(5)
      expect(res.body.next_cursor).toBeNull()
      expect(res.body.as_of).toMatch(ISO)
      const [brk, miss, aapl, btc, brk2] = res.body.results
      expect(brk.ticker).toBe("BRK.B")
      expect(brk2).toEqual(brk)
      expect(miss).toEqual({ ticker: "ZZZZ9", _not_found: true })
      expect(aapl.ticker).toBe("AAPL")
      expect(btc).toMatchObject({ ticker: "BTC-USD", asset_type: "CRYPTO" })
      const columns = CATALOG.map((c) => c.name)
      expect(Object.keys(aapl)).toEqual(columns)
      const single = await get("/v2/tickers/AAPL")
      expect(aapl).toEqual(single.body.data)
    })

    it("ignores paging parameters and refuses bad lists", async () => {
      const paged = await get("/v2/tickers?tickers=AAPL,MSFT,NVDA&limit=1&cursor=garbage")
      expect(paged.status).toBe(200)
      expect(paged.body.results.map((r: any) => r.ticker)).toEqual(["AAPL", "MSFT", "NVDA"])

      const fifty = (await get("/v2/tickers?limit=50")).body.results.map((r: any) => r.ticker)
      const ok = await get(`/v2/tickers?tickers=${encodeURIComponent(fifty.join(","))}`)
      expect(ok.status).toBe(200)
      expect(ok.body.count).toBe(50)
      expect(ok.body.results.map((r: any) => r.ticker)).toEqual(fifty)
      const fiftyOne = [...fifty, "ZZZZ"].join(",")
      expectError(await get(`/v2/tickers?tickers=${encodeURIComponent(fiftyOne)}`), 400, "bad_request", "50")

      expectError(await get("/v2/tickers?tickers=AAPL,,MSFT"), 400, "bad_request", "empty")
      expectError(await get("/v2/tickers?tickers="), 400, "bad_request", "empty")
      expectError(await get("/v2/tickers?tickers=AAPL,a!b"), 400, "bad_request", "a!b")
      expectError(await get("/v2/tickers?tickers=AAPL&search=apple"), 400, "bad_request", "search")
    })
  })

  describe("GET /v2/tickers/{ticker}", () => {
    it("answers the live row under any symbol convention", async () => {
      const rows = await Promise.all(
        ["BRK.B", "brk-b", "BRK%2FB", "brk.b", "$BRK.B"].map((s) => get(`/v2/tickers/${s}`))
      )
      for (const res of rows) {
        expect(res.status).toBe(200)
        expect(Object.keys(res.body)).toEqual(["as_of", "ticker", "data"])
        expect(res.body.ticker).toBe("BRK.B")
        expect(res.body.as_of).toMatch(ISO)
        expect(res.body.data).toEqual(rows[0].body.data)
      }
      const data = rows[0].body.data
      expect(Object.keys(data)).toEqual(CATALOG.map((c) => c.name))
      expect(data).toMatchObject({ ticker: "BRK.B", asset_type: "CS", exchange: "NYSE" })
      expect(typeof data.price).toBe("number")
      expect(typeof data.above_sma_50).toBe("boolean")
      const crypto = await get("/v2/tickers/btc/usd")
      expect(crypto.status).toBe(404)
      const pair = await get("/v2/tickers/btc-usd")
      expect(pair.body).toMatchObject({ ticker: "BTC-USD", data: { asset_type: "CRYPTO" } })
      const sol = await get("/v2/tickers/sol-usd")
      expect(sol.body).toMatchObject({ ticker: "SOL", data: { asset_type: "CRYPTO" } })
    })

    it("as of a Saturday gives Friday's daily row with _meta and current static fields", async () => {
      const sat = pastSaturday()
      const fri = previousTradingDay(sat)
      const live = (await get("/v2/tickers/AAPL")).body.data
      for (const asof of [sat, `${sat}T23:59:59Z`, `${sat}T08:00:00.000+02:00`]) {
        const res = await get(`/v2/tickers/aapl?asof=${encodeURIComponent(asof)}`)
        expect(res.status).toBe(200)
        expect(res.body.as_of).toBe(sat)
        expect(res.body.ticker).toBe("AAPL")
        expect(res.body._meta).toEqual({
          resolution: "daily",
          frozen_fields: ["name", "sector", "industry", "asset_type", "exchange"]
        })
        expect(res.body.data.date).toBe(fri)
        expect(Object.keys(res.body.data)).toEqual([...CATALOG.map((c) => c.name), "date"])
        for (const f of ["name", "sector", "industry", "asset_type", "exchange", "country"]) {
          expect(res.body.data[f]).toBe(live[f])
        }
      }
      // crypto trades on Saturdays
      const btc = await get(`/v2/tickers/BTC-USD?asof=${sat}`)
      expect(btc.body.data.date).toBe(sat)
      // a trading day reads its own close; the row differs from a week earlier
      const friday = await get(`/v2/tickers/AAPL?asof=${fri}`)
      expect(friday.body.data.date).toBe(fri)
      const weekBefore = await get(`/v2/tickers/AAPL?asof=${previousTradingDay(previousTradingDay(fri))}`)
      expect(weekBefore.body.data.price).not.toBe(friday.body.data.price)
    })

    it("400 for a malformed ticker or asof, 404 untracked or before any state, 400 unknown parameter", async () => {
      expectError(await get("/v2/tickers/a!b"), 400, "bad_request", "ticker")
      expectError(await get(`/v2/tickers/${"A".repeat(20)}`), 400, "bad_request", "ticker")
      expectError(await get("/v2/tickers/ZZZZ9"), 404, "not_found", "ZZZZ9")
      for (const asof of ["2026-13-01", "yesterday", "2026-02-30", "20260105"]) {
        expectError(await get(`/v2/tickers/AAPL?asof=${asof}`), 400, "bad_request", "asof")
      }
      expectError(await get("/v2/tickers/AAPL?asof=1995-01-03"), 404, "not_found", "1995-01-03")
      expectError(await get("/v2/tickers/ZZZZ9?asof=2026-01-05"), 404, "not_found")
      expectError(await get("/v2/tickers/AAPL?as_of=2026-01-05"), 400, "bad_request", "as_of")
    })
  })

  describe("GET /v2/tickers/{ticker}/history", () => {
    it("gives the most recent daily row on or before asof; a future date gives the latest row", async () => {
      const sat = pastSaturday()
      const res = await get(`/v2/tickers/brk-b/history?asof=${sat}T15:30:00Z`)
      expect(res.status).toBe(200)
      expect(Object.keys(res.body)).toEqual(["as_of", "ticker", "_meta", "data"])
      expect(res.body).toMatchObject({
        as_of: sat,
        ticker: "BRK.B",
        _meta: { resolution: "daily", frozen_fields: ["name", "sector", "industry", "asset_type", "exchange"] }
      })
      expect(res.body.data.date).toBe(previousTradingDay(sat))
      const same = await get(`/v2/tickers/BRK.B?asof=${sat}`)
      expect(same.body.data).toEqual(res.body.data)

      const future = await get("/v2/tickers/AAPL/history?asof=2099-12-31")
      expect(future.status).toBe(200)
      expect(future.body.as_of).toBe("2099-12-31")
      const latest = lastClosedTradingDate(Date.now())
      expect([latest, previousTradingDay(latest)]).toContain(future.body.data.date)
      const today = await get(`/v2/tickers/AAPL/history?asof=${isoDay(Date.now() + 86_400_000)}`)
      expect(today.body.data).toEqual(future.body.data)
      const btc = await get("/v2/tickers/BTC-USD/history?asof=2099-12-31")
      expect(btc.body.data.date <= isoDay(Date.now())).toBe(true)
      expect(btc.body.data.date >= isoDay(Date.now() - 2 * 86_400_000)).toBe(true)
    })

    it("applies the plan's history window: Hobby today only, Pro 5 years, Scale everything", async () => {
      const hobby = (await admin(server, "POST", "/admin/accounts", { plan: "hobby" })).body.api_key
      const lastWeek = isoDay(Date.now() - 7 * 86_400_000)
      const res = await get(`/v2/tickers/AAPL/history?asof=${lastWeek}`, hobby)
      expectError(res, 400, "history_window_exceeded", "hobby")
      expect(res.body.error.max_history_days).toBe(0)
      expect(res.body.error.earliest_allowed_from).toBe(isoDay(Date.now()))
      expect((await get(`/v2/tickers/AAPL/history?asof=${isoDay(Date.now())}`, hobby)).status).toBe(200)
      // the snapshot read (`GET /v2/tickers/{ticker}?asof=`) is replayable on every plan
      expect((await get(`/v2/tickers/AAPL?asof=${lastWeek}`, hobby)).status).toBe(200)
      expect((await get(`/v2/tickers/AAPL/history?asof=${lastWeek}`)).status).toBe(200)
      const old = await get("/v2/tickers/AAPL/history?asof=1995-01-03")
      expectError(old, 400, "history_window_exceeded")
      expect(old.body.error.max_history_days).toBe(5 * 365)
    })

    it("400 for a missing or malformed asof, 404 untracked or before any state", async () => {
      expectError(await get("/v2/tickers/AAPL/history"), 400, "bad_request", "asof")
      expectError(await get("/v2/tickers/AAPL/history?asof=2026-1-5"), 400, "bad_request", "asof")
      const scale = (await admin(server, "POST", "/admin/accounts", { plan: "scale" })).body.api_key
      expectError(await get("/v2/tickers/AAPL/history?asof=1995-01-03", scale), 404, "not_found")
      expectError(await get("/v2/tickers/ZZZZ9/history?asof=2026-01-05"), 404, "not_found")
      expectError(await get("/v2/tickers/a!b/history?asof=2026-01-05"), 400, "bad_request", "ticker")
      expectError(await get("/v2/tickers/AAPL/history?asof=2026-01-05&x=1"), 400, "bad_request", "x")
    })

    it("reaches back to 2003 on Scale: a row in 2010 and a 1d series across years (issue 17)", async () => {
      const scale = (await admin(server, "POST", "/admin/accounts", { plan: "scale" })).body.api_key
      const row = await get("/v2/tickers/AAPL/history?asof=2010-06-05", scale)
      expect(row.status).toBe(200)
      // a Saturday: Friday's close
      expect(row.body.data.date).toBe("2010-06-04")
      for (const c of ["price", "sma_200", "rsi_14", "ema_50", "high_52w"])
        expect(typeof row.body.data[c], c).toBe("number")
      // the same row through the snapshot read
      const same = await get("/v2/tickers/AAPL?asof=2010-06-04", scale)
      expect(same.body.data).toEqual(row.body.data)
      const first = await get("/v2/tickers/AAPL/history?asof=2003-01-02", scale)
      expect(first.body.data.date).toBe("2003-01-02")
      expect(first.body.data.sma_200).toBeNull()
      expectError(await get("/v2/tickers/AAPL/history?asof=2002-12-31", scale), 404, "not_found")
      // a 1d series from 2008 into the window: one point per session, the 2010 one equal to the row
      const series = await get("/v2/signals/rsi_14/AAPL/history/1d?from=2010-06-01&to=2010-06-30", scale)
      expect(series.status).toBe(200)
      const bars: Array<{ t: string; v: number }> = series.body.bars
      expect(bars).toHaveLength(22)
      expect(bars.find((b) => b.t === "2010-06-04")?.v).toBe(row.body.data.rsi_14)
      const before = await get("/v2/signals/rsi_14/AAPL/history/1d?from=2002-06-01&to=2003-01-10", scale)
      expectError(before, 400, "history_window_exceeded", "before the data available")
      expect(before.body.error.earliest_allowed_from).toBe("2003-01-02")
    })

    it("gives each ticker's coverage: daily bars from 2003 or its listing year, minute bars for the minute tier", async () => {
      const aapl = await get("/v2/tickers/aapl/coverage")
      expect(aapl.status).toBe(200)
      expect(aapl.body.ticker).toBe("AAPL")
      expect(aapl.body.daily_from).toBe("2003-01-02")
      expect([lastClosedTradingDate(Date.now()), previousTradingDay(lastClosedTradingDate(Date.now()))]).toContain(
        aapl.body.daily_to
      )
      expect(aapl.body.minute_to >= aapl.body.daily_to).toBe(true)
      expect(aapl.body.minute_from < aapl.body.daily_to).toBe(true)
      const btc = await get("/v2/tickers/BTC-USD/coverage")
      expect(btc.body.daily_from).toMatch(/^20\d\d-01-01$/)
      // a small listing is not in the minute tier
      const list = await get("/v2/tickers?limit=1000&asset_type=CS")
      const small = list.body.results.filter((r: any) => r.market_cap !== null).at(-1)
      const other = await get(`/v2/tickers/${small.ticker}/coverage`)
      expect(other.status).toBe(200)
      expect(other.body.minute_from).toBeNull()
      expect(other.body.minute_to).toBeNull()
      expectError(await get("/v2/tickers/ZZZZ9/coverage"), 404, "not_found")
      expectError(await get("/v2/tickers/AAPL/coverage?asof=2020-01-01"), 400, "bad_request", "asof")
    })
  })
})
