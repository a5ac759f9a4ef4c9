/**
 * The dashboard's session (issue 18, item 2): sign in with a dashboard user's email and password
 * (the same 401 for a wrong password and an unknown email; a lockout with Retry-After), an
 * `HttpOnly`, `SameSite=Strict` session cookie (`Secure` behind https), CSRF-checked sign-out, and
 * the cookie never authenticating `/v2`.
 */
import { describe, expect, it } from "vitest"
import { admin } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"

const json = { "content-type": "application/json" }

describe("the dashboard's session", () => {
  const server = serveForSuite()
  /** a session kept for a later test (one address signs in only 20 times a minute) */
  let keptCookie: string | undefined

  const signIn = (email: string, password: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/dashboard/api/session`, {
      method: "POST",
      headers: { ...json, ...headers },
      body: JSON.stringify({ email, password })
    })

  it("signs in with the right password only, sets the session cookie, and signs out with the CSRF token", async () => {
    const made = await admin(server, "POST", "/admin/users", { email: "ann@example.com", plan: "pro" })
    const { password, account_id } = made.body

    for (const [email, pw] of [
      ["ann@example.com", "not the password"],
      ["nobody@example.com", password],
      ["not an email", password]
    ] as const) {
      const wrong = await signIn(email, pw)
      expect([email, wrong.status]).toEqual([email, 401])
      expect(((await wrong.json()) as any).error).toMatchObject({
        code: "unauthenticated",
        message: "wrong email or password"
      })
      expect(wrong.headers.get("set-cookie")).toBeNull()
    }

    const res = await signIn("ANN@example.com", password)
    expect(res.status).toBe(200)
    const body = (await res.json()) as any
    expect(body).toEqual({
      user: { id: made.body.user_id, email: "ann@example.com", account_id, plan: "pro" },
      csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expires_at: expect.any(String)
    })
    const setCookie = res.headers.get("set-cookie")!
    expect(setCookie).toMatch(
      /^vigil_session=vds_[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/
    )
    const cookie = setCookie.split(";")[0]!

    const session = await fetch(`${server.url}/dashboard/api/session`, { headers: { cookie } })
    expect(session.status).toBe(200)
    expect(await session.json()).toEqual(body)
    expect((await fetch(`${server.url}/dashboard/api/session`)).status).toBe(401)
    // the cookie is not an API key: /v2 stays bearer-key only
    expect((await fetch(`${server.url}/v2/tickers/AAPL`, { headers: { cookie } })).status).toBe(401)

    // a change needs the session's CSRF token
    const noCsrf = await fetch(`${server.url}/dashboard/api/session`, { method: "DELETE", headers: { cookie } })
    expect(noCsrf.status).toBe(403)
    expect(((await noCsrf.json()) as any).error.message).toMatch(/x-csrf-token/)
    const badCsrf = await fetch(`${server.url}/dashboard/api/session`, {
      method: "DELETE",
      headers: { cookie, "x-csrf-token": "x".repeat(43) }
    })
    expect(badCsrf.status).toBe(403)
    const out = await fetch(`${server.url}/dashboard/api/session`, {
      method: "DELETE",
      headers: { cookie, "x-csrf-token": body.csrf_token }
    })
    expect(out.status).toBe(200)
    expect(out.headers.get("set-cookie")).toMatch(/^vigil_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Strict$/)
    // the session is over, whatever the browser keeps
    expect((await fetch(`${server.url}/dashboard/api/session`, { headers: { cookie } })).status).toBe(401)
  })

  it("marks the cookie Secure behind https, and locks an email out after 5 wrong passwords", async () => {
    const made = await admin(server, "POST", "/admin/users", { email: "bob@example.com", plan: "hobby" })
    const viaHttps = await signIn("bob@example.com", made.body.password, { "x-forwarded-proto": "https" })
    expect(viaHttps.headers.get("set-cookie")).toMatch(/; Secure/)

    for (let k = 0; k < 5; k++) expect((await signIn("bob@example.com", `wrong ${k}`)).status).toBe(401)
    const locked = await signIn("bob@example.com", made.body.password)
    expect(locked.status).toBe(429)
    const seconds = Number(locked.headers.get("retry-after"))
    expect(seconds).toBeGreaterThan(14 * 60)
    expect(seconds).toBeLessThanOrEqual(15 * 60)
    const error = ((await locked.json()) as any).error
    expect(error.code).toBe("sign_in_locked")
    expect(error.message).toMatch(/sign-in is locked until .+ \(retry in \d+ s\)/)
    expect(error.retry_after ?? error.details?.retry_after).toBe(seconds)
  })

  it("issues, lists and revokes the account's keys: the key shown once, refused by /v2 at once after revoking", async () => {
    const made = await admin(server, "POST", "/admin/users", { email: "cat@example.com", plan: "pro" })
    const res = await signIn("cat@example.com", made.body.password)
    const { csrf_token } = (await res.json()) as any
    const cookie = res.headers.get("set-cookie")!.split(";")[0]!
    /** `csrf` null: the change is sent without the session's CSRF token */
    const call = (method: string, path: string, body?: unknown, csrf: string | null = csrf_token) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { cookie, ...json, ...(csrf === null ? {} : { "x-csrf-token": csrf }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })

    expect(await (await call("GET", "/dashboard/api/keys")).json()).toEqual({ keys: [] })
    expect((await call("POST", "/dashboard/api/keys", { mode: "live" }, null)).status).toBe(403)
    const created = await call("POST", "/dashboard/api/keys", { mode: "live" })
    expect(created.status).toBe(201)
    const key = (await created.json()) as any
    expect(key).toEqual({
      key_id: expect.stringMatching(/^key_/),
      api_key: expect.stringMatching(/^vigil_live_[0-9A-Za-z]{43}$/),
      prefix: key.api_key.slice(0, 15),
      mode: "live",
      created_at: expect.any(String)
    })
    const v2 = (k: string) => fetch(`${server.url}/v2/account`, { headers: { authorization: `Bearer ${k}` } })
    expect((await v2(key.api_key)).status).toBe(200)
    const listed = (await (await call("GET", "/dashboard/api/keys")).json()) as any
    expect(listed.keys).toEqual([
      {
        key_id: key.key_id,
        prefix: key.prefix,
        mode: "live",
        created_at: key.created_at,
        last_used_at: null,
        revoked_at: null
      }
    ])
    expect(JSON.stringify(listed)).not.toContain(key.api_key)

    // another account's key is not this account's: 404, and it keeps working
    const other = await admin(server, "POST", "/admin/accounts", { plan: "pro" })
    expect((await call("DELETE", `/dashboard/api/keys/${other.body.key_id}`)).status).toBe(404)
    expect((await v2(other.body.api_key)).status).toBe(200)

    expect((await call("DELETE", `/dashboard/api/keys/${key.key_id}`, undefined, null)).status).toBe(403)
    expect((await call("DELETE", `/dashboard/api/keys/${key.key_id}`)).status).toBe(200)
    expect((await v2(key.api_key)).status).toBe(401)
    const again = await call("DELETE", `/dashboard/api/keys/${key.key_id}`)
    expect(again.status).toBe(404)
    expect(((await again.json()) as any).error.message).toMatch(/no key key_\w+ of this account/)
    const after = (await (await call("GET", "/dashboard/api/keys")).json()) as any
    expect(after.keys[0].revoked_at).not.toBeNull()
  })

  it("calls /v2 for the session through /dashboard/v2 (no key in the page), with the account's plan and limits", async () => {
    const made = await admin(server, "POST", "/admin/users", { email: "dan@example.com", plan: "pro" })
    const res = await signIn("dan@example.com", made.body.password)
    const { csrf_token } = (await res.json()) as any
    const cookie = res.headers.get("set-cookie")!.split(";")[0]!
    const account = await fetch(`${server.url}/dashboard/v2/account`, { headers: { cookie } })
    expect(account.status).toBe(200)
    expect(((await account.json()) as any).plan).toBe("pro")
    expect(account.headers.get("x-ratelimit-limit")).toBe("6000")
    // a change with the session's CSRF token; without it, 403 before /v2 sees it
    const scan = (headers: Record<string, string>) =>
      fetch(`${server.url}/dashboard/v2/scan`, {
        method: "POST",
        headers: { cookie, ...json, ...headers },
        body: JSON.stringify({ q: "price > 1", limit: 2 })
      })
    expect((await scan({})).status).toBe(403)
    const scanned = await scan({ "x-csrf-token": csrf_token })
    expect(scanned.status).toBe(200)
    expect(((await scanned.json()) as any).results).toHaveLength(2)
    // /v2's own answers come through: an unknown ticker, a query parameter it does not take
    const missing = await fetch(`${server.url}/dashboard/v2/tickers/ZZZZQX`, { headers: { cookie } })
    expect(missing.status).toBe(404)
    expect((await fetch(`${server.url}/dashboard/v2/account?x=1`, { headers: { cookie } })).status).toBe(400)
    // the session's key is not one of the account's keys, and ends with the session
    const keys = (await (await fetch(`${server.url}/dashboard/api/keys`, { headers: { cookie } })).json()) as any
    expect(keys.keys).toEqual([])
    expect((await fetch(`${server.url}/dashboard/v2/account`)).status).toBe(401)
    await fetch(`${server.url}/dashboard/api/session`, {
      method: "DELETE",
      headers: { cookie, "x-csrf-token": csrf_token }
    })
    const after = await fetch(`${server.url}/dashboard/v2/account`, { headers: { cookie } })
    expect(after.status).toBe(401)
    expect(((await after.json()) as any).error.message).toMatch(/sign in again/)
  })

  it("streams the inbox as server-sent events for a session whose plan has webhooks", async () => {
    const events = (headers: Record<string, string> = {}) =>
      fetch(`${server.url}/dashboard/api/inbox/events`, { headers })
    const none = await events()
    expect(none.status).toBe(401)
    expect(((await none.json()) as any).error.code).toBe("unauthenticated")

    const free = await admin(server, "POST", "/admin/users", { email: "fay@example.com", plan: "free" })
    const freeCookie = (await signIn("fay@example.com", free.body.password)).headers.get("set-cookie")!.split(";")[0]!
    const refused = await events({ cookie: freeCookie })
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as any).error.code).toBe("webhook_tier_required")

    const pro = await admin(server, "POST", "/admin/users", { email: "gus@example.com", plan: "pro" })
    const cookie = (await signIn("gus@example.com", pro.body.password)).headers.get("set-cookie")!.split(";")[0]!
    const controller = new AbortController()
    const open = await fetch(`${server.url}/dashboard/api/inbox/events`, {
      headers: { cookie },
      signal: controller.signal
    })
    expect(open.status).toBe(200)
    expect(open.headers.get("content-type")).toMatch(/^text\/event-stream/)
    const reader = open.body!.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value)).toBe(": open\n\n")
    controller.abort()
  })

  it("answers a ticker's chart bars over the plan's history window, daily or weekly", async () => {
    const bars = async (email: string, plan: string, path: string) => {
      const made = await admin(server, "POST", "/admin/users", { email, plan })
      const cookie = (await signIn(email, made.body.password)).headers.get("set-cookie")!.split(";")[0]!
      keptCookie = cookie
      const res = await fetch(`${server.url}/dashboard/api/tickers/${path}`, { headers: { cookie } })
      return { status: res.status, body: (await res.json()) as any }
    }
    const scale = await bars("sal@example.com", "scale", "msft/bars")
    expect(scale.status).toBe(200)
    expect(scale.body).toMatchObject({ ticker: "MSFT", interval: "1d", from: "2003-01-02", limited: false })
    const n = scale.body.t.length
    expect(n).toBeGreaterThan(5_800)
    for (const k of ["o", "h", "l", "c", "v"]) expect(scale.body[k]).toHaveLength(n)
    for (let i = 1; i < n; i++) expect(scale.body.t[i]).toBeGreaterThan(scale.body.t[i - 1])
    for (let i = 0; i < n; i += 97) {
      expect(scale.body.h[i]).toBeGreaterThanOrEqual(Math.max(scale.body.o[i], scale.body.c[i]))
      expect(scale.body.l[i]).toBeLessThanOrEqual(Math.min(scale.body.o[i], scale.body.c[i]))
    }
    // Pro: five years; Hobby: the last session
    const pro = await bars("pat@example.com", "pro", "MSFT/bars?interval=1w")
    expect(pro.body).toMatchObject({ interval: "1w", limited: true })
    expect(pro.body.t.length).toBeGreaterThan(250)
    expect(pro.body.t.length).toBeLessThan(265)
    const hobby = await bars("hal@example.com", "hobby", "MSFT/bars")
    expect(hobby.body.t).toHaveLength(1)
    expect(hobby.body.to).toBe(scale.body.to)
    expect((await bars("nia@example.com", "pro", "ZZZZQX/bars")).status).toBe(404)
    expect((await bars("ola@example.com", "pro", "MSFT/bars?interval=2d")).status).toBe(400)
  })

  it("answers the q language's columns and functions, described and grouped, to a session only", async () => {
    expect((await fetch(`${server.url}/dashboard/api/catalog`)).status).toBe(401)
    const res = await fetch(`${server.url}/dashboard/api/catalog`, { headers: { cookie: keptCookie! } })
    expect(res.status).toBe(200)
    const body = (await res.json()) as any
    const { CATALOG } = await import("../../../src/market/catalog.js")
    expect(body.columns.map((c: any) => c.name)).toEqual(CATALOG.map((c) => c.name))
    expect(body.columns.find((c: any) => c.name === "rsi_14")).toEqual({
      name: "rsi_14",
      type: "numeric",
      unit: "index",
      description: expect.stringMatching(/Wilder/),
      group: "momentum",
      minute_tier: expect.any(Boolean)
    })
    expect(body.functions.find((f: any) => f.name === "PCT_RANK")).toEqual({
      name: "PCT_RANK",
      signature: "PCT_RANK(numeric [, partition]) → numeric",
      description: expect.stringMatching(/percent rank/)
    })
  })

  // last: it spends the rest of this address's sign-in attempts for the minute
  it("limits sign-in attempts per client address, whatever the email", async () => {
    let answer: Response | undefined
    for (let k = 0; k < 21; k++) {
      answer = await signIn(`nobody${k}@example.com`, "not a password")
      if (answer.status === 429) break
      expect(answer.status).toBe(401)
    }
    expect(answer!.status).toBe(429)
    expect(Number(answer!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    const error = ((await answer!.json()) as any).error
    expect(error.code).toBe("rate_limited")
    expect(error.message).toMatch(/too many sign-in attempts from this address \(20 a minute\): retry after \d+ s/)
  })
})
