/**
 * What one request costs the service, endpoint by endpoint: the service as `npm start` runs it
 * (embedded store, fresh data, the flag history left for first use), one enterprise key whose
 * per-minute limit is raised above the load, and `--connections` (32) keep-alive connections
 * sending one endpoint for `--seconds` (5, after 1 s of warm-up) at a time. Printed per
 * endpoint: requests/s, and the service's CPU per request on its main thread (the event loop:
 * HTTP, Effect, the handlers) and over all its threads (with the database thread and V8's
 * garbage-collector helpers), each also as a multiple of `GET /healthz` in the same run — the
 * layers a request passes through, priced one by one:
 *
 *   GET /healthz              the HTTP server, the router, the request middleware
 *   GET /v2/market/status     + authentication (key cache), the rate limiter, the log line
 *   GET /v2/account           + the account's document
 *   GET /v2/universes         + one read of the database
 *   GET /v2/webhooks/{id}     + two reads (the row and the evaluation ticks)
 *   POST /v2/webhooks         a create: validation, q compiled, one transaction
 *   GET /v2/tickers/AAPL      a repeated read the direct path answers from its answers cache
 *
 *   npm run bench:request-cost
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:request-cost  (PostgreSQL, a schema of its own)
 */
import { loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { Pool } from "undici"
import { admin, startServer, waitReady } from "../test/support/server.js"
import { benchArgs } from "./support/args.js"
import { withPgSchema } from "./support/pgSchema.js"
import { cpuSeconds, mainThreadCpuSeconds, quiesce } from "./support/process.js"

const args = benchArgs()
const CONNECTIONS = Number(args.get("connections") ?? 32)
const SECONDS = Number(args.get("seconds") ?? 5)

interface Probe {
  readonly label: string
  readonly method: "GET" | "POST"
  readonly path: string
  readonly body?: (i: number) => string
}

const run = async (env: Record<string, string>) => {
  const server = await startServer({ REFRESH_INTERVAL: "1h", ...env }, 300_000)
  try {
    await waitReady(server, 300_000)
    const pid = server.process.pid!
    const created = await admin(server, "POST", "/admin/accounts", { plan: "enterprise" })
    if (created.status !== 201) throw new Error(`create account: ${created.status}`)
    const { account_id, api_key } = created.body as { account_id: string; api_key: string }
    await admin(server, "PATCH", `/admin/accounts/${account_id}`, { plan: "enterprise", rate_limit_per_minute: 1e8 })
    const headers = { authorization: `Bearer ${api_key}`, "content-type": "application/json" }
    const pool = new Pool(server.url, { connections: CONNECTIONS })
    const first = await pool.request({
      method: "POST",
      path: "/v2/webhooks",
      headers,
      body: JSON.stringify({ q: "price > 100", channel: "in_app", name: "probe" })
    })
    const webhook = (await first.body.json()) as { id: string }
    await quiesce(pid)

    const probes: ReadonlyArray<Probe> = [
      { label: "GET /healthz", method: "GET", path: "/healthz" },
      { label: "GET /v2/market/status", method: "GET", path: "/v2/market/status" },
      { label: "GET /v2/account", method: "GET", path: "/v2/account" },
      { label: "GET /v2/universes", method: "GET", path: "/v2/universes" },
      { label: "GET /v2/webhooks/{id}", method: "GET", path: `/v2/webhooks/${webhook.id}` },
      {
        label: "POST /v2/webhooks",
        method: "POST",
        path: "/v2/webhooks",
        body: (i) => JSON.stringify({ q: `price > ${100 + (i % 500)}`, channel: "in_app", name: `bench ${i}` })
      },
      { label: "GET /v2/tickers/AAPL", method: "GET", path: "/v2/tickers/AAPL" }
    ]

    let sent = 0
    const load = async (probe: Probe, seconds: number) => {
      let n = 0
      const until = performance.now() + seconds * 1000
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (performance.now() < until) {
            const res = await pool.request({
              method: probe.method,
              path: probe.path,
              headers,
              ...(probe.body === undefined ? {} : { body: probe.body(sent++) })
            })
            await res.body.dump()
            if (res.statusCode >= 300) throw new Error(`${probe.label}: ${res.statusCode}`)
            n++
          }
        })
      )
      return n
    }

    const rows: Array<{ label: string; rate: number; main: number; all: number }> = []
    for (const probe of probes) {
      await load(probe, 1)
      const main0 = mainThreadCpuSeconds(pid)
      const all0 = cpuSeconds(pid)
      const n = await load(probe, SECONDS)
      rows.push({
        label: probe.label,
        rate: n / SECONDS,
        main: ((mainThreadCpuSeconds(pid) - main0) * 1000) / n,
        all: ((cpuSeconds(pid) - all0) * 1000) / n
      })
    }
    await pool.close()
    const base = rows[0]!
    console.log(
      `| endpoint | requests/s | main thread ms/request | × /healthz | all threads ms/request | × /healthz |\n|---|---:|---:|---:|---:|---:|`
    )
    for (const r of rows) {
      console.log(
        `| ${r.label} | ${Math.round(r.rate).toLocaleString("en-US")} | ${r.main.toFixed(3)} | ${(r.main / base.main).toFixed(1)} | ${r.all.toFixed(3)} | ${(r.all / base.all).toFixed(1)} |`
      )
    }
  } finally {
    await server.stop()
  }
}

console.log(
  `bench:request-cost: ${CONNECTIONS} connections, ${SECONDS} s per endpoint after 1 s of warm-up; node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`
)
console.log("\nembedded (PGlite, fresh data dir)")
await run({})
const url = process.env.DATABASE_URL
if (url !== undefined) {
  console.log("\nPostgreSQL (a schema of its own)")
  await withPgSchema(url, (schemaUrl) => run({ DATABASE_URL: schemaUrl }))
}
