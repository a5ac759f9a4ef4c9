/**
 * The dashboard (issue 18, items 1, 2 and 9): served at `/` by the service from its build, with a
 * Content-Security-Policy and long-cached hashed assets; in Chromium, a wrong password then the
 * right one, a session that survives a reload in an HttpOnly SameSite=Strict cookie (nothing in
 * localStorage), and sign-out.
 */

import { describe, expect, it } from "vitest"
import { HAS_CHROMIUM, NEEDS_CHROMIUM } from "../support/browser.js"
import { chromiumForSuite } from "../support/chromiumSuite.js"
import { admin } from "../support/server.js"
import { serveForSuite } from "../support/suiteServer.js"

describe("the dashboard's files", () => {
  const server = serveForSuite()

  it("are served at / with a Content-Security-Policy, the hashed assets cached for a year", async () => {
    const page = await fetch(`${server.url}/`)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(page.headers.get("cache-control")).toBe("no-cache")
    expect(page.headers.get("content-security-policy")).toMatch(/script-src 'self';.*frame-ancestors 'none'/)
    expect(page.headers.get("x-content-type-options")).toBe("nosniff")
    const html = await page.text()
    const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)">/.exec(html)?.[1]
    expect(script).toBeDefined()
    const js = await fetch(`${server.url}${script}`)
    expect(js.status).toBe(200)
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    // the initial script, gzipped, stays within the 250 KB
    const { gzipSync } = await import("node:zlib")
    expect(gzipSync(Buffer.from(await js.arrayBuffer())).length).toBeLessThan(250_000)
    for (const bad of ["/assets/nope.js", "/assets/..%2Fpackage.json", "/assets/%2e%2e%2fsrc%2fmain.ts"]) {
      const res = await fetch(`${server.url}${bad}`)
      expect([bad, res.status]).toEqual([bad, 404])
      expect(((await res.json()) as any).error.code).toBe("not_found")
    }
  })
})

describe.skipIf(!HAS_CHROMIUM)(`the dashboard in Chromium (${NEEDS_CHROMIUM})`, () => {
  const server = serveForSuite()
  const chromium = chromiumForSuite()

  it("signs in (after a wrong password), keeps the session over a reload, and signs out", async () => {
    const made = await admin(server, "POST", "/admin/users", { email: "ann@example.com", plan: "pro" })
    const context = await chromium().newContext()
    const page = await context.newPage()
    await page.goto(`${server.url}/`)
    await page.getByLabel("Email").fill("ann@example.com")
    await page.getByLabel("Password").fill("not the password")
    await page.getByRole("button", { name: "Sign in" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("Wrong email or password.")

    await page.getByLabel("Password").fill(made.body.password)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Signed in" }).waitFor()
    expect(await page.getByRole("banner").textContent()).toContain("ann@example.com")

    // the session is an HttpOnly, SameSite=Strict cookie; the page keeps nothing of it
    const [cookie] = await context.cookies()
    expect(cookie).toMatchObject({ name: "vigil_session", httpOnly: true, sameSite: "Strict" })
    expect(await page.evaluate("[document.cookie, localStorage.length, sessionStorage.length]")).toEqual(["", 0, 0])
    await page.reload()
    await page.getByRole("heading", { name: "Signed in" }).waitFor()

    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByRole("button", { name: "Sign in" }).waitFor()
    await page.reload()
    await page.getByLabel("Email").waitFor()
    expect(await context.cookies()).toEqual([])
    await context.close()
  }, 60_000)

  it("issues a key shown once, lists it, and revokes it: /v2 refuses it on the very next request", async () => {
    const made = await admin(server, "POST", "/admin/users", { email: "kim@example.com", plan: "pro" })
    const context = await chromium().newContext()
    const page = await context.newPage()
    await page.goto(`${server.url}/`)
    await page.getByLabel("Email").fill("kim@example.com")
    await page.getByLabel("Password").fill(made.body.password)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Keys" }).click()
    await page.getByRole("heading", { name: "API keys" }).waitFor()
    await page.getByText("No keys yet").waitFor()

    await page.getByLabel("Mode").selectOption("live")
    await page.getByRole("button", { name: "Create key" }).click()
    const key = await page.getByLabel("New API key").inputValue()
    expect(key).toMatch(/^vigil_live_[0-9A-Za-z]{43}$/)
    const v2 = () => fetch(`${server.url}/v2/account`, { headers: { authorization: `Bearer ${key}` } })
    expect((await v2()).status).toBe(200)
    const row = page.getByRole("row").filter({ hasText: key.slice(0, 15) })
    expect(await row.getByRole("cell").allTextContents()).toEqual([
      `${key.slice(0, 15)}…`,
      "live",
      expect.any(String),
      "never",
      expect.stringMatching(/^Revoke/)
    ])
    // the key itself is nowhere but in the one-time notice
    expect(await page.getByRole("table").textContent()).not.toContain(key)

    page.once("dialog", (dialog) => void dialog.accept())
    await row.getByRole("button", { name: /Revoke/ }).click()
    await row.getByText(/^revoked/).waitFor()
    expect((await v2()).status).toBe(401)
    await expect.poll(() => page.getByLabel("New API key").count()).toBe(0)
    await context.close()
  }, 60_000)

  it("screens: an error shown at its place with a suggestion, then results sorted by a column and paged", async () => {
    const made = await admin(server, "POST", "/admin/users", { email: "lee@example.com", plan: "pro" })
    const context = await chromium().newContext()
    const page = await context.newPage()
    await page.goto(`${server.url}/`)
    await page.getByLabel("Email").fill("lee@example.com")
    await page.getByLabel("Password").fill(made.body.password)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Screener" }).click()
    await page.getByRole("heading", { name: "Screener" }).waitFor()

    await page.getByLabel("Query").fill("pric > 10")
    await page.getByRole("button", { name: "Run" }).click()
    const alert = page.getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/unknown column.*pric.*did you mean 'price'\?/i)
    expect(await page.getByLabel("Query").getAttribute("aria-invalid")).toBe("true")

    await page.getByLabel("Query").fill("price > 10")
    await page.getByRole("button", { name: "Run" }).click()
    await page.getByRole("table").waitFor()
    expect(await page.getByText(/^50 of [\d,]+ matching tickers/).count()).toBe(1)
    expect(await page.getByRole("row").count()).toBe(51)

    const column = async (name: string) => {
      const headers = await page.getByRole("columnheader").allTextContents()
      const at = headers.findIndex((h) => h.replace(/ [▲▼]$/, "") === name)
      const cells = await page.locator(`tbody tr td:nth-child(${at + 1})`).allTextContents()
      return cells.map((c) => Number(c.replace(/,/g, "")))
    }
    await page.getByRole("button", { name: "price", exact: true }).click()
    await page.getByRole("columnheader", { name: /price ▼/ }).waitFor()
    const down = await column("price")
    expect(down).toEqual([...down].sort((a, b) => b - a))
    await page.getByRole("button", { name: "price ▼" }).click()
    await page.getByRole("columnheader", { name: /price ▲/ }).waitFor()
    const up = await column("price")
    expect(up).toEqual([...up].sort((a, b) => a - b))
    expect(up[0]).toBeGreaterThan(10)

    const firstRow = await page.locator("tbody tr").first().textContent()
    await page.getByRole("button", { name: "Next page" }).click()
    await expect.poll(() => page.locator("tbody tr").first().textContent()).not.toBe(firstRow)
    const second = await column("price")
    expect(second[0]).toBeGreaterThanOrEqual(up[up.length - 1]!)
    await page.getByRole("button", { name: "Previous page" }).click()
    await expect.poll(() => page.locator("tbody tr").first().textContent()).toBe(firstRow)
    await context.close()
  }, 60_000)

  it("shows an in-app alert in the open inbox without a reload, with the unread count, and marks it read", async () => {
    const made = await admin(server, "POST", "/admin/users", { email: "max@example.com", plan: "pro" })
    const key = (await admin(server, "POST", `/admin/accounts/${made.body.account_id}/keys`, {})).body.api_key
    const context = await chromium().newContext()
    const page = await context.newPage()
    await page.goto(`${server.url}/`)
    await page.getByLabel("Email").fill("max@example.com")
    await page.getByLabel("Password").fill(made.body.password)
    await page.getByRole("button", { name: "Sign in" }).click()
    const inboxLink = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /^Inbox/ })
    await inboxLink.click()
    await page.getByText("Nothing yet").waitFor()

    // an in-app subscription (the default channel of a ticker's), then a refresh: the alert arrives live
    const sub = await fetch(`${server.url}/v2/tickers/msft/subscribe`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ condition: "price > 0" })
    })
    expect(sub.status).toBe(200)
    expect((await admin(server, "POST", "/admin/refresh")).status).toBe(200)
    const list = page.getByRole("list", { name: "Notifications" })
    await list.waitFor({ timeout: 20_000 })
    expect(await list.textContent()).toContain("MSFT")
    await expect.poll(() => inboxLink.textContent(), { timeout: 10_000 }).toBe("Inbox 1 unread")

    await page.getByRole("button", { name: /^Mark read/ }).click()
    await expect.poll(() => inboxLink.textContent()).toBe("Inbox")
    const unread = await fetch(`${server.url}/v2/notifications?unread=true`, {
      headers: { authorization: `Bearer ${key}` }
    })
    expect(((await unread.json()) as any).count).toBe(0)
    await context.close()
  }, 60_000)

  it("charts a ticker's twenty years of daily candles within 300 ms, weekly too, from the screener's link", async () => {
    const made = await admin(server, "POST", "/admin/users", { email: "ned@example.com", plan: "scale" })
    const context = await chromium().newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    await page.goto(`${server.url}/`)
    await page.getByLabel("Email").fill("ned@example.com")
    await page.getByLabel("Password").fill(made.body.password)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Screener" }).click()
    await page.getByLabel("Query").fill("ticker = 'AAPL'")
    await page.getByRole("button", { name: "Run" }).click()
    await page.getByRole("link", { name: "AAPL", exact: true }).click()
    await page.getByRole("heading", { name: /^AAPL/ }).waitFor()

    const chart = page.getByRole("img", { name: "AAPL candlestick chart" })
    await chart.and(page.locator("[data-render-ms]")).waitFor({ timeout: 30_000 })
    const bars = Number(await chart.getAttribute("data-bars"))
    // drawn three times (EMA 20 on, then off: each a new drawing): the best of the three, as a machine
    // busy with other tests can stall any one of them
    const draws = [Number(await chart.getAttribute("data-render-ms"))]
    for (const _ of [0, 1]) {
      const before = Number(await chart.getAttribute("data-draws"))
      await page.getByLabel("EMA 20").click()
      await expect
        .poll(async () => Number(await chart.getAttribute("data-draws")), { timeout: 20_000 })
        .toBe(before + 1)
      draws.push(Number(await chart.getAttribute("data-render-ms")))
    }
    const ms = Math.min(...draws)
    console.log(`AAPL daily chart: ${bars} candles drawn in ${draws.join(", ")} ms`)
    // Scale: the whole history, 2003 on (~252 sessions a year)
    expect(bars).toBeGreaterThan(5_800)
    expect(ms).toBeLessThanOrEqual(300)
    expect(await chart.locator("canvas").count()).toBeGreaterThan(0)
    expect(await page.getByText(/^[\d,]+ daily bars, 2003-01-02 to /).count()).toBe(1)

    await page.getByLabel("1w").check()
    // weekly: the bars go (0 while loading) and ~52 a year come back
    const weeks = async () => Number(await chart.getAttribute("data-bars"))
    await expect.poll(async () => (await weeks()) > 0 && (await weeks()) < 1_300, { timeout: 20_000 }).toBe(true)
    expect(await weeks()).toBeGreaterThan(1_150)
    await context.close()
  }, 90_000)

  it("subscribes from the screener after its dry-run, then snoozes, disables and deletes the subscription", async () => {
    const made = await admin(server, "POST", "/admin/users", { email: "ora@example.com", plan: "pro" })
    const context = await chromium().newContext()
    const page = await context.newPage()
    await page.goto(`${server.url}/`)
    await page.getByLabel("Email").fill("ora@example.com")
    await page.getByLabel("Password").fill(made.body.password)
    await page.getByRole("button", { name: "Sign in" }).click()
    const nav = page.getByRole("navigation", { name: "Main" })
    await nav.getByRole("link", { name: "Screener" }).click()
    await page.getByLabel("Query").fill("rsi_14 < 30 AND price > 5")
    await page.getByRole("button", { name: "Run" }).click()
    await page.getByRole("heading", { name: "Subscribe to this screen" }).waitFor()
    expect(await page.getByRole("button", { name: "Create subscription" }).isDisabled()).toBe(true)
    await page.getByLabel("Name", { exact: true }).fill("oversold")
    await page.getByRole("button", { name: "Preview" }).click()
    const preview = page.getByRole("status").filter({ hasText: "would have sent" })
    await preview.waitFor({ timeout: 30_000 })
    expect(await preview.textContent()).toMatch(/\(\d+ evaluations\) it would have sent \d+ alerts?/)
    await page.getByRole("button", { name: "Create subscription" }).click()
    await page.getByText("Subscribed: oversold.").waitFor()

    await nav.getByRole("link", { name: "Subscriptions" }).click()
    const row = page.getByRole("row").filter({ hasText: "oversold" })
    await row.waitFor()
    expect(await row.getByRole("cell").nth(1).textContent()).toBe("rsi_14 < 30 AND price > 5")
    expect(await row.getByRole("cell").nth(2).textContent()).toBe("in_app")
    await row.getByRole("button", { name: /^Snooze 1 h/ }).click()
    await row.getByText(/snoozed until/).waitFor()
    await row.getByRole("button", { name: /^Disable/ }).click()
    await row.getByRole("button", { name: /^Enable/ }).waitFor()
    expect(await row.getByRole("cell").nth(4).textContent()).toMatch(/^disabled/)
    page.once("dialog", (dialog) => void dialog.accept())
    await row.getByRole("button", { name: /^Delete/ }).click()
    await page.getByText("No subscriptions yet.").waitFor()
    await context.close()
  }, 90_000)

  it("shows 100 result rows within 100 ms of the answer", async () => {
    const made = await admin(server, "POST", "/admin/users", { email: "ray@example.com", plan: "pro" })
    const context = await chromium().newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    await page.goto(`${server.url}/#/screener`)
    await page.getByLabel("Email").fill("ray@example.com")
    await page.getByLabel("Password").fill(made.body.password)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Screener" }).waitFor()
    await page.getByLabel("Query").fill("price > 1")
    await page.getByLabel("Rows").selectOption("100")
    const table = page.locator("table.data")
    // three answers (the same screen run again): the best of the three, as a busy machine can stall one
    const times: Array<number> = []
    for (let k = 1; k <= 3; k++) {
      await page.getByRole("button", { name: "Run" }).click()
      await expect.poll(async () => Number(await table.getAttribute("data-renders")), { timeout: 20_000 }).toBe(k)
      times.push(Number(await table.getAttribute("data-render-ms")))
    }
    expect(await page.getByRole("row").count()).toBe(101)
    console.log(`100 result rows shown in ${times.join(", ")} ms after the answer`)
    expect(Math.min(...times)).toBeLessThanOrEqual(100)
    await context.close()
  }, 60_000)
})
