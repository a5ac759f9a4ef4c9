/**
 * The direct create (src/api/direct/create.ts) against a real server: `POST /v2/webhooks` answered
 * before the router is the API's answer (the same keys, values and headers), counted once by the
 * rate limiter, logged and measured; `Idempotency-Key` keeps every rule (one create per key, the
 * answer replayed, another request with the key 422, concurrent ones 409); a full plan gets the
 * API's 403 envelope (kept for its key); every request the create's checks refuse is the API's.
 * Runs with the in-process limiter and, with REDIS_URL, the Redis limiter.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { admin, expectError } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"

const configs: ReadonlyArray<{ name: string; env: Record<string, string> }> = [
  { name: "in-process limiter", env: {} },
  ...(process.env.REDIS_URL ? [{ name: "Redis limiter", env: { REDIS_URL: process.env.REDIS_URL } }] : [])
]

interface Sent {
  readonly status: number
  readonly text: string
  readonly body: any
  readonly headers: Headers
}

/** The values of a created webhook that differ between two creates of the same body. */
const OWN = ["id", "created_at", "updated_at", "next_eval_at"]

describe.each(configs)("direct create ($name)", ({ env }) => {
  const server = serveForSuite({ REFRESH_INTERVAL: "1h", ...env })
  let key: string

  /**
   * A create; `viaApi` sends the body as a stream (chunked, no Content-Length), which the direct
   * path never reads, so the API answers it.
   */
  const create = async (
    body: unknown,
    init: { key?: string; headers?: Record<string, string>; viaApi?: boolean } = {}
  ): Promise<Sent> => {
    const text = JSON.stringify(body)
    const res = await fetch(`${server.url}/v2/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${init.key ?? key}`, "content-type": "application/json", ...init.headers },
      ...(init.viaApi
        ? {
            body: new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode(text))
                controller.close()
              }
            }),
            duplex: "half"
          }
        : { body: text })
    } as RequestInit)
    const answer = await res.text()
    return { status: res.status, text: answer, body: JSON.parse(answer), headers: res.headers }
  }

  /** creates answered on the direct path so far */
  const directCount = async () => {
    const lines = (await (await fetch(`${server.url}/metrics`)).text()).split("\n")
    const line = lines.find((l) => l.startsWith(`http_hot_lane_total{outcome="miss"}`))
    return line === undefined ? 0 : Number(line.split(" ")[1])
  }

  /** The request, and which path answered it. */
  const sent = async (request: () => Promise<Sent>) => {
    const before = await directCount()
    const answer = await request()
    return { answer, path: (await directCount()) === before + 1 ? "direct" : "api" }
  }

  const webhookCount = async (apiKey = key) => {
    const res = await fetch(`${server.url}/v2/webhooks?limit=100`, { headers: { authorization: `Bearer ${apiKey}` } })
    return ((await res.json()) as { count: number }).count
  }

  beforeAll(async () => {
    key = (await admin(server, "POST", "/admin/accounts", { plan: "scale" })).body.api_key
  }, 180_000)

  it("answers a create with the API's keys, values and headers, counted once", async () => {
    const bodies: ReadonlyArray<Record<string, unknown>> = [
      { q: "rsi_14 < 30", channel: "in_app" },
      { q: "price > 10 AND rsi_14 > 50", name: "busy", universe: "top_100", cadence: "hourly" },
      {
        q: "macd_histogram > 0",
        target_url: "https://hooks.example.com/vigil",
        fire_on: "both",
        cooldown: "1h",
        fields: ["price", "rsi_14"]
      }
    ]
    for (const body of bodies) {
      const viaApi = await sent(() => create(body, { viaApi: true }))
      expect(viaApi.path).toBe("api")
      const direct = await sent(() => create(body))
      expect(direct.path).toBe("direct")
      const [a, b] = [viaApi.answer, direct.answer]
      expect([a.status, b.status]).toEqual([201, 201])
      // the same keys in the same order, the same values but the webhook's own
      expect(Object.keys(b.body)).toEqual(Object.keys(a.body))
      for (const k of Object.keys(a.body))
        if (!OWN.includes(k) && k !== "signing_secret") expect(b.body[k]).toEqual(a.body[k])
      expect(b.body.id).not.toBe(a.body.id)
      expect(b.body.signing_secret === undefined).toBe(a.body.signing_secret === undefined)
      for (const h of ["content-type", "x-ratelimit-limit", "x-ratelimit-reset"]) {
        expect(b.headers.get(h), h).toBe(a.headers.get(h))
      }
      // counted once: the API's request and this one each took one from the limit
      expect(Number(b.headers.get("x-ratelimit-remaining"))).toBe(Number(a.headers.get("x-ratelimit-remaining")) - 1)
      expect(b.headers.get("x-request-id")).toMatch(/^req_/)
      expect(Number(b.headers.get("content-length"))).toBe(Buffer.byteLength(b.text))
    }
    // the caller's request id is kept; the request has its log line
    const own = await create(
      { q: "price > 1", channel: "in_app" },
      { headers: { "x-request-id": "req_directcreate01" } }
    )
    expect(own.headers.get("x-request-id")).toBe("req_directcreate01")
    // log lines are written in batches: wait for this one
    let line: string | undefined
    for (let i = 0; i < 50 && line === undefined; i++) {
      line = server
        .logs()
        .split("\n")
        .find((l) => l.includes('"request_id":"req_directcreate01"'))
      if (line === undefined) await new Promise((r) => setTimeout(r, 100))
    }
    expect(JSON.parse(line!).annotations).toMatchObject({ route: "/v2/webhooks", status: 201, method: "POST" })
  })

  it("keeps every Idempotency-Key rule: once, replayed, 422 for another request, 409 while running", async () => {
    const before = await webhookCount()
    const body = { q: "rsi_14 > 70", channel: "in_app", name: "idem" }
    const first = await sent(() => create(body, { headers: { "idempotency-key": "direct-create-1" } }))
    expect(first.path).toBe("direct")
    expect(first.answer.status).toBe(201)
    expect(first.answer.headers.get("idempotent-replayed")).toBeNull()
    // the retry is the API's replay, counted against the limit by the API alone
    const again = await sent(() => create(body, { headers: { "idempotency-key": "direct-create-1" } }))
    expect(again.path).toBe("api")
    expect(again.answer.status).toBe(201)
    expect(again.answer.headers.get("idempotent-replayed")).toBe("true")
    expect(again.answer.text).toBe(first.answer.text)
    expect(Number(again.answer.headers.get("x-ratelimit-remaining"))).toBe(
      Number(first.answer.headers.get("x-ratelimit-remaining")) - 1
    )
    const other = await create({ ...body, name: "other" }, { headers: { "idempotency-key": "direct-create-1" } })
    expectError({ status: other.status, body: other.body }, 422, "idempotency_key_reused")
    // a malformed key is the API's 400
    const bad = await sent(() => create(body, { headers: { "idempotency-key": "é" } }))
    expect(bad.path).toBe("api")
    expectError({ status: bad.answer.status, body: bad.answer.body }, 400, "bad_request")
    // sent together with one key: one create, the others replay it or are told it is running
    const together = await Promise.all(
      Array.from({ length: 8 }, () =>
        create({ ...body, name: "together" }, { headers: { "idempotency-key": "direct-create-2" } })
      )
    )
    const made = together.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null)
    expect(made).toHaveLength(1)
    for (const r of together) {
      if (r === made[0]) continue
      if (r.status === 201) expect(r.text).toBe(made[0]!.text)
      else expectError({ status: r.status, body: r.body }, 409, "idempotency_key_in_progress")
    }
    expect(await webhookCount()).toBe(before + 2)
  })

  it("answers a full plan with the API's 403, kept for its key; the create's refusals are the API's", async () => {
    const hobby = (await admin(server, "POST", "/admin/accounts", { plan: "hobby" })).body.api_key as string
    for (let i = 0; i < 10; i++) {
      expect((await create({ q: `price > ${i + 1}`, channel: "in_app" }, { key: hobby })).status).toBe(201)
    }
    const full = await sent(() =>
      create({ q: "price > 99", channel: "in_app" }, { key: hobby, headers: { "idempotency-key": "full-1" } })
    )
    expect(full.path).toBe("direct")
    expectError({ status: full.answer.status, body: full.answer.body }, 403, "webhook_limit_reached")
    expect(full.answer.body.error.request_id).toBe(full.answer.headers.get("x-request-id"))
    const replay = await create(
      { q: "price > 99", channel: "in_app" },
      { key: hobby, headers: { "idempotency-key": "full-1" } }
    )
    expect(replay.status).toBe(403)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(await webhookCount(hobby)).toBe(10)

    // what the create's checks refuse goes to the API, which answers as always
    const free = (await admin(server, "POST", "/admin/accounts", { plan: "free" })).body.api_key as string
    const refusals: ReadonlyArray<[string | undefined, unknown, number, string]> = [
      [undefined, { q: "price >", channel: "in_app" }, 400, "invalid_query"],
      [undefined, { channel: "in_app" }, 400, "bad_request"],
      [undefined, { q: "price > 1", channel: "in_app", universe: "nope" }, 404, "universe_not_found"],
      [undefined, { q: "price > 1", target_url: "http://127.0.0.1/hook" }, 400, "bad_request"],
      [undefined, { q: "price > 1", channel: "in_app", surprise: true }, 400, "bad_request"],
      [free, { q: "price > 1", channel: "in_app" }, 403, "webhook_tier_required"]
    ]
    for (const [apiKey, body, status, code] of refusals) {
      const refused = await sent(() => create(body, apiKey === undefined ? {} : { key: apiKey }))
      expect(refused.path, JSON.stringify(body)).toBe("api")
      expectError({ status: refused.answer.status, body: refused.answer.body }, status, code)
    }
  })
})
