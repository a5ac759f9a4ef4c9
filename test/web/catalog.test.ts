/**
 * The dashboard's Signals and Universes pages (issue 18, item 5), in Chromium: the catalog searched
 * by name and description; a custom signal typed wrong (the server's live check shows the problem
 * at its place with the suggestion, nothing saved), fixed, created, used by `/v2/scan`, edited and
 * deleted (also when another signal names it); a Hobby user told custom signals need Pro; a
 * universe created, grown, shrunk, renamed and deleted, the API's refusals shown with its message.
 * Everything is found by role and accessible name.
 */

import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { HAS_CHROMIUM, NEEDS_CHROMIUM } from "../support/browser.js"
import { chromiumForSuite } from "../support/chromiumSuite.js"
import { signedIn } from "../support/dashboard.js"
import { api, type Reachable } from "../support/server.js"
import { serveForSuite } from "../support/suiteServer.js"

/** a `/v2` call with an API key, beside the page */
const v2 = (server: Reachable, key: string, method: string, path: string, body?: unknown) =>
  api(server, key, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

/** accept every confirm() of the page, keeping what it asked */
const confirmAll = (page: Page): Array<string> => {
  const asked: Array<string> = []
  page.on("dialog", (dialog) => {
    asked.push(dialog.message())
    void dialog.accept()
  })
  return asked
}

const WAIT = { timeout: 20_000 }

describe.skipIf(!HAS_CHROMIUM)(`the Signals and Universes pages in Chromium (${NEEDS_CHROMIUM})`, () => {
  const server = serveForSuite()
  const chromium = chromiumForSuite()

  it("lists the whole catalog with descriptions and filters it by name and description as one types", async () => {
    const user = await signedIn(chromium(), server, "sue@example.com", { hash: "#/signals" })
    const { page } = user
    await page.getByRole("heading", { name: "Signals", level: 1 }).waitFor(WAIT)
    const catalog = (await v2(server, await user.apiKey(), "GET", "/v2/signals")).body
    const table = page.getByRole("table", { name: "Catalog" })
    await table.waitFor(WAIT)
    expect(await table.getByRole("columnheader").allTextContents()).toEqual([
      "Name",
      "Kind",
      "Type",
      "Unit",
      "Description"
    ])
    const rows = table.getByRole("row")
    // every built-in, plus the header
    expect(await rows.count()).toBe(catalog.count_builtin + 1)
    const rsi = table.getByRole("row").filter({ has: page.getByRole("cell", { name: "rsi_14", exact: true }) })
    // the definitions arrive with the page's own chunk
    await expect.poll(() => rsi.getByRole("cell").nth(4).textContent(), WAIT).toMatch(/^Relative strength index/)
    expect(await rsi.getByRole("cell").allTextContents()).toEqual([
      "rsi_14",
      "built-in",
      "numeric",
      "index",
      expect.stringContaining("Wilder's smoothing")
    ])

    await page.getByLabel("Search signals").fill("rsi")
    await expect.poll(() => rows.count(), WAIT).toBeLessThan(catalog.count_builtin + 1)
    const texts = await table.locator("tbody").getByRole("row").allTextContents()
    expect(texts.length).toBeGreaterThanOrEqual(3)
    for (const text of texts) expect(text.toLowerCase()).toContain("rsi")
    expect(await page.getByText(`${texts.length} of ${catalog.count_builtin} signals match.`).count()).toBe(1)

    // by description too: "oversold" names rsi_oversold and stoch_oversold; "wilder" only a definition
    await page.getByLabel("Search signals").fill("wilder")
    await expect.poll(() => table.locator("tbody").getByRole("row").count(), WAIT).toBeGreaterThanOrEqual(1)
    for (const text of await table.locator("tbody").getByRole("row").allTextContents()) {
      expect(text.toLowerCase()).toContain("wilder")
    }
    expect(await table.getByRole("cell", { name: "rsi_14", exact: true }).count()).toBe(1)

    await page.getByLabel("Search signals").fill("no such signal anywhere")
    await page.getByText(`0 of ${catalog.count_builtin} signals match.`).waitFor(WAIT)
    expect(await page.getByRole("table", { name: "Catalog" }).count()).toBe(0)
    await user.context.close()
  }, 90_000)

  it("creates a custom signal after the live check points at a mistake, uses it with /v2/scan, edits and deletes it", async () => {
    const user = await signedIn(chromium(), server, "tom@example.com", { hash: "#/signals" })
    const { page } = user
    const key = await user.apiKey()
    const asked = confirmAll(page)
    await page.getByRole("heading", { name: "Your signals" }).waitFor(WAIT)
    await page.getByText("No custom signals yet.").waitFor(WAIT)

    await page.getByLabel("Name", { exact: true }).fill("cheap_oversold")
    const expression = page.getByLabel("Expression", { exact: true })
    await expression.fill("pric > 10 AND rsi_14 < 30")
    // checked as typed, without pressing anything: the problem at its place, with the suggestion
    const problem = page.getByRole("alert").filter({ hasText: "did you mean 'price'?" })
    await problem.waitFor(WAIT)
    expect(await problem.textContent()).toMatch(/unknown column 'pric'.*did you mean 'price'\?/)
    expect(await problem.locator("pre").textContent()).toBe("pric > 10 AND rsi_14 < 30\n^")
    expect(await expression.getAttribute("aria-invalid")).toBe("true")
    // nothing was saved by the check
    expect((await v2(server, key, "GET", "/v2/signals?kind=custom")).body.count_custom).toBe(0)

    // a problem further in: the caret moves under it
    await expression.fill("price > 10 AND rsi_14 <")
    await expect
      .poll(() => page.getByRole("alert").locator("pre").textContent(), WAIT)
      .toBe(`price > 10 AND rsi_14 <\n${" ".repeat(23)}^`)

    await expression.fill("price > 10 AND rsi_14 < 30")
    await page.getByText("✓ Compiles.").waitFor(WAIT)
    expect(await page.getByRole("alert").count()).toBe(0)
    expect(await expression.getAttribute("aria-invalid")).toBe("false")
    await page.getByRole("button", { name: "Create signal" }).click()
    await page.getByRole("status").filter({ hasText: "Created cheap_oversold." }).waitFor(WAIT)
    const card = page.getByRole("article", { name: "cheap_oversold" })
    expect(await card.textContent()).toContain("price > 10 AND rsi_14 < 30")
    expect(await expression.inputValue()).toBe("")
    // in the catalog too, first, as custom
    const catalogRow = page.getByRole("table", { name: "Catalog" }).locator("tbody").getByRole("row").first()
    await expect.poll(() => catalogRow.getByRole("cell").nth(1).textContent(), { timeout: 10_000 }).toBe("custom")

    // the API resolves it in a screen's q, as the account's
    const scanned = await v2(server, key, "POST", "/v2/scan", { q: "cheap_oversold", fields: "rsi_14", limit: 100 })
    expect(scanned.status).toBe(200)
    const spelled = await v2(server, key, "POST", "/v2/scan", { q: "price > 10 AND rsi_14 < 30", limit: 1 })
    expect(scanned.body.total).toBe(spelled.body.total)
    for (const row of scanned.body.results) {
      expect(row.price).toBeGreaterThan(10)
      expect(row.rsi_14).toBeLessThan(30)
    }

    // a create the API refuses shows its problem the same way
    await page.getByLabel("Name", { exact: true }).fill("price")
    await expression.fill("volume_today > 0")
    await page.getByRole("button", { name: "Create signal" }).click()
    await page.getByRole("alert").filter({ hasText: "price is a built-in column" }).waitFor(WAIT)

    // edit: the expression opens in place, checked as typed, then saved
    await card.getByRole("button", { name: "Edit cheap_oversold" }).click()
    const edited = page.getByLabel("Expression of cheap_oversold")
    expect(await edited.inputValue()).toBe("price > 10 AND rsi_14 < 30")
    await edited.fill("price > 20 AND rsi_14 < 3O")
    await card.getByRole("alert").filter({ hasText: "invalid number '3O'" }).waitFor(WAIT)
    await edited.fill("price > 20 AND rsi_14 < 30")
    await page.getByLabel("Description of cheap_oversold").fill("oversold, above $20")
    await card.getByRole("button", { name: "Save" }).click()
    await page.getByRole("status").filter({ hasText: "Saved cheap_oversold." }).waitFor(WAIT)
    await card.getByText("price > 20 AND rsi_14 < 30").waitFor(WAIT)
    expect(await card.textContent()).toContain("oversold, above $20")
    const stored = (await v2(server, key, "GET", "/v2/signals?kind=custom")).body.signals
    expect(stored).toEqual([expect.objectContaining({ name: "cheap_oversold", expr: "price > 20 AND rsi_14 < 30" })])

    // delete, confirmed
    await card.getByRole("button", { name: /^Delete cheap_oversold/ }).click()
    await page.getByRole("status").filter({ hasText: "Deleted cheap_oversold." }).waitFor(WAIT)
    await page.getByText("No custom signals yet.").waitFor(WAIT)
    expect(asked).toEqual([expect.stringMatching(/^Delete cheap_oversold\?/)])
    expect((await v2(server, key, "POST", "/v2/scan", { q: "cheap_oversold" })).status).toBe(400)

    // one another signal names: the refusal says which, and a second confirmation deletes it anyway
    expect((await v2(server, key, "POST", "/v2/signals", { name: "base", expr: "price > 10" })).status).toBe(201)
    expect((await v2(server, key, "POST", "/v2/signals", { name: "derived", expr: "base AND gap_up" })).status).toBe(
      201
    )
    await page.reload()
    await page
      .getByRole("article", { name: "base" })
      .getByRole("button", { name: /^Delete base/ })
      .click()
    await page.getByRole("status").filter({ hasText: "Deleted base." }).waitFor(WAIT)
    expect(asked.slice(1)).toEqual([
      expect.stringMatching(/^Delete base\?/),
      expect.stringMatching(/^base is used by derived\. Delete it anyway\?/)
    ])
    expect((await v2(server, key, "GET", "/v2/signals?kind=custom")).body.signals.map((s: any) => s.name)).toEqual([
      "derived"
    ])
    await user.context.close()
  }, 120_000)

  it("shows a Hobby user the catalog and that custom signals need Pro, with no form", async () => {
    const user = await signedIn(chromium(), server, "una@example.com", { plan: "hobby", hash: "#/signals", width: 390 })
    const { page } = user
    const note = page.getByRole("note")
    await note.waitFor(WAIT)
    expect(await note.textContent()).toMatch(/Custom signals need the Pro plan or above; this account is on the hobby/)
    expect(await page.getByRole("button", { name: "Create signal" }).count()).toBe(0)
    expect(await page.getByLabel("Expression").count()).toBe(0)
    await page.getByRole("table", { name: "Catalog" }).waitFor(WAIT)
    // the page fits a phone: nothing wider than the viewport (the table scrolls in its own box)
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390)
    // what the note says is what the API says
    const refused = await v2(server, await user.apiKey(), "POST", "/v2/signals", { name: "x", expr: "price > 1" })
    expect(refused.status).toBe(403)
    expect(refused.body.error.code).toBe("custom_signals_tier_required")
    await user.context.close()
  }, 60_000)

  it("creates a universe, adds and removes tickers, shows the API's refusals, renames and deletes it", async () => {
    const user = await signedIn(chromium(), server, "vic@example.com", { hash: "#/universes", width: 390 })
    const { page } = user
    const key = await user.apiKey()
    const asked = confirmAll(page)
    await page.getByRole("heading", { name: "Universes", level: 1 }).waitFor(WAIT)
    const system = page.getByRole("table", { name: "System universes" })
    await system.waitFor(WAIT)
    expect(await system.getByRole("row").filter({ hasText: "top_10" }).getByRole("cell").nth(2).textContent()).toBe(
      "10"
    )
    expect(await system.getByRole("row").filter({ hasText: "top_100" }).getByRole("cell").nth(2).textContent()).toBe(
      "100"
    )
    await page.getByText("No universes of your own yet.").waitFor(WAIT)

    // an untracked ticker: the API's own message
    await page.getByLabel("Universe name").fill("My tech")
    await page.getByLabel("Tickers", { exact: true }).fill("aapl, ZZZZQ")
    await page.getByRole("button", { name: "Create universe" }).click()
    const direct = await v2(server, key, "POST", "/v2/universes", { name: "My tech", tickers: ["AAPL", "ZZZZQ"] })
    expect(direct.body.error.code).toBe("unknown_tickers")
    await page.getByRole("alert").filter({ hasText: direct.body.error.message }).waitFor(WAIT)

    await page.getByLabel("Tickers", { exact: true }).fill("aapl, msft")
    await page.getByRole("button", { name: "Create universe" }).click()
    await page.getByRole("status").filter({ hasText: "Created My tech (2 tickers)." }).waitFor(WAIT)
    const card = page.getByRole("article", { name: "My tech" })
    expect(
      await card.getByRole("list", { name: "Tickers of My tech" }).getByRole("listitem").allTextContents()
    ).toEqual(["AAPL×Remove AAPL from My tech", "MSFT×Remove MSFT from My tech"])
    const id = await card.locator("code").first().textContent()
    expect(id).toBe("my_tech")

    await card.getByLabel("Add tickers").fill("nvda")
    await card.getByRole("button", { name: /^Add/ }).click()
    await page.getByRole("status").filter({ hasText: "Added NVDA to My tech." }).waitFor(WAIT)
    await card.getByRole("button", { name: /^Remove MSFT/ }).click()
    await page.getByRole("status").filter({ hasText: "Removed MSFT from My tech." }).waitFor(WAIT)
    expect(await card.getByRole("button", { name: /^Remove / }).allTextContents()).toEqual([
      "×Remove AAPL from My tech",
      "×Remove NVDA from My tech"
    ])
    const got = await v2(server, key, "GET", `/v2/universes/${id}`)
    expect(got.status).toBe(200)
    expect(got.body).toMatchObject({ id, name: "My tech", size: 2, system: false })
    expect([...got.body.tickers].sort()).toEqual(["AAPL", "NVDA"])

    // adding an untracked ticker is refused, in the universe's own card, with the API's message
    await card.getByLabel("Add tickers").fill("ZZZZQ")
    await card.getByRole("button", { name: /^Add/ }).click()
    await card.getByRole("alert").filter({ hasText: "add: 1 symbol is not tracked: ZZZZQ" }).waitFor(WAIT)
    expect((await v2(server, key, "GET", `/v2/universes/${id}`)).body.size).toBe(2)

    await card.getByLabel("New name").fill("Big tech")
    await card.getByRole("button", { name: /^Rename/ }).click()
    await page.getByRole("status").filter({ hasText: "Renamed My tech to Big tech." }).waitFor(WAIT)
    const renamed = page.getByRole("article", { name: "Big tech" })
    await renamed.waitFor(WAIT)
    expect((await v2(server, key, "GET", `/v2/universes/${id}`)).body.name).toBe("Big tech")

    // the page fits a phone: nothing wider than the viewport
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390)

    await renamed.getByRole("button", { name: /^Delete/ }).click()
    await page.getByRole("status").filter({ hasText: "Deleted Big tech." }).waitFor(WAIT)
    await page.getByText("No universes of your own yet.").waitFor(WAIT)
    expect(asked).toEqual([expect.stringMatching(/^Delete the universe Big tech\?/)])
    expect((await v2(server, key, "GET", `/v2/universes/${id}`)).status).toBe(404)
    await user.context.close()
  }, 120_000)
})
