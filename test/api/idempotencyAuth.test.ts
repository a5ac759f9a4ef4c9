/**
 * The request policy's order on authenticated routes: the caller is
 * authenticated and counted against its rate limit before an Idempotency-Key
 * is looked up (a revoked key never gets a stored answer; a replay counts and
 * carries the X-RateLimit-* headers) and before the query string is checked
 * (no key: 401, whatever the parameters).
 */
import { describe, expect, it } from "vitest"
import { ADMIN_TOKEN, admin, api, createAccount, expectError } from "../support/server.js"
import { serveForSuite } from "../support/suiteServer.js"

describe("Idempotency-Key and query parameters, after authentication", () => {
  const server = serveForSuite()
  const account = (plan: string) => createAccount(server, plan)
  const post = (key: string | undefined, path: string, body: unknown, idempotencyKey: string) =>
    api(server, key, path, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "idempotency-key": idempotencyKey }
    })

  it("answers a revoked key, or an account without a plan, 401/402, never the stored answer", async () => {
    const pro = await account("pro")
    const universe = { id: "idem_revoked", name: "Revoked", tickers: ["AAPL"] }
    expect((await post(pro.api_key, "/v2/universes", universe, "idem-1")).status).toBe(201)
    const replayed = await post(pro.api_key, "/v2/universes", universe, "idem-1")
    expect(replayed.status).toBe(201)
    expect(replayed.headers.get("idempotent-replayed")).toBe("true")

    expect((await admin(server, "DELETE", `/admin/keys/${pro.key_id}`)).status).toBe(200)
    const revoked = await post(pro.api_key, "/v2/universes", universe, "idem-1")
    expectError(revoked, 401, "unauthenticated")
    expect(revoked.headers.get("idempotent-replayed")).toBeNull()
    // nor does a request without a key learn anything of it
    expectError(await post(undefined, "/v2/universes", universe, "idem-1"), 401, "unauthenticated")

    const lapsed = await account("pro")
    const scan = { q: "price > 1", limit: 1 }
    expect((await post(lapsed.api_key, "/v2/scan", scan, "idem-2")).status).toBe(200)
    expect((await admin(server, "PATCH", `/admin/accounts/${lapsed.account_id}`, { plan: "none" })).status).toBe(200)
    const none = await post(lapsed.api_key, "/v2/scan", scan, "idem-2")
    expectError(none, 402, "subscription_required")
    expect(none.headers.get("idempotent-replayed")).toBeNull()
  })

  it("replays a stored error as it was answered, naming the replay's own request id", async () => {
    const pro = await account("pro")
    const bad = { q: "price >>> 1" }
    const first = await post(pro.api_key, "/v2/scan", bad, "idem-error")
    expectError(first, 400, "invalid_query")
    const again = await post(pro.api_key, "/v2/scan", bad, "idem-error")
    expectError(again, 400, "invalid_query")
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.headers.get("content-type")).toContain("application/json")
    const { request_id: firstId, ...firstError } = first.body.error
    const { request_id: againId, ...againError } = again.body.error
    expect(againError).toEqual(firstError)
    expect(againId).toBe(again.headers.get("x-request-id"))
    expect(againId).not.toBe(firstId)
  })

  it("keeps an Idempotency-Key to the API key that sent it: another account's key gets its own answer", async () => {
    const [a, b] = await Promise.all([account("pro"), account("pro")])
    const scan = { q: "price > 1", limit: 1 }
    expect((await post(a.api_key, "/v2/scan", scan, "idem-shared")).status).toBe(200)
    const other = await post(b.api_key, "/v2/scan", scan, "idem-shared")
    expect(other.status).toBe(200)
    expect(other.headers.get("idempotent-replayed")).toBeNull()
    expect((await post(a.api_key, "/v2/scan", scan, "idem-shared")).headers.get("idempotent-replayed")).toBe("true")
  })

  it("counts a replay against the rate limit, with the X-RateLimit-* headers", async () => {
    const free = await account("free")
    const scan = { q: "price > 1", limit: 1 }
    const first = await post(free.api_key, "/v2/scan", scan, "idem-count")
    expect(first.status).toBe(200)
    const remaining = Number(first.headers.get("x-ratelimit-remaining"))
    const replay = await post(free.api_key, "/v2/scan", scan, "idem-count")
    expect(replay.status).toBe(200)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.headers.get("x-ratelimit-limit")).toBe("60")
    expect(replay.headers.get("x-ratelimit-reset")).not.toBeNull()
    expect(Number(replay.headers.get("x-ratelimit-remaining"))).toBe(remaining - 1)
    // the 60 requests a minute of Free, spent by replays alone: then 429, not another replay
    const statuses: Array<number> = []
    for (let i = 0; i < 65 && statuses.at(-1) !== 429; i++) {
      statuses.push((await post(free.api_key, "/v2/scan", scan, "idem-count")).status)
    }
    expect(statuses.at(-1)).toBe(429)
    expect(statuses.length).toBeLessThanOrEqual(59)
    // the limit spent, a 409/422 is not looked up either
    expectError(await post(free.api_key, "/v2/scan", { ...scan, limit: 2 }, "idem-count"), 429, "rate_limited")
  })

  it("answers 401 before checking the query parameters on authenticated routes; 400 naming them after", async () => {
    const pro = await account("pro")
    expectError(await api(server, undefined, "/v2/account?zz_unknown=1"), 401, "unauthenticated")
    expectError(await api(server, "vigil_test_nope", "/v2/account?zz_unknown=1"), 401, "unauthenticated")
    const scan = { method: "POST", body: JSON.stringify({ q: "price > 1" }) }
    expectError(await api(server, undefined, "/v2/scan?zz_unknown=1", scan), 401, "unauthenticated")
    expectError(
      await api(server, "wrong-token", "/admin/accounts/acc_nope?zz_unknown=1", { method: "PATCH", body: "{}" }),
      401,
      "unauthenticated"
    )

    const known = await api(server, pro.api_key, "/v2/account?zz_unknown=1")
    expectError(known, 400, "bad_request")
    expect(known.body.error.message).toContain("zz_unknown")
    expect(known.headers.get("x-ratelimit-limit")).not.toBeNull()
    const posted = await api(server, pro.api_key, "/v2/scan?zz_unknown=1", scan)
    expectError(posted, 400, "bad_request")
    expect(posted.body.error.message).toContain("zz_unknown")
    const patched = await api(server, ADMIN_TOKEN, "/admin/accounts/acc_nope?zz_unknown=1", {
      method: "PATCH",
      body: "{}"
    })
    expectError(patched, 400, "bad_request")
    expect(patched.body.error.message).toContain("zz_unknown")
    // routes without authentication check them first, as before
    expectError(await api(server, undefined, "/healthz?zz_unknown=1"), 400, "bad_request")
  })
})
