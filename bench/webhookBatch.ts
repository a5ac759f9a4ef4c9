/**
 * Issue 16, item 8: `POST /v2/webhooks/batch` with 500 webhooks, against the baseline of the same
 * 500 bodies sent as single `POST /v2/webhooks` creates by 64 concurrent clients, in the same run.
 * The service as `npm start` runs it (a child process, fresh data, the embedded store unless
 * DATABASE_URL is set), one enterprise account (no cap; its rate limit raised). Rounds alternate
 * batch and singles; printed: each round's wall times, the median batch time and the ratio.
 *
 *   npm run bench:webhook-batch
 *   npm run bench:webhook-batch -- --rounds=7 --size=500
 */
import { performance } from "node:perf_hooks"
import { Pool } from "undici"
import { admin, startServer, waitReady } from "../test/support/server.js"
import { benchArgs } from "./support/args.js"
import { conditionMaker } from "./support/conditions.js"

const args = benchArgs()
const ROUNDS = Number(args.get("rounds") ?? 5)
const SIZE = Number(args.get("size") ?? 500)
const CLIENTS = 64

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const main = async () => {
  const server = await startServer({ REFRESH_INTERVAL: "1h" }, 300_000)
  try {
    await waitReady(server, 300_000)
    const created = await admin(server, "POST", "/admin/accounts", { plan: "enterprise" })
    const { account_id, api_key } = created.body as { account_id: string; api_key: string }
    await admin(server, "PATCH", `/admin/accounts/${account_id}`, {
      plan: "enterprise",
      rate_limit_per_minute: 100_000_000
    })
    const pool = new Pool(server.url, { connections: CLIENTS, pipelining: 1 })
    const post = async (path: string, body: unknown) => {
      const r = await pool.request({
        method: "POST",
        path,
        headers: { authorization: `Bearer ${api_key}`, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      const text = await r.body.text()
      if (r.statusCode >= 300) throw new Error(`${path}: ${r.statusCode} ${text.slice(0, 200)}`)
    }
    const condition = conditionMaker(Math.random)
    const bodies = () => Array.from({ length: SIZE }, () => ({ q: condition() }))
    const batches: Array<number> = []
    const singles: Array<number> = []
    for (let round = 0; round <= ROUNDS; round++) {
      const a = performance.now()
      await post("/v2/webhooks/batch", { webhooks: bodies() })
      const batchMs = performance.now() - a
      const items = bodies()
      const b = performance.now()
      let next = 0
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next < items.length) await post("/v2/webhooks", items[next++])
        })
      )
      const singleMs = performance.now() - b
      // round 0 warms the path up
      if (round === 0) continue
      batches.push(batchMs)
      singles.push(singleMs)
      console.log(
        `round ${round}: batch of ${SIZE} ${batchMs.toFixed(0)} ms; ${SIZE} single creates (${CLIENTS} clients) ${singleMs.toFixed(0)} ms`
      )
    }
    const b = median(batches)
    const s = median(singles)
    console.log(
      `median: batch of ${SIZE} ${b.toFixed(0)} ms (goal ≤ 1,000 ms on the embedded store); ${SIZE} single creates ${s.toFixed(0)} ms; batch × ${(b / s).toFixed(2)} of the singles`
    )
    await pool.close()
  } finally {
    await server.stop()
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
