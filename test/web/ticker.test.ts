/**
 * The ticker page (issue 18, item 4), in Chromium: candlesticks at every interval (`1m`, `1h`
 * beside `1d`, `1w`), the row's values under their group's heading, each with its description, and
 * the account's alerts for the ticker listed under the chart and marked on it.
 */
import { describe, expect, it } from "vitest"
import { HAS_CHROMIUM, NEEDS_CHROMIUM } from "../support/browser.js"
import { chromiumForSuite } from "../support/chromiumSuite.js"
import { signedIn } from "../support/dashboard.js"
import { admin, api } from "../support/server.js"
import { serveForSuite } from "../support/suiteServer.js"

describe.skipIf(!HAS_CHROMIUM)(`the ticker page in Chromium (${NEEDS_CHROMIUM})`, () => {
  const server = serveForSuite()
  const chromium = chromiumForSuite()

  it("charts minutes and hours too, and shows the row's values grouped, each with its description", async () => {
    const { page, context } = await signedIn(chromium(), server, "tia@example.com", { hash: "#/tickers/AAPL" })
    await page.getByRole("heading", { name: /^AAPL/ }).waitFor()
    const chart = page.getByRole("img", { name: "AAPL candlestick chart" })
    await chart.and(page.locator("[data-render-ms]")).waitFor({ timeout: 30_000 })
    expect(await page.getByText(/^[\d,]+ daily bars, /).count()).toBe(1)

    const counts: Record<string, number> = {}
    for (const [interval, name] of [
      ["1h", "hourly"],
      ["1m", "minute"],
      ["1d", "daily"]
    ] as const) {
      const draws = Number(await chart.getAttribute("data-draws"))
      await page.getByLabel(interval, { exact: true }).check()
      // a new drawing of the interval's bars
      await page.getByText(new RegExp(`^[\\d,]+ ${name} bars`)).waitFor({ timeout: 30_000 })
      await expect
        .poll(async () => Number(await chart.getAttribute("data-draws")), { timeout: 30_000 })
        .toBeGreaterThan(draws)
      counts[interval] = Number(await chart.getAttribute("data-bars"))
      expect([interval, counts[interval]! > 0]).toEqual([interval, true])
      expect(await chart.locator("canvas").count()).toBeGreaterThan(0)
    }
    console.log(`AAPL bars drawn: ${JSON.stringify(counts)}`)
    // a change of theme draws the chart again in the theme's colours
    const beforeTheme = Number(await chart.getAttribute("data-draws"))
    await page.getByLabel("Theme").selectOption("dark")
    await expect
      .poll(async () => Number(await chart.getAttribute("data-draws")), { timeout: 30_000 })
      .toBeGreaterThan(beforeTheme)
    expect(await page.evaluate("document.documentElement.dataset.theme")).toBe("dark")
    // five sessions of minutes (~390 each), a year of hours (~7 a session)
    expect(counts["1m"]).toBeGreaterThan(1_500)
    expect(counts["1h"]).toBeGreaterThan(1_500)

    // the values, grouped under their headings, each described
    const values = page.getByRole("region", { name: "Values" })
    for (const group of ["Price", "Volume", "Trend", "Momentum", "Volatility", "Fundamentals", "News"]) {
      await values.getByRole("heading", { name: group, exact: true }).waitFor({ timeout: 30_000 })
    }
    const momentum = page.getByRole("region", { name: "Momentum", exact: true })
    const rsi = momentum.locator(".ticker-value-row", { has: page.getByText("rsi_14", { exact: true }) })
    expect(await rsi.getByText(/^Relative strength index, 14 sessions/).isVisible()).toBe(true)
    expect(await rsi.locator(".ticker-value").textContent()).toMatch(/^\d{1,3}\.\d{2}$/)
    const price = page.getByRole("region", { name: "Price", exact: true })
    expect(
      await price
        .locator(".ticker-value-row", { has: page.getByText("day_change_pct", { exact: true }) })
        .locator(".ticker-value")
        .textContent()
    ).toMatch(/^-?\d+\.\d{2}%$/)
    const fundamentals = page.getByRole("region", { name: "Fundamentals", exact: true })
    expect(await fundamentals.getByText("market_cap", { exact: true }).count()).toBe(1)
    expect(
      await page.getByRole("region", { name: "News", exact: true }).getByText("news_volume", { exact: true }).count()
    ).toBe(1)

    // a phone's width: nothing of the page wider than the screen
    await page.setViewportSize({ width: 390, height: 844 })
    await expect
      .poll(() => page.evaluate("document.querySelector('.ticker-page').scrollWidth"), { timeout: 10_000 })
      .toBeLessThanOrEqual(390)
    await context.close()
  }, 120_000)

  it("lists where the account's subscription fired for the ticker, with its name, and marks it on the chart", async () => {
    const { page, context, apiKey } = await signedIn(chromium(), server, "uma@example.com")
    const key = await apiKey()
    const sub = await api(server, key, "/v2/tickers/msft/subscribe", {
      method: "POST",
      body: JSON.stringify({ condition: "price > 0" })
    })
    expect(sub.status).toBe(200)
    expect((await admin(server, "POST", "/admin/refresh")).status).toBe(200)
    await expect
      .poll(async () => (await api(server, key, `/v2/webhooks/${sub.body.id}/events`)).body.count, {
        timeout: 30_000,
        interval: 250
      })
      .toBe(1)

    await page.goto(`${server.url}/#/tickers/MSFT`)
    const alerts = page.getByRole("list", { name: "Alerts on this chart" })
    await alerts.waitFor({ timeout: 30_000 })
    expect(await alerts.getByRole("listitem").count()).toBe(1)
    const item = alerts.getByRole("listitem").first()
    expect(await item.textContent()).toContain("fired")
    expect(await item.textContent()).toContain("MSFT: price > 0")
    expect(await item.locator("time").getAttribute("datetime")).toMatch(/^\d{4}-\d{2}-\d{2}T/)
    const chart = page.getByRole("img", { name: "MSFT candlestick chart" })
    await expect.poll(async () => Number(await chart.getAttribute("data-markers")), { timeout: 30_000 }).toBe(1)
    // at minutes too: the alert's data time is the latest refresh's
    await page.getByLabel("1m", { exact: true }).check()
    await page.getByText(/^[\d,]+ minute bars/).waitFor({ timeout: 30_000 })
    await expect.poll(async () => Number(await chart.getAttribute("data-markers")), { timeout: 30_000 }).toBe(1)
    expect(await alerts.getByRole("listitem").count()).toBe(1)

    // another account has no alert for MSFT
    const other = await signedIn(chromium(), server, "val@example.com", { hash: "#/tickers/MSFT" })
    await other.page.getByText("None of your subscriptions fired or cleared for MSFT").waitFor({ timeout: 30_000 })
    const otherChart = other.page.getByRole("img", { name: "MSFT candlestick chart" })
    await otherChart.and(other.page.locator("[data-render-ms]")).waitFor({ timeout: 30_000 })
    expect(await otherChart.getAttribute("data-markers")).toBe("0")
    await other.context.close()
    await context.close()
  }, 120_000)
})
