/**
 * Runners sharing the webhook slices (issue 15): one API process and two runners
 * (`VIGIL_ROLE=runner`) on one PostgreSQL schema and one Redis, over real HTTP.
 *
 * - The cluster splits the 1,024 slices between the runners; each evaluates and delivers its own
 *   webhooks, and `POST /admin/refresh` through the API process answers once every slice has
 *   been evaluated: every webhook fires once.
 * - After a runner's `SIGKILL` the other holds every slice within 15 s (the time is printed), and
 *   a new transition of every webhook — those that were on the killed runner too — fires once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "../support/freePort.js"
import { type LocalReceiver, startReceiver } from "../support/receiver.js"
import { admin, api, type RunningServer, startServer, waitReady } from "../support/server.js"
import { DATABASE_URL, NEEDS_BOTH, REDIS_URL } from "../support/servers.js"
import { privateSchema } from "./support/database.js"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const gauge = async (server: RunningServer, name: string) => {
  const text = await (await fetch(`${server.url}/metrics`)).text()
  return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN)
}

const WEBHOOKS = 40

describe.skipIf(DATABASE_URL === undefined || REDIS_URL === undefined)(
  `two runners sharing the webhook slices, and an API process (${NEEDS_BOTH})`,
  () => {
    let apiServer: RunningServer
    let runners: Array<RunningServer>
    let receiver: LocalReceiver
    let drop: () => Promise<void>

    beforeAll(async () => {
      const schema = await privateSchema(DATABASE_URL!, "runners")
      drop = schema.drop
      receiver = await startReceiver()
      const env = {
        DATABASE_URL: schema.serviceUrl,
        REDIS_URL: REDIS_URL!,
        REFRESH_INTERVAL: "1h",
        WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
        HISTORY_DAYS: "30"
      }
      runners = []
      for (let i = 0; i < 2; i++) {
        const runner = await startServer(
          { ...env, VIGIL_ROLE: "runner", RUNNER_PORT: String(await freePort()) },
          300_000
        )
        runners.push(runner)
        await waitReady(runner, 300_000)
      }
      apiServer = await startServer({ ...env, VIGIL_ROLE: "api" }, 300_000)
      await waitReady(apiServer, 300_000)
    }, 1_200_000)

    afterAll(async () => {
      // the runner killed by the test has exited already (with a signal: its exitCode stays null)
      const running = (runners ?? []).filter((r) => r.process.exitCode === null && r.process.signalCode === null)
      await Promise.all([apiServer?.stop(), ...running.map((r) => r.stop())])
      await receiver?.close()
      await drop?.()
    })

    it("split the slices, fire each transition once, and take a killed runner's slices over", async () => {
      // both hold slices, together every one
      const deadline = Date.now() + 30_000
      let held = [0, 0]
      while (Date.now() < deadline) {
        held = await Promise.all(runners.map((r) => gauge(r, "webhook_slices_held")))
        if (held[0]! > 0 && held[1]! > 0 && held[0]! + held[1]! === 1024) break
        await sleep(200)
      }
      expect(held[0]! + held[1]!).toBe(1024)
      expect(Math.min(...held)).toBeGreaterThan(0)

      const account = (await admin(apiServer, "POST", "/admin/accounts", { plan: "enterprise" })).body
      const key = account.api_key as string
      const call = (method: string, path: string, body?: unknown) =>
        api(apiServer, key, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
      const ids: Array<string> = []
      for (let i = 0; i < WEBHOOKS; i++) {
        const created = await call("POST", "/v2/webhooks", {
          q: "price > 0",
          universe: "top_10",
          target_url: receiver.url("/runners")
        })
        expect(created.status).toBe(201)
        ids.push(created.body.id as string)
      }
      const events = () => receiver.at("/runners").map((r) => JSON.parse(r.body).data.webhook_id as string)
      const settle = async (n: number) => {
        const until = Date.now() + 20_000
        while (events().length < n && Date.now() < until) await sleep(50)
        await sleep(1_500) // time for a duplicate to show up, if there were one
      }

      const refreshed = await admin(apiServer, "POST", "/admin/refresh")
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
      await settle(WEBHOOKS)
      expect(events().sort()).toEqual([...ids].sort())
      const alive = await Promise.all(runners.map((r) => gauge(r, "webhook_actors_alive")))
      expect(alive[0]! + alive[1]!).toBe(WEBHOOKS)
      expect(Math.min(...alive)).toBeGreaterThan(0)

      // SIGKILL one: the other holds every slice again, within 15 s
      const killed = Date.now()
      const exited = new Promise((resolve) => runners[1]!.process.once("exit", resolve))
      runners[1]!.process.kill("SIGKILL")
      await exited
      let takeover = Number.NaN
      while (Date.now() - killed < 30_000) {
        if ((await gauge(runners[0]!, "webhook_slices_held")) === 1024) {
          takeover = Date.now() - killed
          break
        }
        await sleep(100)
      }
      console.log(`[runners] slices held again by the other runner ${takeover} ms after SIGKILL`)
      expect(takeover).toBeLessThanOrEqual(15_000)
      expect(await gauge(runners[0]!, "webhook_actors_alive")).toBe(WEBHOOKS)

      // a new transition of every webhook (disable + enable clears the stored set) fires once
      for (const id of ids) {
        expect((await call("POST", `/v2/webhooks/${id}/disable`)).status).toBe(200)
        expect((await call("POST", `/v2/webhooks/${id}/enable`)).status).toBe(200)
      }
      const again = await admin(apiServer, "POST", "/admin/refresh")
      expect(again.status, JSON.stringify(again.body)).toBe(200)
      await settle(2 * WEBHOOKS)
      expect(events().sort()).toEqual([...ids, ...ids].sort())
      const webhookIds = receiver.at("/runners").map((r) => r.headers["webhook-id"])
      expect(new Set(webhookIds).size).toBe(2 * WEBHOOKS)
    }, 180_000)
  }
)
