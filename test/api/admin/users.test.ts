/**
 * `POST /admin/users` (issue 18, item 2; the operator contract): a dashboard user of an account or
 * of a new one, the password shown once (generated when none is given) and never logged; clear
 * 4xx for a bad email or password, an unknown account, both account and plan, a taken email.
 */
import { describe, expect, it } from "vitest"
import { runAdminCli } from "../../support/adminCli.js"
import { ADMIN_TOKEN, admin } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"

/** `npm run admin -- <args>` against the service at `url` */
const cli = (args: ReadonlyArray<string>, url: string) => runAdminCli(args, { ADMIN_TOKEN, VIGIL_URL: url })

describe("POST /admin/users", () => {
  const server = serveForSuite()

  it("creates a user of a new account (generated password) or of an existing one (chosen password)", async () => {
    const made = await admin(server, "POST", "/admin/users", { email: "  Ann@Example.com ", plan: "pro" })
    expect(made.status).toBe(201)
    expect(made.body).toEqual({
      user_id: expect.stringMatching(/^usr_[0-9A-Za-z]+$/),
      account_id: expect.stringMatching(/^acc_[0-9A-Za-z]+$/),
      email: "ann@example.com",
      password: expect.stringMatching(/^[0-9A-Za-z]{20}$/)
    })
    // the new account is on the plan asked for
    const plan = await admin(server, "PATCH", `/admin/accounts/${made.body.account_id}`, { plan: "pro" })
    expect(plan.body.plan).toBe("pro")

    const account = await admin(server, "POST", "/admin/accounts", { plan: "scale" })
    const joined = await admin(server, "POST", "/admin/users", {
      email: "bob@example.com",
      password: "correct horse battery staple",
      account_id: account.body.account_id
    })
    expect(joined.status).toBe(201)
    expect(joined.body).toMatchObject({
      account_id: account.body.account_id,
      email: "bob@example.com",
      password: "correct horse battery staple"
    })
    // no password reaches the logs
    const logs = server.logs()
    expect(logs).toContain("dashboard user created")
    expect(logs).not.toContain(made.body.password)
    expect(logs).not.toContain("correct horse battery staple")
  })

  it("refuses bad input with the envelope and a message naming the problem, creating nothing", async () => {
    const cases: Array<[unknown, number, string, RegExp]> = [
      [{ email: "not-an-email" }, 400, "bad_request", /email must be an email address \(got "not-an-email"\)/],
      [{ email: "c@example.com", password: "short" }, 400, "bad_request", /at least 12 characters \(got 5\)/],
      [{ email: "c@example.com", account_id: "acc_nope" }, 404, "not_found", /no account acc_nope/],
      [{ email: "c@example.com", account_id: "acc_x", plan: "pro" }, 400, "bad_request", /not both/],
      [{ email: "c@example.com", plan: "gold" }, 400, "bad_request", /plan/],
      [{ password: "long enough password" }, 400, "bad_request", /email/]
    ]
    for (const [body, status, code, message] of cases) {
      const res = await admin(server, "POST", "/admin/users", body)
      expect([JSON.stringify(body), res.status, res.body.error?.code]).toEqual([JSON.stringify(body), status, code])
      expect(res.body.error.message).toMatch(message)
    }
    // the email that failed above was never taken: it can be created now
    expect((await admin(server, "POST", "/admin/users", { email: "c@example.com" })).status).toBe(201)
    const taken = await admin(server, "POST", "/admin/users", { email: "C@EXAMPLE.COM" })
    expect(taken.status).toBe(409)
    expect(taken.body.error).toMatchObject({
      code: "email_taken",
      message: "a dashboard user with email c@example.com exists"
    })
  })

  it("is what `npm run admin -- create-user` calls", async () => {
    const made = await cli(["create-user", "--email", "dee@example.com", "--plan", "hobby"], server.url)
    expect(made.code).toBe(0)
    expect(JSON.parse(made.stdout)).toMatchObject({ email: "dee@example.com", password: expect.any(String) })
    const again = await cli(["create-user", "--email", "dee@example.com"], server.url)
    expect(again.code).not.toBe(0)
    expect(again.stderr).toContain("a dashboard user with email dee@example.com exists")
    const missing = await cli(["create-user"], server.url)
    expect(missing.stderr).toContain("--email is required")
  }, 60_000)
})
