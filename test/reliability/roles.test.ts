/**
 * Roles (issue 15, item 1): an API process (`VIGIL_ROLE=api`) and a runner
 * (`VIGIL_ROLE=runner`) on one PostgreSQL schema and one Redis, over real HTTP.
 *
 * - The runner serves the probes and metrics on PORT and nothing under /v2 or /admin.
 * - A webhook created through the API process is evaluated by the runner and its event
 *   delivered by the runner's workers; `POST /admin/refresh` through the API process answers
 *   once the runner has evaluated a refresh made after it, and each transition fires once.
 * - The API process holds no actors; the runner's metrics count them.
 * - A role started without the stores it needs stops at once, naming the variable.
 */
import { spawn } from "node:child_process"
import { createServer } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "../support/freePort.js"
import { type LocalReceiver, startReceiver } from "../support/receiver.js"
import {
  admin,
  api,
  type RunningServer,
  SAMPLE_PROCESS,
  SERVICE_ENTRY,
  startServer,
  waitReady
} from "../support/server.js"
import { DATABASE_URL, NEEDS_BOTH, REDIS_URL } from "../support/servers.js"
import { privateSchema } from "./support/database.js"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Starts the service with only `env` (and PATH, HOME, PORT=0); resolves with its exit code and output, killing it after four minutes. */
const run = (env: Record<string, string>) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [...SERVICE_ENTRY], {
      cwd: new URL("../..", import.meta.url),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: "0", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000)
    child.on("exit", (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })

describe("a role started without the stores it needs", () => {
  it("stops at once with exit code 2, naming the variable", async () => {
    const [api, runner] = await Promise.all([
      run({ VIGIL_ROLE: "api" }),
      run({ VIGIL_ROLE: "runner", REDIS_URL: "redis://127.0.0.1:6379" })
    ])
    expect(api.code).toBe(2)
    expect(api.output).toContain("DATABASE_URL must be set for VIGIL_ROLE=api")
    expect(api.output).toContain("REDIS_URL must be set for VIGIL_ROLE=api")
    expect(runner.code).toBe(2)
    expect(runner.output).toContain("DATABASE_URL must be set for VIGIL_ROLE=runner")
  }, 60_000)
})

describe.skipIf(DATABASE_URL === undefined || REDIS_URL === undefined)(
  `an API process and a runner on one PostgreSQL and one Redis (${NEEDS_BOTH})`,
  () => {
    let apiServer: RunningServer
    let runner: RunningServer
    let receiver: LocalReceiver
    let drop: () => Promise<void>

    beforeAll(async () => {
      const schema = await privateSchema(DATABASE_URL!, "roles")
      drop = schema.drop
      receiver = await startReceiver()
      const env = {
        DATABASE_URL: schema.serviceUrl,
        REDIS_URL: REDIS_URL!,
        REFRESH_INTERVAL: "1h",
        WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
        HISTORY_DAYS: "30"
      }
      runner = await startServer(
        { ...env, VIGIL_ROLE: "runner", RUNNER_PORT: String(await freePort()) },
        300_000,
        SAMPLE_PROCESS
      )
      await waitReady(runner, 300_000)
      apiServer = await startServer({ ...env, VIGIL_ROLE: "api" }, 300_000, SAMPLE_PROCESS)
      await waitReady(apiServer, 300_000)
    }, 1_200_000)

    afterAll(async () => {
      await Promise.all([apiServer?.stop(), runner?.stop()])
      await receiver?.close()
      await drop?.()
    })

    it("the runner serves probes and metrics, and nothing under /v2 or /admin", async () => {
      expect((await fetch(`${runner.url}/healthz`)).status).toBe(200)
      expect(await (await fetch(`${runner.url}/readyz`)).json()).toEqual({ status: "ready" })
      expect((await fetch(`${runner.url}/metrics`)).status).toBe(200)
      for (const path of ["/v2/account", "/v2/scan?q=price%3E1", "/admin/accounts", "/v2/openapi.json"]) {
        const res = await fetch(`${runner.url}${path}`, { headers: { authorization: "Bearer x" } })
        expect(res.status, path).toBe(404)
      }
    })

    it("a webhook created through the API process is evaluated and delivered by the runner, once per transition", async () => {
      const account = (await admin(apiServer, "POST", "/admin/accounts", { plan: "pro" })).body
      const key = account.api_key as string
      const call = (method: string, path: string, body?: unknown) =>
        api(apiServer, key, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
      const created = await call("POST", "/v2/webhooks", {
        q: "price > 0",
        universe: "top_10",
        target_url: receiver.url("/roles")
      })
      expect(created.status).toBe(201)
      const id = created.body.id as string
      for (let round = 1; round <= 3; round++) {
        if (round > 1) {
          expect((await call("POST", `/v2/webhooks/${id}/disable`)).status).toBe(200)
          expect((await call("POST", `/v2/webhooks/${id}/enable`)).status).toBe(200)
        }
        const refreshed = await admin(apiServer, "POST", "/admin/refresh")
        expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
        // answered after the runner evaluated: the fire is already queued
        const deadline = Date.now() + 20_000
        while (receiver.at("/roles").length < round && Date.now() < deadline) await sleep(50)
        await sleep(1_000)
        expect(receiver.at("/roles").length).toBe(round)
        expect(JSON.parse(receiver.at("/roles")[round - 1]!.body).data.matches.length).toBe(10)
      }
      const metrics = async (server: RunningServer) => (await fetch(`${server.url}/metrics`)).text()
      expect(Number(/^webhook_actors_alive (\d+)$/m.exec(await metrics(runner))?.[1])).toBe(1)
      expect(/^webhook_actors_alive [1-9]/m.test(await metrics(apiServer))).toBe(false)
    })
  }
)

describe.skipIf(DATABASE_URL === undefined || REDIS_URL === undefined)(
  `a runner whose cluster transport port is taken (${NEEDS_BOTH})`,
  () => {
    it("stops with a non-zero exit code, naming its transport address, rather than staying up never ready", async () => {
      const schema = await privateSchema(DATABASE_URL!, "taken")
      const taken = createServer()
      const port = await freePort()
      await new Promise<void>((resolve) => taken.listen(port, "127.0.0.1", resolve))
      try {
        const exit = await run({
          VIGIL_ROLE: "runner",
          RUNNER_PORT: String(port),
          DATABASE_URL: schema.serviceUrl,
          REDIS_URL: REDIS_URL!,
          REFRESH_INTERVAL: "1h",
          HISTORY_DAYS: "30"
        })
        expect(exit.code, exit.output.slice(-2_000)).not.toBe(0)
        expect(exit.code, "stopped on its own, not killed after the wait").not.toBe(null)
        expect(exit.output).toContain(`the runner could not join the cluster on its transport address`)
        expect(exit.output).toContain(`RUNNER_PORT=${port}`)
      } finally {
        await new Promise((resolve) => taken.close(resolve))
        await schema.drop()
      }
    }, 300_000)
  }
)
