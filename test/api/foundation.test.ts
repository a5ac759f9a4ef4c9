import { spawnSync } from "node:child_process"
import { resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { syntheticYahooCsv } from "../support/fixtures.js"
import { SAMPLE, startService } from "../support/inProcess.js"
import { admin, api, SERVICE_ENTRY, startServer } from "../support/server.js"
import { DATABASE_URL, NEEDS_POSTGRES } from "../support/servers.js"
import { serveForSuite } from "../support/suiteServer.js"

const expectEnvelope = (body: any, code: string) => {
  expect(body.error.code).toBe(code)
  expect(typeof body.error.message).toBe("string")
  expect(body.error.message.length).toBeGreaterThan(0)
  expect(body.error.request_id).toMatch(/^req_/)
}

describe("foundation over HTTP", () => {
  const server = serveForSuite()

  it("answers the probes", async () => {
    expect((await api(server, undefined, "/healthz")).body).toEqual({ status: "ok" })
    expect((await api(server, undefined, "/readyz")).status).toBe(200)
  })

  it("creates an account whose key authenticates; a revoked key gets 401 in the envelope", async () => {
    const created = await admin(server, "POST", "/admin/accounts", { plan: "pro" })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ plan: "pro" })
    expect(created.body.account_id).toMatch(/^acc_/)
    expect(created.body.key_id).toMatch(/^key_/)
    expect(created.body.api_key).toMatch(/^vigil_test_[0-9A-Za-z]{43}$/)

    const me = await api(server, created.body.api_key, "/v2/account")
    expect(me.status).toBe(200)
    expect(me.body).toEqual({
      account_id: created.body.account_id,
      key_id: created.body.key_id,
      plan: "pro",
      rate_limit_per_minute: 6000
    })
    expect(me.headers.get("x-request-id")).toMatch(/^req_/)

    const live = await admin(server, "POST", `/admin/accounts/${created.body.account_id}/keys`, { mode: "live" })
    expect(live.status).toBe(201)
    expect(live.body.api_key).toMatch(/^vigil_live_/)

    const revoked = await admin(server, "DELETE", `/admin/keys/${created.body.key_id}`)
    expect(revoked).toMatchObject({ status: 200, body: { ok: true } })
    const refused = await api(server, created.body.api_key, "/v2/account")
    expect(refused.status).toBe(401)
    expectEnvelope(refused.body, "unauthenticated")
    expect(refused.body.error.request_id).toBe(refused.headers.get("x-request-id"))
    expect((await api(server, live.body.api_key, "/v2/account")).status).toBe(200)
    expect((await admin(server, "DELETE", `/admin/keys/${created.body.key_id}`)).status).toBe(404)
  })

  it("gives 401 for missing, malformed and unknown keys", async () => {
    for (const auth of [
      undefined,
      "Basic abc",
      "Bearer",
      "Bearer vigil_test_short",
      `Bearer vigil_test_${"a".repeat(43)}`
    ]) {
      const res = await api(
        server,
        undefined,
        "/v2/account",
        auth === undefined ? {} : { headers: { authorization: auth } }
      )
      expect(res.status).toBe(401)
      expectEnvelope(res.body, "unauthenticated")
    }
  })

  it("gives 402 subscription_required to an account on plan none", async () => {
    const created = await admin(server, "POST", "/admin/accounts", { plan: "none" })
    const res = await api(server, created.body.api_key, "/v2/account")
    expect(res.status).toBe(402)
    expectEnvelope(res.body, "subscription_required")
  })

  it("changes plans and an enterprise account's rate limit", async () => {
    const created = await admin(server, "POST", "/admin/accounts", { plan: "hobby" })
    const id = created.body.account_id
    const ent = await admin(server, "PATCH", `/admin/accounts/${id}`, {
      plan: "enterprise",
      rate_limit_per_minute: 500000
    })
    expect(ent).toMatchObject({
      status: 200,
      body: { account_id: id, plan: "enterprise", rate_limit_per_minute: 500000 }
    })
    expect((await api(server, created.body.api_key, "/v2/account")).body.rate_limit_per_minute).toBe(500000)
    const bad = await admin(server, "PATCH", `/admin/accounts/${id}`, { plan: "pro", rate_limit_per_minute: 5 })
    expect(bad.status).toBe(400)
    expectEnvelope(bad.body, "bad_request")
    const missing = await admin(server, "PATCH", "/admin/accounts/acc_nope", { plan: "pro" })
    expect(missing.status).toBe(404)
    expectEnvelope(missing.body, "not_found")
  })

  it("puts every error in the envelope: unknown route, bad JSON, bad values, wrong admin token", async () => {
    const unknown = await api(server, undefined, "/v2/nothing-here")
    expect(unknown.status).toBe(404)
    expectEnvelope(unknown.body, "not_found")

    const badJson = await api(server, undefined, "/admin/accounts", {
      method: "POST",
      body: '{"plan":',
      headers: { authorization: "Bearer test-admin-token" }
    })
    expect(badJson.status).toBe(400)
    expectEnvelope(badJson.body, "bad_request")

    const badPlan = await admin(server, "POST", "/admin/accounts", { plan: "gold" })
    expect(badPlan.status).toBe(400)
    expectEnvelope(badPlan.body, "bad_request")
    expect(badPlan.body.error.message).toContain("plan")

    const wrongToken = await api(server, "not-the-token", "/admin/accounts", { method: "POST", body: "{}" })
    expect(wrongToken.status).toBe(401)
    expectEnvelope(wrongToken.body, "unauthenticated")
  })

  it("applies a refresh on demand and answers with its as_of", async () => {
    const res = await admin(server, "POST", "/admin/refresh")
    expect(res.status).toBe(200)
    expect(Number.isNaN(Date.parse(res.body.as_of))).toBe(false)
    expect(res.body.as_of).toMatch(/^\d{4}-\d{2}-\d{2}T/)
  })

  it("imports a Yahoo-format CSV over HTTP, and refuses a bad one naming the line with nothing stored", async () => {
    const text = syntheticYahooCsv("QQQ")
    const post = (body: string, query = "?ticker=QQQ") =>
      fetch(`${server.url}/admin/import${query}`, {
        method: "POST",
        headers: { authorization: "Bearer test-admin-token", "content-type": "text/csv" },
        body
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))
    const ok = await post(text)
    expect(ok.status).toBe(200)
    // the contract's fields, and (issue 17, additive) the summary of the one file
    expect(ok.body).toMatchObject({ tickers: ["QQQ"], rows: 1113, from: "2017-01-03", to: "2021-06-04" })
    expect(ok.body.files).toEqual([
      {
        file: "QQQ.csv",
        layout: "per-ticker",
        rows: 1113,
        tickers: 1,
        from: "2017-01-03",
        to: "2021-06-04",
        skipped_tickers: 0,
        skipped_examples: []
      }
    ])

    const lines = text.split("\n")
    lines[5] = "2017-01-10,abc,1,1,1,1,1"
    const bad = await post(lines.join("\n"))
    expect(bad.status).toBe(400)
    expect(bad.body.error.code).toBe("bad_request")
    expect(bad.body.error.message).toContain("QQQ.csv:6: open is not a number")

    const untracked = await post("ticker,date,open,high,low,close,volume\nNOPE1,2020-01-02,1,1,1,1,1\n", "")
    expect(untracked.status).toBe(400)
    expect(untracked.body.error.message).toContain("NOPE1 is not tracked")

    const future = await post("ticker,date,open,high,low,close,volume\nQQQ,2099-01-02,1,1,1,1,1\n", "")
    expect(future.status).toBe(400)
    expect(future.body.error.message).toContain("not before the current session")
  })

  it("takes bodies as JSON only: another media type is 415, a bodiless request's type is ignored", async () => {
    const created = await admin(server, "POST", "/admin/accounts", { plan: "pro" })
    const key = created.body.api_key
    const raw = async (type: string, body: string, path = "/v2/rules") => {
      const res = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": type, "idempotency-key": `k-${Math.random()}` },
        body,
        signal: AbortSignal.timeout(10_000)
      })
      return { status: res.status, body: (await res.json()) as any }
    }
    const rule = JSON.stringify({ name: "r", q: "price > 5" })
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=xyz"]) {
      const refused = await raw(type, rule)
      expect(refused.status).toBe(415)
      expectEnvelope(refused.body, "unsupported_media_type")
      expect(refused.body.error.message).toContain("application/json")
    }
    // an empty multipart body once left the request without an answer
    const empty = await raw("multipart/form-data; boundary=xyz", "")
    expect(empty.status).toBe(400)
    expect(empty.body.error.message).toBe(
      "the request body is missing: send a JSON object with Content-Type: application/json"
    )
    expect((await raw("application/json", "[1]")).body.error.message).toBe(
      "the request body must be a JSON object, not [1]"
    )
    // `curl -X POST -d ''` labels an empty body as a form: endpoints without a body still work
    const hook = await api(server, key, "/v2/webhooks", {
      method: "POST",
      body: JSON.stringify({ q: "price > 5", channel: "in_app" })
    })
    expect(hook.status).toBe(201)
    const disabled = await raw("application/x-www-form-urlencoded", "", `/v2/webhooks/${hook.body.id}/disable`)
    expect(disabled.status).toBe(200)
    expect(disabled.body.status).toBe("disabled")
    // JSON with parameters, and structured +json types, are JSON
    expect((await raw("application/json; charset=utf-8", rule)).status).toBe(201)
    expect((await raw("application/merge-patch+json", JSON.stringify({ name: "r2", q: "price > 6" }))).status).toBe(201)
  })

  it("refuses a body over 1 MB with 413 in the envelope", async () => {
    const big = JSON.stringify({ plan: "pro", padding: "x".repeat(1_100_000) })
    const res = await fetch(`${server.url}/admin/accounts`, {
      method: "POST",
      headers: { authorization: "Bearer test-admin-token", "content-type": "application/json" },
      body: big
    }).catch((e) => e as Error)
    if (res instanceof Error) throw res
    expect(res.status).toBe(413)
    const body = (await res.json()) as any
    expect(body.error.code).toBe("payload_too_large")
  })

  it("serves the OpenAPI document and the interactive reference", async () => {
    const doc = await api(server, undefined, "/v2/openapi.json")
    expect(doc.status).toBe(200)
    expect(doc.body.openapi).toMatch(/^3\.1/)
    expect(Object.keys(doc.body.paths)).toContain("/v2/account")
    const docs = await fetch(`${server.url}/docs`)
    expect(docs.status).toBe(200)
    expect(docs.headers.get("content-type")).toContain("text/html")
  })

  it("echoes a caller's X-Request-Id", async () => {
    const res = await api(server, undefined, "/v2/account", { headers: { "x-request-id": "client-123" } })
    expect(res.headers.get("x-request-id")).toBe("client-123")
    expect(res.body.error.request_id).toBe("client-123")
  })

  it("exports HTTP metrics by route and status in Prometheus format", async () => {
    const res = await api(server, undefined, "/metrics")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/plain")
    expect(res.body).toContain("# TYPE http_requests_total counter")
    expect(res.body).toMatch(/http_requests_total\{method="GET",route="\/v2\/account",status="401"\} \d+/)
    expect(res.body).toContain("# TYPE http_request_duration_seconds histogram")
    expect(res.body).toMatch(
      /http_request_duration_seconds_bucket\{method="POST",route="\/admin\/accounts",status="201",le="\+Inf"\} \d+/
    )
  })

  it("exports the process's memory, CPU time and V8 heap by space", async () => {
    const res = await api(server, undefined, "/metrics")
    const value = (series: string) => Number(new RegExp(`^${series} ([0-9.e+]+)$`, "m").exec(res.body)?.[1])
    // a running service holds tens of MB at least: a real reading, not a placeholder
    expect(value("process_resident_memory_bytes")).toBeGreaterThan(20 * 2 ** 20)
    expect(value("nodejs_heap_size_used_bytes")).toBeGreaterThan(0)
    expect(value("nodejs_heap_size_total_bytes")).toBeGreaterThanOrEqual(value("nodejs_heap_size_used_bytes"))
    expect(value("process_cpu_user_seconds_total")).toBeGreaterThan(0)
    expect(res.body).toContain("# TYPE process_cpu_user_seconds_total counter")
    expect(value('nodejs_heap_space_size_used_bytes\\{space="old"\\}')).toBeGreaterThan(0)
  })

  it("writes one structured JSON log line per request with its request id, never the key", async () => {
    const created = await admin(server, "POST", "/admin/accounts", { plan: "scale" })
    await api(server, created.body.api_key, "/v2/account", { headers: { "x-request-id": "log-check-1" } })
    await new Promise((r) => setTimeout(r, 100))
    const line = server
      .logs()
      .split("\n")
      .find((l) => l.includes('"log-check-1"'))
    expect(line).toBeDefined()
    const parsed = JSON.parse(line!)
    expect(parsed.annotations).toMatchObject({ request_id: "log-check-1", route: "/v2/account", status: 200 })
    expect(server.logs()).not.toContain(created.body.api_key)
  })
})

describe("admin API without ADMIN_TOKEN", () => {
  it("answers 404 on every /admin route", async () => {
    const server = await startService({ ADMIN_TOKEN: "" }, SAMPLE)
    try {
      const res = await api(server, "anything", "/admin/accounts", { method: "POST", body: '{"plan":"pro"}' })
      expect(res.status).toBe(404)
      expectEnvelope(res.body, "not_found")
    } finally {
      await server.stop()
    }
  }, 120_000)
})

describe("process lifecycle", () => {
  it("refuses an invalid configuration with a message naming the variable", () => {
    const result = spawnSync(process.execPath, [...SERVICE_ENTRY], {
      cwd: resolve(import.meta.dirname, "../.."),
      env: { PATH: process.env.PATH ?? "", REFRESH_INTERVAL: "soon", PORT: "0" },
      encoding: "utf8",
      timeout: 30_000
    })
    expect(result.status).not.toBe(0)
    expect(result.stderr).toContain("REFRESH_INTERVAL must be a duration")
  })

  it.skipIf(DATABASE_URL === undefined)(
    `refuses a DATABASE_URL whose search_path names no schema (${NEEDS_POSTGRES})`,
    () => {
      const url = new URL(DATABASE_URL!)
      url.searchParams.set("options", "-csearch_path=no_such_schema_here")
      const result = spawnSync(process.execPath, [...SERVICE_ENTRY], {
        cwd: resolve(import.meta.dirname, "../.."),
        env: { PATH: process.env.PATH ?? "", DATABASE_URL: url.toString(), PORT: "0" },
        encoding: "utf8",
        timeout: 60_000
      })
      expect(result.status).not.toBe(0)
      expect(`${result.stdout}${result.stderr}`).toContain("search_path names no existing schema")
    }
  )

  it("shuts down on SIGTERM within 10 seconds", async () => {
    const server = await startServer({ HISTORY_DAYS: "30" })
    const started = Date.now()
    const code = await server.stop()
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(code).toBe(0)
  }, 120_000)
})
