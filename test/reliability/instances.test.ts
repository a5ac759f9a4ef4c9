/**
 * Several instances (issue 7, item 5): two service processes on one
 * PostgreSQL schema and one Redis, over real HTTP.
 *
 * - A key revoked through one is refused by the other on its very next
 *   request, though both cache keys (the Redis epoch, src/accounts/authChanges.ts);
 *   a plan changed through one is applied by the other at once.
 * - The rate limit of a key is shared: the two together admit exactly the
 *   limit, concurrently.
 * - Each webhook fires once per transition, not once per instance: both
 *   instances refresh and evaluate at the same moments, and the receiver gets
 *   one event per transition.
 *
 * Needs DATABASE_URL and REDIS_URL (CI sets both); without them the instances
 * could not share anything, so the suite is skipped, its name saying why.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type LocalReceiver, startReceiver } from "../support/receiver.js"
import {
  admin,
  api,
  expectError,
  type RunningServer,
  SAMPLE_PROCESS,
  startServer,
  waitReady
} from "../support/server.js"
import { DATABASE_URL, NEEDS_BOTH, REDIS_URL } from "../support/servers.js"
import { privateSchema } from "./support/database.js"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe.skipIf(DATABASE_URL === undefined || REDIS_URL === undefined)(
  `two instances on one PostgreSQL and one Redis (${NEEDS_BOTH})`,
  () => {
    let a: RunningServer
    let b: RunningServer
    let receiver: LocalReceiver
    let drop: () => Promise<void>

    const call = (server: RunningServer, key: string, method: string, path: string, body?: unknown) =>
      api(server, key, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

    beforeAll(async () => {
      const schema = await privateSchema(DATABASE_URL!, "instances")
      drop = schema.drop
      receiver = await startReceiver()
      const env = {
        DATABASE_URL: schema.serviceUrl,
        REDIS_URL: REDIS_URL!,
        REFRESH_INTERVAL: "1h",
        WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
        // nothing here reads history: a month of it builds the market in a fraction of the time
        HISTORY_DAYS: "30"
      }
      // one after the other (each start loads its market: two at once over the whole market, on a CI
      // machine already running other files' servers, took over 4 minutes); generous bounds for the same reason
      a = await startServer(env, 300_000, SAMPLE_PROCESS)
      await waitReady(a, 300_000)
      b = await startServer(env, 300_000, SAMPLE_PROCESS)
      await waitReady(b, 300_000)
    }, 1_200_000)

    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()])
      await receiver?.close()
      await drop?.()
    })

    it("a key revoked through one instance is refused by the other on its next request", async () => {
      for (let round = 0; round < 10; round++) {
        const account = (await admin(a, "POST", "/admin/accounts", { plan: "pro" })).body
        const key = account.api_key as string
        // both instances authenticate it, and cache it
        for (let i = 0; i < 3; i++) {
          expect((await call(b, key, "GET", "/v2/account")).status).toBe(200)
          expect((await call(a, key, "GET", "/v2/account")).status).toBe(200)
        }
        const revoker = round % 2 === 0 ? a : b
        const other = round % 2 === 0 ? b : a
        expect((await admin(revoker, "DELETE", `/admin/keys/${account.key_id}`)).status).toBe(200)
        expectError(await call(other, key, "GET", "/v2/account"), 401, "unauthenticated")
        expectError(await call(revoker, key, "GET", "/v2/account"), 401, "unauthenticated")
      }
    })

    it("a plan changed through one instance applies on the other at once", async () => {
      const account = (await admin(a, "POST", "/admin/accounts", { plan: "pro" })).body
      const key = account.api_key as string
      expect((await call(b, key, "GET", "/v2/account")).body.plan).toBe("pro")
      expect((await admin(a, "PATCH", `/admin/accounts/${account.account_id}`, { plan: "none" })).status).toBe(200)
      expectError(await call(b, key, "GET", "/v2/account"), 402, "subscription_required")
      expect((await admin(b, "PATCH", `/admin/accounts/${account.account_id}`, { plan: "scale" })).status).toBe(200)
      expect((await call(a, key, "GET", "/v2/account")).body.plan).toBe("scale")
    })

    it("the two instances together admit exactly a key's per-minute limit", async () => {
      const account = (await admin(a, "POST", "/admin/accounts", { plan: "enterprise" })).body
      const limit = 40
      const patched = await admin(a, "PATCH", `/admin/accounts/${account.account_id}`, {
        plan: "enterprise",
        rate_limit_per_minute: limit
      })
      expect(patched.status).toBe(200)
      const key = account.api_key as string
      // 100 requests at once, alternating between the instances
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => call(i % 2 === 0 ? a : b, key, "GET", "/v2/account"))
      )
      const ok = results.filter((r) => r.status === 200)
      const limited = results.filter((r) => r.status === 429)
      expect(ok.length).toBe(limit)
      expect(limited.length).toBe(100 - limit)
      for (const r of limited) expectError(r, 429, "rate_limited")
      // both instances admitted some: the limit is shared, not per instance
      const okByInstance = results.map((r, i) => [r.status, i % 2] as const).filter(([s]) => s === 200)
      expect(new Set(okByInstance.map(([, n]) => n)).size).toBe(2)
      // the remaining count is shared too, never negative
      const remaining = ok.map((r) => Number(r.headers.get("x-ratelimit-remaining"))).sort((x, y) => x - y)
      expect(remaining).toEqual(Array.from({ length: limit }, (_, i) => i))
      for (const r of limited) expect(r.headers.get("x-ratelimit-remaining")).toBe("0")
    })

    it("each webhook fires once per transition, not once per instance", async () => {
      const account = (await admin(a, "POST", "/admin/accounts", { plan: "pro" })).body
      const key = account.api_key as string
      const created = await call(a, key, "POST", "/v2/webhooks", {
        q: "price > 0",
        universe: "top_10",
        target_url: receiver.url("/once")
      })
      expect(created.status).toBe(201)
      const id = created.body.id as string
      const rounds = 4
      for (let round = 1; round <= rounds; round++) {
        if (round > 1) {
          // disable + enable: the stored match set is cleared, so the next evaluation fires every match again
          expect((await call(b, key, "POST", `/v2/webhooks/${id}/disable`)).status).toBe(200)
          expect((await call(a, key, "POST", `/v2/webhooks/${id}/enable`)).status).toBe(200)
        }
        // both instances refresh and evaluate at the same moment, twice
        for (let i = 0; i < 2; i++) {
          const [ra, rb] = await Promise.all([admin(a, "POST", "/admin/refresh"), admin(b, "POST", "/admin/refresh")])
          expect([ra.status, rb.status], JSON.stringify([ra.body, rb.body])).toEqual([200, 200])
        }
        const deadline = Date.now() + 20_000
        while (receiver.at("/once").length < round && Date.now() < deadline) await sleep(50)
        // time for a duplicate to show up, if there were one
        await sleep(1_500)
        const events = receiver.at("/once")
        expect(events.length).toBe(round)
        const latest = JSON.parse(events[round - 1]!.body)
        expect(latest.data.webhook_id).toBe(id)
        expect(latest.data.matches.length).toBe(10)
      }
      const ids = receiver.at("/once").map((r) => r.headers["webhook-id"])
      expect(new Set(ids).size).toBe(rounds)
      const deliveries = await call(a, key, "GET", `/v2/webhooks/${id}/deliveries`)
      expect(deliveries.status).toBe(200)
      expect(deliveries.body.deliveries.filter((d: any) => d.test !== true).length).toBe(rounds)
    })
  }
)
