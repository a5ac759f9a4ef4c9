/**
 * The served OpenAPI document (`/v2/openapi.json`) as client generators read
 * it (issue 13, item 4): it validates cleanly under an independent validator
 * (Redocly's recommended rules), declares every endpoint of the spec's table
 * with its method, and tells the truth about the bodies: a sample of real
 * requests per group (a success and each documented error status a request
 * can reach) is replayed against the service and every answer's body
 * validated against the JSON Schema the document declares for its status.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SAMPLE, type Service, startService } from "../support/inProcess.js"
import {
  declaredHeaders,
  lintOpenApi,
  responseValidator,
  routeShape,
  SPEC_REFERENCED_ROUTES,
  SPEC_ROUTES
} from "../support/openapi.js"
import { type LocalReceiver, startReceiver } from "../support/receiver.js"
import { ADMIN_TOKEN, admin, api, waitReady } from "../support/server.js"

/**
 * Documented statuses a request cannot reach against a healthy service, with
 * why: they are excused from the per-group coverage below (and only they).
 */
const UNREACHABLE: Readonly<Record<string, string>> = {
  "500": "a server fault",
  "503": "the database failing or a request overrunning its deadline (reached here only where a build is pending)",
  "system 400":
    "the probes read no input, so nothing fails to decode (Effect declares its decode 400 on every operation, " +
    "and Redocly's recommended rules want a 4XX on each)",
  "408": "the HTTP parser's answer to a stalled request (headers not in within 10 s, checked every 30 s)",
  "scan 409": "only idempotency_key_in_progress there: a retry racing the first request",
  "rules 409": "only idempotency_key_in_progress there: a retry racing the first request",
  "news 409": "only idempotency_key_in_progress there: a retry racing the first request",
  "devices 409": "only idempotency_key_in_progress there: a retry racing the first request",
  "notifications 409": "only idempotency_key_in_progress there: a retry racing the first request"
}

/**
 * Statuses of the request policy, answered before any endpoint and the same
 * for every operation: replayed once each by the request policy test, not per group.
 */
const POLICY_STATUSES: ReadonlyArray<number> = [413, 415, 422, 431]

/** Who sends a replayed request (no key: none), its JSON body (or a raw one, with its type), more headers. */
interface Sent {
  readonly key?: string | undefined
  readonly body?: unknown
  readonly raw?: { readonly type: string; readonly text: string }
  readonly headers?: Record<string, string>
}

describe("the OpenAPI document, read as client generators read it", () => {
  let server: Service
  let receiver: LocalReceiver
  let doc: any
  beforeAll(async () => {
    receiver = await startReceiver()
    server = await startService({ REFRESH_INTERVAL: "1h", WEBHOOK_ALLOW_INSECURE_TARGETS: "true" }, SAMPLE)
    await waitReady(server)
    const res = await api(server, undefined, "/v2/openapi.json")
    expect(res.status).toBe(200)
    doc = res.body
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await receiver?.close()
  })

  /** statuses replayed, by group (the operation's tag), over every test */
  const covered = new Map<string, Set<number>>()
  const groupOf = (op: string) => {
    const [method, path] = op.split(" ") as [string, string]
    return (doc.paths[path]?.[method.toLowerCase()]?.tags?.[0] as string | undefined) ?? "?"
  }

  /**
   * A replay: sends a request for the operation `op` (`METHOD /template`) to
   * `url` and checks its status, its body against the schema the document
   * declares for that status, and that it carries every header the document
   * says that answer always has; gives the response. Problems go to `failures`.
   */
  const replayer = (failures: Array<string>) => {
    const validate = responseValidator(doc)
    return async (op: string, url: string, status: number, options: Sent = {}): Promise<any> => {
      const method = op.split(" ")[0]!
      const res = await api(server, options.key, url, {
        method,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        ...(options.raw === undefined ? {} : { body: options.raw.text }),
        headers: { ...(options.raw === undefined ? {} : { "content-type": options.raw.type }), ...options.headers }
      })
      const where = `${op} (${method} ${url})`
      if (res.status !== status) {
        failures.push(`${where}: expected ${status}, got ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`)
        return res
      }
      covered.set(groupOf(op), new Set([...(covered.get(groupOf(op)) ?? []), status]))
      for (const [name, required] of Object.entries(declaredHeaders(doc, op, status))) {
        if (required && !res.headers.has(name))
          failures.push(`${where} ${status}: no ${name} header, declared as always sent`)
      }
      const contentType = (res.headers.get("content-type") ?? "").split(";")[0]!.trim()
      if (contentType !== "application/json") {
        const [m, path] = op.split(" ") as [string, string]
        const declared = Object.keys(doc.paths[path]?.[m.toLowerCase()]?.responses?.[status]?.content ?? {})
        if (!declared.some((t) => t.split(";")[0]!.trim() === contentType)) {
          failures.push(`${where}: ${status} answered ${contentType}, the document declares ${declared.join(", ")}`)
        }
        return res
      }
      try {
        const errors = validate(op, status, res.body)
        if (errors.length > 0) {
          failures.push(`${where} ${status}: ${errors.join("; ")} in ${JSON.stringify(res.body).slice(0, 300)}`)
        }
      } catch (e) {
        failures.push(`${where}: ${(e as Error).message}`)
      }
      return res
    }
  }

  it("validates with Redocly's recommended rules: no error, and no warning but the licence", async () => {
    expect(doc.openapi).toMatch(/^3\.1\./)
    const problems = await lintOpenApi(doc)
    // the service is private and has no licence to name (a made-up one would be worse than none)
    const expected = problems.filter((p) => p.severity === "warn" && p.rule === "info-license")
    expect(
      problems.filter((p) => !expected.includes(p)).map((p) => `${p.severity} ${p.rule} at ${p.where}: ${p.message}`)
    ).toEqual([])
  })

  it("names each path parameter position once across /v2/signals/...", () => {
    const byShape = new Map<string, Set<string>>()
    for (const path of Object.keys(doc.paths)) {
      const shape = routeShape(path)
      byShape.set(shape, new Set([...(byShape.get(shape) ?? []), path]))
    }
    expect([...byShape.values()].filter((paths) => paths.size > 1).map((paths) => [...paths])).toEqual([])
    const names = new Map<number, Set<string>>()
    for (const path of Object.keys(doc.paths).filter((p) => p.startsWith("/v2/signals/"))) {
      path.split("/").forEach((segment, i) => {
        const name = /^\{(.+)\}$/.exec(segment)?.[1]
        if (name !== undefined) names.set(i, new Set([...(names.get(i) ?? []), name]))
      })
    }
    expect(Object.fromEntries([...names].map(([i, set]) => [i, [...set]]))).toEqual({
      3: ["signal"],
      4: ["ticker"],
      6: ["interval"]
    })
  })

  it("declares every endpoint of the spec's table, and those it references, with its method", () => {
    const declared = new Set<string>()
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of Object.keys(item)) declared.add(routeShape(`${method.toUpperCase()} ${path}`))
    }
    const missing = [...SPEC_ROUTES, ...SPEC_REFERENCED_ROUTES].filter((route) => !declared.has(routeShape(route)))
    expect(missing).toEqual([])
  })

  it("declares the request policy's answers and the headers of every answer where they apply", () => {
    const problems: Array<string> = []
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const where = `${method.toUpperCase()} ${path}`
        const statuses = Object.keys(op.responses).map(Number)
        const bodied = !["get", "head", "options"].includes(method) && path !== "/admin/import"
        // the keyless sandbox takes no Idempotency-Key: it is scoped to an API key
        const idempotent = method === "post" && path.startsWith("/v2/") && !path.startsWith("/v2/sandbox/")
        const expected: Record<number, boolean> = {
          408: true,
          431: true,
          413: path !== "/admin/import",
          415: bodied,
          422: idempotent,
          // the dashboard's sign-in: its lockout (not a rate limit: no X-RateLimit headers)
          429: path.startsWith("/v2/") || (method === "post" && path === "/dashboard/api/session")
        }
        for (const [status, declared] of Object.entries(expected)) {
          if (statuses.includes(Number(status)) !== declared) {
            problems.push(`${where}: ${status} ${declared ? "not declared" : "declared where it cannot happen"}`)
          }
        }
        // every /v2 request is answered 503 past its deadline (and when the database cannot answer)
        if (path.startsWith("/v2/") && !statuses.includes(503)) problems.push(`${where}: 503 not declared`)
        if (idempotent && !statuses.includes(409))
          problems.push(`${where}: 409 (idempotency key in progress) not declared`)
        const key = (op.parameters ?? []).some((p: any) => p.in === "header" && p.name === "Idempotency-Key")
        if (key !== idempotent) problems.push(`${where}: Idempotency-Key ${idempotent ? "not declared" : "declared"}`)
        const limited = path.startsWith("/v2/")
        for (const status of statuses) {
          const headers = declaredHeaders(doc, `${method} ${path}`, status)
          const want: Record<string, boolean | undefined> = {
            "x-request-id": true,
            "retry-after": status === 429 ? true : undefined,
            // a replay by idempotency too: it answers after authentication and the rate limiter
            "x-ratelimit-limit":
              limited && statuses.includes(429) && (status === 429 || status < 300) ? true : undefined
          }
          if (limited && statuses.includes(429) && status < 300 && headers["x-ratelimit-limit"] === undefined) {
            problems.push(`${where} ${status}: no X-RateLimit-Limit declared on a rate-limited success`)
          }
          for (const [name, required] of Object.entries(want)) {
            if (required !== undefined && headers[name] !== required) {
              problems.push(
                `${where} ${status}: ${name} ${headers[name] === undefined ? "not declared" : "not required"}`
              )
            }
          }
        }
      }
    }
    expect(problems).toEqual([])
  })

  it("answers what the request policy refuses (413, 415, 422, 429, 431, unknown query parameters) as declared", async () => {
    const failures: Array<string> = []
    const replay = replayer(failures)
    const account = async (plan: string) => {
      const created = await admin(server, "POST", "/admin/accounts", { plan })
      expect(created.status).toBe(201)
      return created.body.api_key as string
    }
    const [pro, free] = await Promise.all(["pro", "free"].map(account))

    // bodies over 1 MB, in another media type than JSON, headers over 16 KB
    await replay("POST /v2/scan", "/v2/scan", 413, { key: pro, body: { q: "price > 1", pad: "x".repeat(1_100_000) } })
    await replay("POST /v2/universes", "/v2/universes", 415, { key: pro, raw: { type: "text/plain", text: "AAPL" } })
    await replay("GET /v2/account", "/v2/account", 431, { key: pro, headers: { "x-padding": "x".repeat(20_000) } })

    // an Idempotency-Key: the same request is replayed as it was answered, another one is 422
    const universe = { id: "oa_once", name: "Once", tickers: ["AAPL"] }
    const once = { key: pro, headers: { "idempotency-key": "oa-policy-1" } }
    const first = await replay("POST /v2/universes", "/v2/universes", 201, { ...once, body: universe })
    const again = await replay("POST /v2/universes", "/v2/universes", 201, { ...once, body: universe })
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.body).toEqual(first.body)
    await replay("POST /v2/universes", "/v2/universes", 422, { ...once, body: { ...universe, name: "Twice" } })

    // a Free key's 60 requests a minute spent: 429 with Retry-After and the rate-limit headers
    for (let i = 0; i < 60; i++) await api(server, free, "/v2/market/status")
    const limited = await replay("GET /v2/account", "/v2/account", 429, { key: free })
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)

    // unknown query parameters are 400 on every operation, naming them (dummy path values: refused before any lookup)
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of Object.keys(item)) {
        const op = `${method.toUpperCase()} ${path}`
        const url = `${path.replace("{ticker}", "AAPL").replace(/\{[^}]+\}/g, "oa_none")}?zz_unknown=1`
        const who = path.startsWith("/admin/") ? ADMIN_TOKEN : pro
        const res = await replay(op, url, 400, { key: who, ...(method === "get" ? {} : { body: {} }) })
        if (res.status === 400 && !String(res.body?.error?.message).includes("zz_unknown")) {
          failures.push(`${op}: 400 not naming the unknown parameter: ${JSON.stringify(res.body)}`)
        }
      }
    }
    expect(failures).toEqual([])
  }, 120_000)

  it("answers a sample of real requests per group with the body the document declares for each status", async () => {
    const failures: Array<string> = []
    const replayResponse = replayer(failures)
    const replay = async (...args: Parameters<typeof replayResponse>) => (await replayResponse(...args)).body
    /** `[operation, url, expected status, request]`, replayed in order */
    type Case = readonly [op: string, url: string, status: number, request?: Sent]
    const replayAll = async (cases: ReadonlyArray<Case>) => {
      for (const [op, url, status, request] of cases) await replay(op, url, status, request)
    }
    const account = async (plan: string) => {
      const created = await admin(server, "POST", "/admin/accounts", { plan })
      expect(created.status).toBe(201)
      return created.body.api_key as string
    }
    const [scale, pro, hobby, free, none, throttled] = await Promise.all(
      ["scale", "pro", "hobby", "free", "none", "free"].map(account)
    )
    const P = { key: pro }
    const asPro = (body: unknown): Sent => ({ key: pro, body })
    const asAdmin = (body?: unknown): Sent => ({ key: ADMIN_TOKEN, body })

    // signals: the flag history is built on first use (SIGNAL_FLAG_HISTORY=lazy): 503 until then
    await replay("GET /v2/signals/{signal}/stats", "/v2/signals/golden_cross/stats", 503, P)

    // one operation per /v2 group, for the statuses of authentication and rate limiting
    const scan = { q: "price > 1", limit: 2 }
    const backtest = {
      q: "price > 1",
      universe: "top_10",
      from: "2026-09-01",
      to: "2026-10-30",
      every: "1mo",
      hold: "5d"
    }
    const perGroup: ReadonlyArray<readonly [string, string, unknown?]> = [
      ["GET /v2/account", "/v2/account"],
      ["GET /v2/tickers", "/v2/tickers"],
      ["GET /v2/market/status", "/v2/market/status"],
      ["GET /v2/universes", "/v2/universes"],
      ["POST /v2/scan", "/v2/scan", scan],
      ["GET /v2/rules", "/v2/rules"],
      ["GET /v2/signals", "/v2/signals"],
      ["GET /v2/webhooks", "/v2/webhooks"],
      ["POST /v2/devices/register", "/v2/devices/register", { platform: "ios", token: "oa-token-2" }],
      ["GET /v2/notifications", "/v2/notifications"],
      ["POST /v2/news/scan", "/v2/news/scan", {}]
    ]
    for (const [op, url, body] of perGroup) {
      await replay(op, url, 401, { body })
      await replay(op, url, 402, { key: none, body })
    }

    const created = await replay("POST /admin/accounts", "/admin/accounts", 201, asAdmin({ plan: "hobby" }))
    const key = await replay(
      "POST /admin/accounts/{account_id}/keys",
      `/admin/accounts/${created.account_id}/keys`,
      201,
      asAdmin({ mode: "live" })
    )
    // the dashboard's session: signed in by cookie (no key), a change with the session's CSRF token
    const SESSION = "/dashboard/api/session"
    const dash = await replay("POST /admin/users", "/admin/users", 201, asAdmin({ email: "dash@example.com" }))
    const login = { email: "dash@example.com", password: dash.password }
    await replay(`POST ${SESSION}`, SESSION, 401, { body: { ...login, password: "not the password" } })
    const signed = await replayResponse(`POST ${SESSION}`, SESSION, 200, { body: login })
    const cookie = String(signed.headers.get("set-cookie")).split(";")[0]!
    await replay(`GET ${SESSION}`, SESSION, 401)
    const who = await replay(`GET ${SESSION}`, SESSION, 200, { headers: { cookie } })
    const csrf = { cookie, "x-csrf-token": who.csrf_token }
    await replay("GET /dashboard/api/keys", "/dashboard/api/keys", 200, { headers: { cookie } })
    const issued = await replay("POST /dashboard/api/keys", "/dashboard/api/keys", 201, { headers: csrf, body: {} })
    const revokeUrl = `/dashboard/api/keys/${issued.key_id}`
    await replay("DELETE /dashboard/api/keys/{key_id}", revokeUrl, 200, { headers: csrf })
    await replay("DELETE /dashboard/api/keys/{key_id}", revokeUrl, 404, { headers: csrf })
    await replay("GET /dashboard/api/tickers/{ticker}/bars", "/dashboard/api/tickers/AAPL/bars", 200, {
      headers: { cookie }
    })
    await replay("GET /dashboard/api/tickers/{ticker}/bars", "/dashboard/api/tickers/AAPL/bars?interval=2d", 400, {
      headers: { cookie }
    })
    await replay(`DELETE ${SESSION}`, SESSION, 403, { headers: { cookie } })
    await replay(`DELETE ${SESSION}`, SESSION, 200, { headers: { cookie, "x-csrf-token": who.csrf_token } })
    for (let k = 0; k < 4; k++)
      await replay(`POST ${SESSION}`, SESSION, 401, { body: { ...login, password: `wrong ${k}` } })
    await replay(`POST ${SESSION}`, SESSION, 401, { body: { ...login, password: "wrong again" } })
    await replay(`POST ${SESSION}`, SESSION, 429, { body: login })
    await replayAll([
      ["GET /healthz", "/healthz", 200],
      ["GET /readyz", "/readyz", 200],
      ["GET /metrics", "/metrics", 200],

      ["POST /admin/accounts", "/admin/accounts", 400, asAdmin({ plan: "gold" })],
      ["POST /admin/accounts", "/admin/accounts", 401, { body: { plan: "pro" } }],
      ["PATCH /admin/accounts/{account_id}", `/admin/accounts/${created.account_id}`, 200, asAdmin({ plan: "pro" })],
      ["PATCH /admin/accounts/{account_id}", "/admin/accounts/acc_nope", 404, asAdmin({ plan: "pro" })],
      ["DELETE /admin/keys/{key_id}", `/admin/keys/${key.key_id}`, 200, asAdmin()],
      ["DELETE /admin/keys/{key_id}", `/admin/keys/${key.key_id}`, 404, asAdmin()],
      ["POST /admin/users", "/admin/users", 201, asAdmin({ email: "openapi@example.com", plan: "pro" })],
      ["POST /admin/users", "/admin/users", 409, asAdmin({ email: "OpenAPI@example.com" })],
      ["POST /admin/users", "/admin/users", 400, asAdmin({ email: "nope" })],
      ["POST /admin/users", "/admin/users", 404, asAdmin({ email: "other@example.com", account_id: "acc_nope" })],

      ["GET /v2/account", "/v2/account", 200, P],
      ["GET /v2/account", "/v2/account?verbose=1", 400, P],

      ["GET /v2/tickers", "/v2/tickers?limit=2", 200, P],
      ["GET /v2/tickers", "/v2/tickers?tickers=AAPL,ZZZZQX", 200, P],
      ["GET /v2/tickers", "/v2/tickers?cursor=bogus", 400, P],
      ["GET /v2/tickers/{ticker}", "/v2/tickers/aapl", 200, P],
      ["GET /v2/tickers/{ticker}", "/v2/tickers/AAPL?asof=2026-03-02", 200, P],
      ["GET /v2/tickers/{ticker}", "/v2/tickers/ZZZZQX", 404, P],
      ["GET /v2/tickers/{ticker}", "/v2/tickers/AAPL?asof=yesterday", 400, P],
      ["GET /v2/tickers/{ticker}/history", "/v2/tickers/AAPL/history?asof=2026-03-02", 200, P],
      ["GET /v2/tickers/{ticker}/history", "/v2/tickers/AAPL/history", 400, P],
      ["GET /v2/tickers/{ticker}/history", "/v2/tickers/AAPL/history?asof=1990-01-02", 404, { key: scale }],
      ["GET /v2/tickers/{ticker}/coverage", "/v2/tickers/AAPL/coverage", 200, P],
      ["GET /v2/tickers/{ticker}/coverage", "/v2/tickers/ZZZZQX/coverage", 404, P],
      ["GET /v2/tickers/{ticker}/coverage", "/v2/tickers/AAPL/coverage?x=1", 400, P],

      ["GET /v2/market/status", "/v2/market/status", 200, P],
      ["GET /v2/market/status", "/v2/market/status?at=now", 400, P]
    ])

    const universe = { id: "oa_list", name: "OpenAPI list", tickers: ["AAPL", "MSFT"] }
    await replayAll([
      ["POST /v2/universes", "/v2/universes", 201, asPro(universe)],
      ["POST /v2/universes", "/v2/universes", 409, asPro(universe)],
      ["POST /v2/universes", "/v2/universes", 400, asPro({ name: "unknown", tickers: ["AAPL", "ZZZZQX"] })],
      ["GET /v2/universes", "/v2/universes", 200, P],
      ["GET /v2/universes/system", "/v2/universes/system", 200, P],
      ["GET /v2/universes/{id}", "/v2/universes/oa_list", 200, P],
      ["GET /v2/universes/{id}", "/v2/universes/top_10", 200, P],
      ["GET /v2/universes/{id}", "/v2/universes/oa_nope", 404, P],
      ["PATCH /v2/universes/{id}", "/v2/universes/oa_list", 200, asPro({ add: ["SPY"] })],
      ["PATCH /v2/universes/{id}", "/v2/universes/top_10", 403, asPro({ name: "mine" })],
      ["PATCH /v2/universes/{id}", "/v2/universes/oa_nope", 404, asPro({ name: "x" })],
      ["POST /v2/universes", "/v2/universes", 201, asPro({ id: "oa_gone", name: "gone", tickers: ["AAPL"] })],
      ["DELETE /v2/universes/{id}", "/v2/universes/oa_gone", 200, P],
      ["DELETE /v2/universes/{id}", "/v2/universes/top_100", 403, P],

      ["POST /v2/scan", "/v2/scan", 200, asPro(scan)],
      ["POST /v2/scan", "/v2/scan", 200, asPro({ ...scan, universe: "oa_list", fields: "rsi_14", order: "price" })],
      ["POST /v2/scan", "/v2/scan", 200, asPro({ ...scan, asof: "2026-03-02" })],
      ["GET /v2/scan", "/v2/scan?q=price%20%3E%201&limit=2&universe=top_10", 200, P],
      ["POST /v2/scan/history", "/v2/scan/history", 200, asPro({ ...scan, asof: "2026-03-02" })],
      ["GET /v2/scan/history", "/v2/scan/history?q=price%20%3E%201&asof=2026-03-02", 200, P],
      ["POST /v2/scan", "/v2/scan", 400, asPro({ q: "price >" })],
      ["POST /v2/scan", "/v2/scan", 400, asPro({ q: "nope_column > 1" })],
      ["POST /v2/scan", "/v2/scan", 404, asPro({ ...scan, universe: "oa_nope" })],
      ["POST /v2/scan/backtest", "/v2/scan/backtest", 200, asPro(backtest)],
      ["POST /v2/scan/backtest", "/v2/scan/backtest", 200, asPro({ ...backtest, q: "price < 0", limit: 2 })],
      ["POST /v2/scan/backtest", "/v2/scan/backtest", 400, asPro({ ...backtest, hold: "5" })],
      ["POST /v2/scan/backtest", "/v2/scan/backtest", 400, asPro({ ...backtest, from: "2019-01-02" })],
      ["POST /v2/scan/backtest", "/v2/scan/backtest", 404, asPro({ ...backtest, universe: "oa_nope" })]
    ])

    const rule = await replay(
      "POST /v2/rules",
      "/v2/rules",
      201,
      asPro({ name: "cheap", q: "price < 5", order: "price", universe: "oa_list" })
    )
    await replayAll([
      ["POST /v2/rules", "/v2/rules", 400, asPro({ name: "no q" })],
      ["POST /v2/rules", "/v2/rules", 404, asPro({ name: "x", q: "price > 1", universe: "oa_nope" })],
      ["GET /v2/rules", "/v2/rules", 200, P],
      ["GET /v2/rules/{id}", `/v2/rules/${rule.id}`, 200, P],
      ["GET /v2/rules/{id}", "/v2/rules/rule_nope", 404, P],
      ["PATCH /v2/rules/{id}", `/v2/rules/${rule.id}`, 200, asPro({ name: "cheaper" })],
      ["POST /v2/scan", "/v2/scan", 200, asPro({ rule: rule.id, limit: 2 })],
      ["DELETE /v2/rules/{id}", `/v2/rules/${rule.id}`, 200, P]
    ])

    // a Pro account's custom signal, the account downgraded to Hobby: a scan or rule naming it is 403
    const downgraded = await replay("POST /admin/accounts", "/admin/accounts", 201, asAdmin({ plan: "pro" }))
    const D = { key: downgraded.api_key as string }
    await replay("POST /v2/signals", "/v2/signals", 201, { ...D, body: { name: "oa_mine", expr: "price > 1" } })
    const patch = `/admin/accounts/${downgraded.account_id}`
    await replay("PATCH /admin/accounts/{account_id}", patch, 200, asAdmin({ plan: "hobby" }))
    for (const [op, url, body] of [
      ["POST /v2/scan", "/v2/scan", { q: "oa_mine", limit: 2 }],
      ["POST /v2/rules", "/v2/rules", { name: "mine", q: "oa_mine AND price < 5" }]
    ] as const) {
      const refused = await replay(op, url, 403, { ...D, body })
      if (refused?.error?.code !== "custom_signals_tier_required") {
        failures.push(`${op}: 403 not custom_signals_tier_required: ${JSON.stringify(refused)}`)
      }
    }

    const history = "GET /v2/signals/{signal}/{ticker}/history/{interval}"
    const events = "GET /v2/signals/{signal}/{ticker}/events"
    await replayAll([
      ["GET /v2/signals", "/v2/signals", 200, P],
      ["GET /v2/signals", "/v2/signals?kind=bogus", 400, P],
      ["POST /v2/signals", "/v2/signals", 201, asPro({ name: "oa_hot", expr: "relative_volume > 2" })],
      ["POST /v2/signals", "/v2/signals", 201, asPro({ name: "oa_warm", expr: "oa_hot AND price > 5" })],
      ["POST /v2/signals", "/v2/signals", 409, asPro({ name: "oa_hot", expr: "price > 1" })],
      ["POST /v2/signals", "/v2/signals", 400, asPro({ name: "oa_bad", expr: "price >" })],
      ["POST /v2/signals", "/v2/signals", 403, { key: hobby, body: { name: "oa_hot", expr: "price > 1" } }],
      ["PATCH /v2/signals/{signal}", "/v2/signals/oa_hot", 200, asPro({ description: "hot" })],
      ["PATCH /v2/signals/{signal}", "/v2/signals/oa_nope", 404, asPro({ description: "x" })],
      ["DELETE /v2/signals/{signal}", "/v2/signals/oa_hot", 409, P],
      ["GET /v2/signals/{signal}", "/v2/signals/golden_cross?limit=2", 200, P],
      ["GET /v2/signals/{signal}", "/v2/signals/rsi_14?condition=%3E70&limit=2", 200, P],
      ["GET /v2/signals/{signal}", "/v2/signals/golden_cross?asof=2026-03-02&limit=2", 200, P],
      ["GET /v2/signals/{signal}", "/v2/signals/oa_warm?limit=2", 200, P],
      ["GET /v2/signals/{signal}", "/v2/signals/rsi_14", 400, P],
      ["GET /v2/signals/{signal}", "/v2/signals/oa_nope", 404, P],
      [history, "/v2/signals/rsi_14/AAPL/history/1d?limit=3", 200, P],
      [history, "/v2/signals/oa_warm/AAPL/history/1d?limit=3", 200, P],
      [history, "/v2/signals/rsi_14/AAPL/history/1m", 400, P],
      [history, "/v2/signals/oa_nope/AAPL/history/1d", 404, P],
      [events, "/v2/signals/oa_warm/AAPL/events", 400, P],
      [events, "/v2/signals/golden_cross/ZZZZQX/events", 404, P],
      ["GET /v2/signals/{signal}/stats", "/v2/signals/rsi_14/stats", 400, P],
      ["GET /v2/signals/{signal}/stats", "/v2/signals/oa_nope/stats", 404, P]
    ])

    const target_url = receiver.url("/hook")
    const subscribe = "POST /v2/tickers/{ticker}/subscribe"
    const hook = await replay(
      subscribe,
      "/v2/tickers/aapl/subscribe",
      200,
      asPro({ condition: "price > 0", target_url })
    )
    const test = await replay("POST /v2/webhooks/{id}/test", `/v2/webhooks/${hook.id}/test`, 202, P)
    const webhook = `/v2/webhooks/${hook.id}`
    await replayAll([
      [subscribe, "/v2/tickers/aapl/subscribe", 400, asPro({ target_url })],
      [subscribe, "/v2/tickers/ZZZZQX/subscribe", 404, asPro({ condition: "price > 0" })],
      [subscribe, "/v2/tickers/aapl/subscribe", 403, { key: free, body: { condition: "price > 0" } }],
      [subscribe, "/v2/tickers/aapl/subscribe", 501, asPro({ condition: "price > 0", channel: "slack" })],
      [
        "POST /v2/signals/{signal}/subscribe",
        "/v2/signals/golden_cross/subscribe",
        200,
        asPro({ universe: "oa_list" })
      ],
      ["POST /v2/signals/{signal}/subscribe", "/v2/signals/rsi_14/subscribe", 200, asPro({ condition: ">70" })],
      ["POST /v2/signals/{signal}/subscribe", "/v2/signals/rsi_14/subscribe", 400, asPro({})],
      ["POST /v2/signals/{signal}/subscribe", "/v2/signals/oa_nope/subscribe", 404, asPro({})],
      ["POST /v2/webhooks", "/v2/webhooks", 201, asPro({ q: "price > 1", target_url })],
      ["POST /v2/webhooks", "/v2/webhooks", 404, asPro({ q: "price > 1", universe: "oa_nope" })],
      ["GET /v2/webhooks", "/v2/webhooks", 200, P],
      ["GET /v2/webhooks/{id}", webhook, 200, P],
      ["GET /v2/webhooks/{id}", "/v2/webhooks/not-an-id", 400, P],
      ["GET /v2/webhooks/{id}", "/v2/webhooks/wh_0000000000000000", 404, P],
      ["PATCH /v2/webhooks/{id}", webhook, 200, asPro({ name: "renamed" })],
      ["POST /v2/webhooks/{id}/rotate-secret", `${webhook}/rotate-secret`, 200, P],
      ["POST /v2/webhooks/{id}/disable", `${webhook}/disable`, 200, P],
      ["POST /v2/webhooks/{id}/enable", `${webhook}/enable`, 200, P],
      ["GET /v2/webhooks/{id}/deliveries", `${webhook}/deliveries`, 200, P],
      ["GET /v2/webhooks/{id}/deliveries", `${webhook}/deliveries?status=lost`, 400, P],
      [
        "POST /v2/webhooks/{id}/deliveries/{delivery_id}/retry",
        `${webhook}/deliveries/${test.delivery?.id}/retry`,
        409,
        P
      ],
      ["POST /v2/devices/register", "/v2/devices/register", 201, asPro({ platform: "android", token: "oa-token" })],
      ["POST /v2/devices/register", "/v2/devices/register", 400, asPro({ platform: "palm", token: "oa-token" })],
      [
        "POST /v2/devices/register",
        "/v2/devices/register",
        403,
        { key: free, body: { platform: "android", token: "oa-token" } }
      ],
      ["GET /v2/notifications", "/v2/notifications", 200, P],
      ["GET /v2/notifications", "/v2/notifications?unread=maybe", 400, P],
      ["GET /v2/notifications", "/v2/notifications", 403, { key: free }],
      ["POST /v2/notifications/read", "/v2/notifications/read", 200, asPro({ ids: [] })],
      ["DELETE /v2/webhooks/{id}", webhook, 200, P]
    ])

    const news = await replay("POST /v2/news/scan", "/v2/news/scan", 200, asPro({ tickers: ["AAPL"], limit: 2 }))
    const archive = { tickers: ["AAPL"], from: new Date(Date.parse(news.as_of) - 10 * 86_400_000).toISOString() }
    await replayAll([
      ["POST /v2/news/scan", "/v2/news/scan", 403, { key: hobby, body: archive }],
      ["POST /v2/news/scan", "/v2/news/scan", 400, asPro({ foo: 1 })],
      ["POST /v2/sandbox/news/scan", "/v2/sandbox/news/scan", 200, { body: { limit: 2 } }],
      ["POST /v2/sandbox/news/scan", "/v2/sandbox/news/scan", 400, { body: { limit: "two" } }]
    ])

    // 429: a Free key (60 a minute) spent, then one request per group within the same minute
    for (let i = 0; i < 60; i++) await api(server, throttled, "/v2/account")
    for (const [op, url, body] of perGroup) await replay(op, url, 429, { key: throttled, body })

    // signals once the flag history is built (as test/api/signals/events.test.ts, up to 7 minutes on a loaded machine)
    const deadline = Date.now() + 420_000
    while ((await api(server, pro, "/v2/signals/golden_cross/stats")).status === 503 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500))
    }
    await replayAll([
      ["GET /v2/signals/{signal}/stats", "/v2/signals/golden_cross/stats", 200, P],
      ["GET /v2/signals/{signal}/stats", "/v2/signals/oa_warm/stats?universe=oa_list", 200, P],
      [events, "/v2/signals/golden_cross/AAPL/events", 200, P],
      ["DELETE /v2/signals/{signal}", "/v2/signals/oa_warm", 200, P],
      ["DELETE /v2/signals/{signal}", "/v2/signals/oa_hot", 200, P]
    ])

    expect(failures).toEqual([])

    // every group: a success and each error status its operations document, bar the unreachable ones
    const uncovered: Array<string> = []
    const documented = new Map<string, Set<number>>()
    for (const item of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) {
        const group = op.tags[0] as string
        for (const status of Object.keys(op.responses).map(Number)) {
          documented.set(group, new Set([...(documented.get(group) ?? []), status]))
        }
      }
    }
    for (const [group, statuses] of documented) {
      const replayed = covered.get(group) ?? new Set()
      if (![...replayed].some((s) => s < 300)) uncovered.push(`${group}: no success replayed`)
      for (const status of statuses) {
        if (
          status >= 400 &&
          !replayed.has(status) &&
          !POLICY_STATUSES.includes(status) &&
          UNREACHABLE[status] === undefined &&
          UNREACHABLE[`${group} ${status}`] === undefined
        ) {
          uncovered.push(`${group}: ${status} documented, not replayed`)
        }
      }
    }
    expect(uncovered).toEqual([])
  }, 600_000)
})
