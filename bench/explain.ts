/**
 * Issue 16, item 5: explain latency. The service as `npm start` runs it (a child process, fresh
 * data, the embedded store unless DATABASE_URL is set), one Scale account with a webhook of the
 * issue's example (`rsi_14 < 30`, `clear_q: rsi_14 > 40`, `fire_on: both`, `cooldown: 1d`) over
 * `top_100`, evaluated once. One client, requests one at a time, tickers drawn from the market:
 *
 * - `GET /v2/webhooks/{id}/explain?ticker=` (the goal: ≤ 5 ms),
 * - `GET /v2/webhooks/{id}` (the same store read, rendered: what of explain is the store's),
 * - `POST /v2/scan/explain` with the same `q` (live),
 * - the baseline in the same run: `GET /v2/tickers/{ticker}` (one row read through the same stack).
 *
 *   npm run bench:explain
 *   npm run bench:explain -- --requests=1000
 */
import { performance } from "node:perf_hooks"
import { Pool } from "undici"
import { admin, startServer, waitReady } from "../test/support/server.js"
import { benchArgs } from "./support/args.js"
import { quantile } from "./support/stats.js"

const args = benchArgs()
const REQUESTS = Number(args.get("requests") ?? 500)

const main = async () => {
  const server = await startServer({ REFRESH_INTERVAL: "1h" }, 300_000)
  try {
    await waitReady(server, 300_000)
    const created = await admin(server, "POST", "/admin/accounts", { plan: "scale" })
    const { account_id, api_key } = created.body as { account_id: string; api_key: string }
    await admin(server, "PATCH", `/admin/accounts/${account_id}`, {
      plan: "scale",
      rate_limit_per_minute: 100_000_000
    })
    const pool = new Pool(server.url, { connections: 1, pipelining: 1 })
    const request = async (method: string, path: string, body?: unknown) => {
      const r = await pool.request({
        method: method as "GET" | "POST",
        path,
        headers: { authorization: `Bearer ${api_key}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const text = await r.body.text()
      if (r.statusCode >= 300) throw new Error(`${path}: ${r.statusCode} ${text.slice(0, 200)}`)
      return JSON.parse(text)
    }
    const webhook = await request("POST", "/v2/webhooks", {
      q: "rsi_14 < 30",
      clear_q: "rsi_14 > 40",
      fire_on: "both",
      cooldown: "1d",
      universe: "top_100",
      channel: "in_app"
    })
    await admin(server, "POST", "/admin/refresh")
    const scan = await request("POST", "/v2/scan", { q: "price > 0", limit: 100, order: "volume_today" })
    const tickers: Array<string> = scan.results.map((r: { ticker: string }) => r.ticker)
    const pick = () => tickers[Math.floor(Math.random() * tickers.length)]!
    const kinds = {
      "GET /v2/webhooks/{id}/explain": (t: string) =>
        request("GET", `/v2/webhooks/${webhook.id}/explain?ticker=${encodeURIComponent(t)}`),
      "GET /v2/webhooks/{id} (its store read alone)": (_: string) => request("GET", `/v2/webhooks/${webhook.id}`),
      "POST /v2/scan/explain": (t: string) => request("POST", "/v2/scan/explain", { q: "rsi_14 < 30", ticker: t }),
      "GET /v2/tickers/{ticker} (baseline)": (t: string) => request("GET", `/v2/tickers/${encodeURIComponent(t)}`)
    }
    const times = new Map<string, Array<number>>(Object.keys(kinds).map((k) => [k, []]))
    // warm-up, then the kinds interleaved so the machine's noise falls on all of them alike
    for (const f of Object.values(kinds)) for (let i = 0; i < 50; i++) await f(pick())
    for (let i = 0; i < REQUESTS; i++) {
      for (const [name, f] of Object.entries(kinds)) {
        const t = pick()
        const a = performance.now()
        await f(t)
        times.get(name)!.push(performance.now() - a)
      }
    }
    const base = quantile(times.get("GET /v2/tickers/{ticker} (baseline)")!, 0.5)
    console.log(`${REQUESTS} requests each, one at a time, over ${tickers.length} tickers\n`)
    console.log("| Request | p50 | p99 | p50 ÷ baseline p50 |\n|---|---:|---:|---:|")
    for (const [name, xs] of times) {
      const p50 = quantile(xs, 0.5)
      console.log(
        `| ${name} | ${p50.toFixed(2)} ms | ${quantile(xs, 0.99).toFixed(2)} ms | ${(p50 / base).toFixed(2)} |`
      )
    }
    await pool.close()
  } finally {
    await server.stop()
  }
}

await main()
