/**
 * Hostile input (issue 7, item 3), CI-sized: one real service (in this
 * process, over the sample market; `npm run proof:fuzz` starts it as a child), accounts on
 * every plan, and 10,000 property-based requests over every route of its
 * OpenAPI document (see harness.ts for what is generated and checked): no
 * 5xx, the error envelope on every 4xx, no hang. Then 64 KB+ headers and URLs
 * over raw sockets, a property that a refused create or update leaves the
 * database as it was, and a last look that the service still runs, is healthy and
 * logged no unhandled failure.
 *
 * FUZZ_CASES (default 10,000) and FUZZ_SEED (default random, printed) size
 * and replay a run; `npm run proof:fuzz` runs longer ones and prints figures.
 */
import fc from "fast-check"
import { Pool } from "undici"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SAMPLE, type Service, startService } from "../support/inProcess.js"
import { routeShape, SPEC_ROUTES } from "../support/openapi.js"
import { admin, waitReady } from "../support/server.js"
import {
  bodyObject,
  describeCase,
  type FuzzCase,
  isDocumented501,
  loadRoutes,
  newStats,
  percentile,
  prepareTarget,
  type Route,
  rawExchange,
  runFuzz,
  send,
  serviceEnv,
  type Target,
  violation
} from "./support/endpointFuzz.js"

const CASES = Number(process.env.FUZZ_CASES ?? 10_000)
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const ATOMIC_RUNS = 150

describe("hostile input on every endpoint", () => {
  let server: Service
  let target: Target
  let routes: Array<Route>
  let missing: Array<string>

  let cleanup = async () => {}

  beforeAll(async () => {
    const service = await serviceEnv()
    cleanup = service.cleanup
    server = await startService(service.env, { ...SAMPLE, timeoutMs: 180_000 })
    await waitReady(server, 180_000)
    target = await prepareTarget(server)
    ;({ routes, missingFromOpenApi: missing } = await loadRoutes(server.url))
  }, 400_000)

  afterAll(async () => {
    await target?.close()
    await server?.stop()
    await cleanup()
  })

  it("fuzzes every route of the spec and of the served OpenAPI document", () => {
    expect(missing).toEqual([])
    const served = new Set(routes.map((r) => routeShape(`${r.method} ${r.path}`)))
    for (const r of SPEC_ROUTES) expect(served.has(routeShape(r))).toBe(true)
    expect(routes.length).toBeGreaterThanOrEqual(50)
    expect(routes.some((r) => r.security === "admin")).toBe(true)
    expect(routes.some((r) => r.body !== undefined)).toBe(true)
  })

  it(`answers ${CASES} hostile requests without a 5xx, always in the error envelope, never hanging`, async () => {
    const stats = newStats()
    const started = performance.now()
    await runFuzz({ routes, target, cases: CASES, seed: SEED, concurrency: 8, timeoutMs: 30_000, shrink: false, stats })
    const seconds = (performance.now() - started) / 1000
    const sorted = [...stats.latencies].sort((a, b) => a - b)
    console.log(
      `fuzz seed ${SEED}: ${stats.cases} cases in ${seconds.toFixed(1)} s (${(stats.cases / seconds).toFixed(0)}/s), ` +
        `p50 ${percentile(sorted, 50).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms, ` +
        `statuses ${JSON.stringify(Object.fromEntries(stats.statuses))}`
    )
    // each failure's whole text in the assertion's message: a run's seed replays its cases, not its timing
    expect(stats.failures.length, `fuzz seed ${SEED}:\n${stats.failures.slice(0, 5).join("\n\n")}`).toBe(0)
    expect(stats.cases).toBe(CASES)
    // every route was exercised (a full-size run reaches each some dozens of times), and the fuzz reached
    // handlers, not just the gates in front of them
    if (CASES >= 5_000) expect(stats.routes.size).toBe(routes.length + 1)
    for (const status of ["200", "201", "400", "401", "404"]) expect(stats.statuses.get(status) ?? 0).toBeGreaterThan(0)
  }, 900_000)

  it("refuses 64 KB+ headers and over-long URLs with a 431 in the envelope, and stays up", async () => {
    const auth = `Authorization: Bearer ${target.keys.enterprise}\r\n`
    const heads = [
      `GET /v2/account HTTP/1.1\r\nHost: x\r\n${auth}X-Big: ${"h".repeat(64 * 1024)}\r\n\r\n`,
      `GET /v2/account HTTP/1.1\r\nHost: x\r\n${auth}Cookie: ${"c".repeat(100 * 1024)}\r\n\r\n`,
      `GET /v2/scan?q=${"(".repeat(40_000)} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
      `GET /v2/account HTTP/1.1\r\nHost: x\r\n${auth}${Array.from({ length: 3_000 }, (_, i) => `X-H${i}: v\r\n`).join("")}\r\n`
    ]
    for (const head of heads) {
      const answer = await rawExchange(server.url, head)
      expect(answer).toMatch(/^HTTP\/1\.1 431 /)
      const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))
      expect(body.error.code).toBe("request_header_too_large")
      expect(body.error.request_id).toMatch(/^req_/)
    }
    // bytes HTTP does not allow in a request line: 400 in the envelope
    const bad = await rawExchange(server.url, "GET /v2/acc\u0001ount HTTP/1.1\r\nHost: x\r\n\r\n")
    expect(bad).toMatch(/^HTTP\/1\.1 400 /)
    expect(JSON.parse(bad.slice(bad.indexOf("\r\n\r\n") + 4)).error.code).toBe("bad_request")
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
  }, 60_000)

  it("leaves the database as it was when a create or an update is refused", async () => {
    const created = await admin(server, "POST", "/admin/accounts", { plan: "enterprise" })
    const key = created.body.api_key as string
    await admin(server, "PATCH", `/admin/accounts/${created.body.account_id}`, {
      plan: "enterprise",
      rate_limit_per_minute: 100_000_000
    })
    const pool = new Pool(server.url, { connections: 1 })
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await pool.request({
        method: method as any,
        path,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const text = await res.body.text()
      return { status: res.statusCode, body: JSON.parse(text) }
    }
    expect((await call("POST", "/v2/universes", { id: "atom_u", name: "U", tickers: ["AAPL"] })).status).toBe(201)
    expect((await call("POST", "/v2/signals", { name: "atom_s", expr: "price > 5" })).status).toBe(201)
    const rule = await call("POST", "/v2/rules", { name: "atom rule", q: "price > 5" })
    const hook = await call("POST", "/v2/webhooks", { q: "price > 5", channel: "in_app" })
    expect(hook.status).toBe(201)

    /** every item of a list endpoint, walking its pages */
    const all = async (path: string, field: string) => {
      const items: Array<unknown> = []
      let cursor: string | null = null
      do {
        const page = await call("GET", `${path}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
        expect(page.status).toBe(200)
        items.push(...page.body[field])
        cursor = page.body.next_cursor
      } while (cursor !== null)
      return items
    }
    const lists: Record<string, () => Promise<Array<unknown>>> = {
      universes: () => all("/v2/universes?limit=100", "universes"),
      signals: () => all("/v2/signals?kind=custom&limit=200", "signals"),
      rules: () => all("/v2/rules?limit=100", "rules"),
      webhooks: () => all("/v2/webhooks?limit=100", "webhooks")
    }
    const byPath = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)!
    const creates: Array<[string, Route, string]> = [
      ["universes", byPath("POST", "/v2/universes"), "/v2/universes"],
      ["signals", byPath("POST", "/v2/signals"), "/v2/signals"],
      ["rules", byPath("POST", "/v2/rules"), "/v2/rules"],
      ["webhooks", byPath("POST", "/v2/webhooks"), "/v2/webhooks"],
      ["webhooks", byPath("POST", "/v2/tickers/{ticker}/subscribe"), "/v2/tickers/AAPL/subscribe"],
      ["webhooks", byPath("POST", "/v2/signals/{signal}/subscribe"), "/v2/signals/golden_cross/subscribe"]
    ]
    const updates: Array<[Route, string]> = [
      [byPath("PATCH", "/v2/universes/{id}"), "/v2/universes/atom_u"],
      [byPath("PATCH", "/v2/signals/{signal}"), "/v2/signals/atom_s"],
      [byPath("PATCH", "/v2/rules/{id}"), `/v2/rules/${rule.body.id}`],
      [byPath("PATCH", "/v2/webhooks/{id}"), `/v2/webhooks/${hook.body.id}`]
    ]
    const readBack = async (path: string) => {
      const res = await call("GET", path === "/v2/signals/atom_s" ? "/v2/signals?kind=custom&limit=200" : path)
      // `next_eval_at` is derived from the clock, not stored
      const { as_of: _asOf, next_eval_at: _next, ...rest } = res.body
      return path === "/v2/signals/atom_s" ? rest.signals.find((s: any) => s.name === "atom_s") : rest
    }

    const operation = fc.oneof(
      fc.constantFrom(...creates).chain(([list, route, path]) =>
        bodyObject(route.body, target, `POST ${route.path}`).map((body) => ({
          kind: "create" as const,
          list,
          path,
          body
        }))
      ),
      fc
        .constantFrom(...updates)
        .chain(([route, path]) =>
          bodyObject(route.body, target, `PATCH ${route.path}`).map((body) => ({ kind: "update" as const, path, body }))
        )
    )
    let accepted = 0
    let refused = 0
    await fc.assert(
      fc.asyncProperty(operation, async (op) => {
        if (op.kind === "create") {
          const before = (await lists[op.list]!()).length
          const res = await call("POST", op.path, op.body)
          const after = (await lists[op.list]!()).length
          if (!isDocumented501(res.status, res.body?.error?.code)) expect(res.status).toBeLessThan(500)
          // creates answer 201, subscribes 200
          const ok = res.status < 300
          if (ok) accepted++
          else refused++
          expect(after).toBe(ok ? before + 1 : before)
        } else {
          const before = await readBack(op.path)
          const res = await call("PATCH", op.path, op.body)
          expect(res.status).toBeLessThan(500)
          if (res.status >= 400) {
            refused++
            expect(await readBack(op.path)).toEqual(before)
          } else accepted++
        }
      }),
      { numRuns: ATOMIC_RUNS, seed: SEED, endOnFailure: true }
    )
    await pool.close()
    // both outcomes were exercised
    expect(accepted).toBeGreaterThan(0)
    expect(refused).toBeGreaterThan(0)
  }, 300_000)

  it("is alive and healthy afterwards, logged no unhandled failure, and nothing was polluted", async () => {
    expect(server.running()).toBe(true)
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200)
    const unhandled = server
      .logs()
      .split("\n")
      .filter((l) => l.includes("unhandled failure"))
    expect(unhandled.slice(0, 3)).toEqual([])
    // `__proto__` / `constructor.prototype` keys were sent thousands of times: no object grew a property
    const pool = new Pool(server.url, { connections: 1 })
    const probes: Array<FuzzCase> = [
      {
        route: "probe",
        method: "GET",
        path: "/v2/account",
        headers: { authorization: `Bearer ${target.keys.enterprise}` }
      },
      {
        route: "probe",
        method: "GET",
        path: "/v2/universes/system",
        headers: { authorization: `Bearer ${target.keys.enterprise}` }
      },
      { route: "probe", method: "GET", path: "/v2/nope", headers: {} }
    ]
    for (const probe of probes) {
      const outcome = await send(pool, probe, 10_000)
      expect(violation(probe, outcome), describeCase(probe)).toBeUndefined()
      expect(outcome.text).not.toContain("fz_polluted")
    }
    await pool.close()
  })
})
