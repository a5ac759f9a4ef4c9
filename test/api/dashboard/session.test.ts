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
})
