/**
 * The whole journey in one sitting, on a phone's width (issue 18, "Done when", items 8 and
 * 9): a person given an email and a password signs in (a wrong password first), issues a key and
 * revokes it (then refused by /v2), screens (an error, then fixed), sorts and pages, charts a
 * ticker, subscribes from the screener after the dry-run, sees the alert of `POST /admin/refresh`
 * arrive in the open inbox, explains it, snoozes the subscription and signs out — using the
 * keyboard where a person would, with no page wider than the screen, in the dark theme.
 */
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { HAS_CHROMIUM, NEEDS_CHROMIUM } from "../support/browser.js"
import { chromiumForSuite } from "../support/chromiumSuite.js"
import { admin } from "../support/server.js"
import { serveForSuite } from "../support/suiteServer.js"

const WIDTH = 390
const WAIT = { timeout: 30_000 }

/** the page fits the phone's width: nothing scrolls sideways but the tables and charts' own boxes */
const fits = async (page: Page, where: string) =>
  expect([where, await page.evaluate("document.documentElement.scrollWidth")]).toEqual([where, WIDTH])

const daysBetween = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / 86_400_000)

/** Monday to Friday from `a` to `b`, both counted */
const weekdays = (a: string, b: string) => {
  let n = 0
  for (let t = Date.parse(a); t <= Date.parse(b); t += 86_400_000) if (new Date(t).getUTCDay() % 6 !== 0) n++
  return n
}

describe.skipIf(!HAS_CHROMIUM)(`the dashboard's journey in Chromium (${NEEDS_CHROMIUM})`, () => {
  const server = serveForSuite()
  const chromium = chromiumForSuite()

  it("signs in, keys, screens, charts, subscribes with a preview, gets the alert live, explains, snoozes, signs out", async () => {
    const made = await admin(server, "POST", "/admin/users", { email: "joy@example.com", plan: "pro" })
    const context = await chromium().newContext({ viewport: { width: WIDTH, height: 844 }, colorScheme: "dark" })
    const page = await context.newPage()
    await page.goto(`${server.url}/`)
    expect(await page.evaluate("document.documentElement.dataset.theme")).toBe("dark")
    await fits(page, "sign-in")

    // sign in by keyboard: a wrong password, then the right one
    await page.getByLabel("Email").focus()
    await page.keyboard.type("joy@example.com")
    await page.keyboard.press("Tab")
    await page.keyboard.type("wrong password")
    await page.keyboard.press("Enter")
    await expect.poll(() => page.getByRole("alert").textContent(), WAIT).toBe("Wrong email or password.")
    await page.getByLabel("Password").fill(made.body.password)
    await page.keyboard.press("Enter")
    const nav = page.getByRole("navigation", { name: "Main" })
    await nav.waitFor(WAIT)
    await fits(page, "overview")

    // a key, shown once; revoked, /v2 refuses it
    await nav.getByRole("link", { name: "Keys" }).click()
    await page.getByRole("button", { name: "Create key" }).click()
    const key = await page.getByLabel("New API key").inputValue()
    const v2 = () => fetch(`${server.url}/v2/account`, { headers: { authorization: `Bearer ${key}` } })
    expect((await v2()).status).toBe(200)
    await fits(page, "keys")
    page.once("dialog", (dialog) => void dialog.accept())
    await page.getByRole("button", { name: /^Revoke/ }).click()
    await page.getByText(/^revoked/).waitFor(WAIT)
    expect((await v2()).status).toBe(401)

    // a screen: an error at its place, fixed (a completion taken by keyboard), sorted and paged
    await nav.getByRole("link", { name: "Screener" }).click()
    const query = page.getByLabel("Query")
    await query.fill("pric > 10")
    await page.getByRole("button", { name: "Run" }).click()
    await expect.poll(() => page.getByRole("alert").textContent(), WAIT).toMatch(/did you mean 'price'\?/)
    await query.fill("")
    await query.pressSequentially("rsi_1")
    await page.getByRole("option", { name: /^rsi_14/ }).waitFor(WAIT)
    await query.press("Enter")
    await expect.poll(() => query.inputValue(), WAIT).toBe("rsi_14")
    await query.pressSequentially(" < 35 AND price > 5")
    expect(await query.inputValue()).toBe("rsi_14 < 35 AND price > 5")
    await query.press("Escape")
    await page.getByRole("button", { name: "Run" }).click()
    await page.getByRole("table").first().waitFor(WAIT)
    expect(await page.getByText(/^50 of [\d,]+ matching tickers/).count()).toBe(1)
    await page.getByRole("button", { name: "price", exact: true }).click()
    await page.getByRole("columnheader", { name: /price ▼/ }).waitFor(WAIT)
    const first = await page.locator("tbody tr").first().textContent()
    await page.getByRole("button", { name: "Next page" }).click()
    await expect.poll(() => page.locator("tbody tr").first().textContent(), WAIT).not.toBe(first)
    await fits(page, "screener")

    // a chart from the results
    const ticker = (await page.locator("tbody tr td a").first().textContent())!
    await page.getByRole("link", { name: ticker, exact: true }).click()
    const chart = page.getByRole("img", { name: `${ticker} candlestick chart` })
    await chart.locator("canvas").first().waitFor(WAIT)
    // every daily bar the ticker has within the pro plan's five years (a young listing has fewer)
    const coverage = (await page.evaluate(
      `fetch("/dashboard/v2/tickers/${encodeURIComponent(ticker)}/coverage").then((r) => r.json())`
    )) as { daily_from: string; daily_to: string }
    const planFrom = new Date(Date.now() - 5 * 365 * 86_400_000).toISOString().slice(0, 10)
    const from = coverage.daily_from > planFrom ? coverage.daily_from : planFrom
    const summary = await page.getByText(/^[\d,]+ daily bars, /).textContent()
    const [, count, firstDay, lastDay] = /^([\d,]+) daily bars, (\S+) to (\S+)/.exec(summary!)!
    expect(Number(await chart.getAttribute("data-bars"))).toBe(Number(count!.replaceAll(",", "")))
    expect(firstDay! >= from && daysBetween(from, firstDay!) <= 4, `first bar ${firstDay} for ${from}`).toBe(true)
    expect(lastDay).toBe(coverage.daily_to)
    const bars = Number(count!.replaceAll(",", ""))
    expect(bars).toBeGreaterThanOrEqual(Math.floor(weekdays(firstDay!, lastDay!) * 0.95))
    expect(bars).toBeLessThanOrEqual(daysBetween(firstDay!, lastDay!) + 1)
    if (coverage.daily_from < planFrom) expect(bars).toBeGreaterThan(1_200)
    await fits(page, "ticker")

    // subscribe from the screener after the dry-run
    await page.goBack()
    await nav.getByRole("link", { name: "Screener" }).click()
    await query.fill("ticker = 'MSFT' AND price > 0")
    await page.getByRole("button", { name: "Run" }).click()
    await page.getByLabel("Name", { exact: true }).fill("msft on my phone")
    await page.getByRole("button", { name: "Preview" }).click()
    await page.getByRole("status").filter({ hasText: "would have sent" }).waitFor(WAIT)
    await page.getByRole("button", { name: "Create subscription" }).click()
    await page.getByText("Subscribed: msft on my phone.").waitFor(WAIT)
    await fits(page, "screener with its answer")

    // the inbox open: a refresh's alert arrives without a reload
    await nav.getByRole("link", { name: /^Inbox/ }).click()
    await page.getByText("Nothing yet").waitFor(WAIT)
    expect((await admin(server, "POST", "/admin/refresh")).status).toBe(200)
    const list = page.getByRole("list", { name: "Notifications" })
    await list.waitFor(WAIT)
    expect(await list.textContent()).toContain("MSFT")
    await expect
      .poll(() => nav.getByRole("link", { name: /^Inbox/ }).textContent(), { timeout: 10_000 })
      .toBe("Inbox 1 unread")
    await fits(page, "inbox")

    // explain and snooze, on the subscription's page
    await nav.getByRole("link", { name: "Subscriptions" }).click()
    await page.getByRole("link", { name: "msft on my phone" }).click()
    await page.getByRole("heading", { name: "msft on my phone" }).waitFor(WAIT)
    await page.getByLabel("Ticker").fill("MSFT")
    await page.getByRole("button", { name: "Explain", exact: true }).click()
    const why = page.getByRole("list", { name: "Why MSFT" })
    await why.waitFor(WAIT)
    expect(await page.locator(".explained").textContent()).toMatch(/MSFT is inside/)
    expect(await why.textContent()).toMatch(/holds: ticker = 'MSFT'/)
    await page.getByLabel("Snooze for").selectOption({ label: "4 hours" })
    await page.getByRole("button", { name: "Snooze", exact: true }).click()
    await page
      .locator("dl.settings")
      .getByText(/snoozed until/)
      .waitFor(WAIT)
    await fits(page, "subscription")

    // the theme follows the choice, kept over a reload
    await page.getByLabel("Theme").selectOption("light")
    expect(await page.evaluate("document.documentElement.dataset.theme")).toBe("light")
    await page.reload()
    await page.getByRole("heading", { name: "msft on my phone" }).waitFor(WAIT)
    expect(await page.evaluate("document.documentElement.dataset.theme")).toBe("light")

    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByRole("button", { name: "Sign in" }).waitFor(WAIT)
    expect(await context.cookies()).toEqual([])
    await context.close()
  }, 240_000)
})
