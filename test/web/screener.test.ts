/**
 * The screener's editor and tools (issue 18, item 3), in Chromium: the query highlighted and
 * completed from the catalog (columns with descriptions, the account's custom signals,
 * functions), columns chosen for the results, the screen saved as a rule and loaded back, and its
 * backtest drawn against the benchmark.
 */
import { describe, expect, it } from "vitest"
import { HAS_CHROMIUM, NEEDS_CHROMIUM } from "../support/browser.js"
import { chromiumForSuite } from "../support/chromiumSuite.js"
import { signedIn } from "../support/dashboard.js"
import { serveForSuite } from "../support/suiteServer.js"

describe.skipIf(!HAS_CHROMIUM)(`the screener's editor and tools in Chromium (${NEEDS_CHROMIUM})`, () => {
  const server = serveForSuite()
  const chromium = chromiumForSuite()

  it("completes columns, custom signals and functions from the catalog, and highlights what it knows", async () => {
    const { page, context, apiKey } = await signedIn(chromium(), server, "cal@example.com")
    // a custom signal of the account: offered by the completion, with its description
    const created = await fetch(`${server.url}/v2/signals`, {
      method: "POST",
      headers: { authorization: `Bearer ${await apiKey()}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "cheap_momentum",
        expr: "pe_ratio < 15 AND rsi_14 > 50",
        description: "cheap, rising"
      })
    })
    expect(created.status).toBe(201)
    await page.goto(`${server.url}/#/screener`)
    const query = page.getByLabel("Query")
    await query.waitFor()
    expect(await query.getAttribute("role")).toBe("combobox")

    await query.fill("")
    await query.pressSequentially("rsi_1")
    const options = page.getByRole("listbox", { name: "Suggestions" }).getByRole("option")
    await expect.poll(() => options.count(), { timeout: 20_000 }).toBeGreaterThan(0)
    expect(await options.first().textContent()).toMatch(/^rsi_14 .*RSI/i)
    expect(await query.getAttribute("aria-expanded")).toBe("true")
    await query.press("Enter")
    await expect.poll(() => query.inputValue()).toBe("rsi_14")
    expect(await query.getAttribute("aria-expanded")).toBe("false")

    await query.pressSequentially(" < 30 AND cheap_m")
    await expect.poll(() => options.first().textContent()).toMatch(/^cheap_momentum cheap, rising/)
    await query.press("Tab")
    await query.pressSequentially(" AND AB")
    await expect.poll(() => options.first().textContent()).toMatch(/^ABS\(numeric\)/)
    await query.press("ArrowDown")
    await query.press("ArrowUp")
    await query.press("Enter")
    await expect.poll(() => query.inputValue()).toBe("rsi_14 < 30 AND cheap_momentum AND ABS(")
    await query.press("Escape")

    // a completion taken mid-text puts the caret after what it inserted before the next key lands,
    // even when the page draws its frames late (a busy machine: here, half a second late)
    await page.evaluate("window.requestAnimationFrame = (draw) => setTimeout(() => draw(performance.now()), 500)")
    await query.fill("price > 5 AND  < 35")
    await query.evaluate((area: { setSelectionRange(from: number, to: number): void }) =>
      area.setSelectionRange(14, 14)
    )
    await query.pressSequentially("rsi_1")
    await expect.poll(() => options.first().textContent()).toMatch(/^rsi_14 /)
    await query.press("Enter")
    await query.pressSequentially(" OR rsi_14")
    expect(await query.inputValue()).toBe("price > 5 AND rsi_14 OR rsi_14 < 35")
    await query.press("Escape")

    // the highlighted copy: columns, custom signals, functions and keywords marked; an unknown name underlined
    await query.fill("pric > 10 AND rsi_14 < 30 AND cheap_momentum AND ABS(gap_pct) < 0.1")
    const mirror = page.locator(".query-mirror")
    await expect.poll(() => mirror.locator(".tok-unknown").allTextContents()).toEqual(["pric"])
    expect(await mirror.locator(".tok-column").allTextContents()).toEqual(["rsi_14", "gap_pct"])
    expect(await mirror.locator(".tok-custom").allTextContents()).toEqual(["cheap_momentum"])
    expect(await mirror.locator(".tok-function").allTextContents()).toEqual(["ABS"])
    expect(await mirror.locator(".tok-keyword").allTextContents()).toEqual(["AND", "AND", "AND"])
    await context.close()
  }, 90_000)

  it("adds columns from the picker, saves the screen as a rule and loads it back", async () => {
    const { page, context } = await signedIn(chromium(), server, "dee@example.com", { hash: "#/screener" })
    await page.getByLabel("Query").fill("price > 10 AND rsi_14 < 40")
    await page.getByRole("button", { name: "Columns" }).click()
    await page.getByLabel("Find a column").fill("rsi")
    await page.getByRole("checkbox", { name: /^rsi_14 / }).check()
    await page.getByLabel("Find a column").fill("earnings")
    await page.getByRole("checkbox", { name: /^pe_ratio / }).check()
    expect(await page.getByRole("button", { name: "Columns (2)" }).count()).toBe(1)
    await page.getByRole("button", { name: "Run" }).click()
    await page.getByRole("table").waitFor()
    const headers = await page.getByRole("columnheader").allTextContents()
    expect(headers).toEqual(expect.arrayContaining(["rsi_14", "pe_ratio"]))
    const at = headers.indexOf("rsi_14")
    const rsi = await page.locator(`tbody tr td:nth-child(${at + 1})`).allTextContents()
    expect(rsi.length).toBeGreaterThan(0)
    for (const v of rsi) expect(Number(v)).toBeLessThan(40)

    await page.getByLabel("Rule name").fill("cheap dips")
    await page.getByRole("button", { name: "Save as rule" }).click()
    await page.getByText(/^Saved as cheap dips/).waitFor()

    await page.reload()
    await page.getByLabel("Saved rules").selectOption({ label: "cheap dips" })
    await expect.poll(() => page.getByLabel("Query").inputValue()).toBe("price > 10 AND rsi_14 < 40")
    expect(await page.getByRole("button", { name: "Columns (2)" }).count()).toBe(1)
    await context.close()
  }, 90_000)

  it("backtests the screen: the growth of 1 against the benchmark drawn, the summary beside, errors named", async () => {
    const { page, context } = await signedIn(chromium(), server, "eve@example.com", { hash: "#/screener" })
    await page.getByLabel("Query").fill("rsi_14 < 30 AND price > 5")
    await page.getByRole("button", { name: "Run" }).click()
    await page.getByRole("heading", { name: "Backtest this screen" }).waitFor()
    await page.getByLabel("Hold").fill("5x")
    await page.getByRole("button", { name: "Backtest" }).click()
    await expect.poll(() => page.getByRole("alert").textContent(), { timeout: 30_000 }).toMatch(/hold/)

    await page.getByLabel("Hold").fill("5d")
    await page.getByLabel("Top N").fill("20")
    await page.getByRole("button", { name: "Backtest" }).click()
    const summary = page.getByRole("status").filter({ hasText: "periods" })
    await summary.waitFor({ timeout: 60_000 })
    expect(await summary.textContent()).toMatch(
      /^\d+ periods \(\d+ invested, \d+ tickers on average\): the screen [+-]\d+\.\d\d%, SPY [+-]\d+\.\d\d%\./
    )
    const chart = page.getByRole("img", { name: "Growth of 1: the screen against SPY" })
    await chart.locator("canvas").first().waitFor({ timeout: 20_000 })
    expect(Number(await chart.getAttribute("data-points"))).toBeGreaterThan(50)
    expect(await page.getByRole("table", { name: "Backtest summary" }).getByRole("row").count()).toBe(4)
    await context.close()
  }, 120_000)
})
