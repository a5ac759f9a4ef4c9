/**
 * The dashboard's screenshots in docs/screenshots (README, docs/dashboard.md): the service in this
 * process on the whole simulated market, a dashboard user on Scale with an in-app alert, and
 * Debian's Chromium (playwright-core) at a phone's width (390 px) and a desktop's (1280 px).
 * `npm run docs:screenshots` (needs /usr/bin/chromium; `.ci/run` installs it).
 */
import { mkdirSync } from "node:fs"
import { join, resolve } from "node:path"
import { launchChromium } from "../test/support/browser.js"
import { startService } from "../test/support/inProcess.js"
import { ADMIN_TOKEN, waitReady } from "../test/support/server.js"

const OUT = resolve(import.meta.dirname, "../docs/screenshots")
const WIDTHS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 800 }
] as const

const service = await startService({})
await waitReady(service, 180_000)
const admin = async (path: string, body: unknown) => {
  const res = await fetch(`${service.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return (await res.json()) as any
}
const user = await admin("/admin/users", { email: "ann@example.com", plan: "scale" })
const key = (await admin(`/admin/accounts/${user.account_id}/keys`, {})).api_key
for (const [ticker, condition] of [
  ["msft", "price > 0"],
  ["nvda", "rsi_14 > 0"]
]) {
  await fetch(`${service.url}/v2/tickers/${ticker}/subscribe`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ condition })
  })
}
await admin("/admin/refresh", {})

mkdirSync(OUT, { recursive: true })
const browser = await launchChromium()
for (const size of WIDTHS) {
  const context = await browser.newContext({
    viewport: { width: size.width, height: size.height },
    colorScheme: "light"
  })
  const page = await context.newPage()
  const shot = (name: string) => page.screenshot({ path: join(OUT, `${name}-${size.name}.png`) })
  await page.goto(`${service.url}/`)
  await page.getByLabel("Email").fill("ann@example.com")
  await shot("sign-in")
  await page.getByLabel("Password").fill(user.password)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Screener" }).click()
  await page.getByLabel("Query").fill("rsi_14 < 30 AND price > 5 AND market_cap > 1e9")
  await page.getByRole("button", { name: "Run" }).click()
  await page.getByRole("table").waitFor()
  await shot("screener")
  await page.getByRole("button", { name: "Backtest" }).click()
  await page
    .getByRole("img", { name: /^Growth of 1/ })
    .locator("canvas")
    .first()
    .waitFor({ timeout: 120_000 })
  await page.waitForTimeout(1_000)
  await page.getByRole("heading", { name: "Backtest this screen" }).scrollIntoViewIfNeeded()
  await shot("backtest")
  await page.getByLabel("Query").fill("rsi_14 < 30 AND ")
  await page.getByLabel("Query").pressSequentially("mark")
  await page.getByRole("listbox", { name: "Suggestions" }).getByRole("option").first().waitFor()
  await page.evaluate("window.scrollTo(0, 0)")
  await shot("completion")
  await page.getByLabel("Query").press("Escape")
  await page.goto(`${service.url}/#/tickers/MSFT`)
  await page.locator("[data-render-ms]").waitFor({ timeout: 60_000 })
  // the chart follows its box's size (autoSize) a moment after it is drawn
  await page.waitForTimeout(1_000)
  await page.mouse.move(0, 0)
  await shot("ticker")
  await page.goto(`${service.url}/#/inbox`)
  await page.getByRole("list", { name: "Notifications" }).waitFor({ timeout: 30_000 })
  await shot("inbox")
  await page.goto(`${service.url}/#/subscriptions`)
  await page.getByRole("table").waitFor()
  await shot("subscriptions")
  await page.getByRole("link", { name: /MSFT/ }).first().click()
  await page.getByLabel("Ticker").fill("MSFT")
  await page.getByRole("button", { name: "Explain", exact: true }).click()
  await page.getByRole("list", { name: "Why MSFT" }).waitFor({ timeout: 30_000 })
  await shot("subscription")
  await page.goto(`${service.url}/#/subscriptions/new?q=${encodeURIComponent("rsi_14 < 30 AND price > 5")}`)
  await page.getByLabel("Fire on").selectOption("both")
  await page.getByLabel("Clear when").fill("rsi_14 > 40")
  await page.getByRole("button", { name: "Preview" }).click()
  await page.getByRole("status").filter({ hasText: "would have sent" }).waitFor({ timeout: 120_000 })
  await shot("subscription-form")
  await page.goto(`${service.url}/#/signals`)
  await page.getByLabel("Search signals").fill("rsi")
  await shot("signals")
  await page.goto(`${service.url}/#/universes`)
  await page.getByRole("heading", { name: "Universes", level: 1 }).waitFor()
  await shot("universes")
  await page.getByLabel("Theme").selectOption("dark")
  await page.goto(`${service.url}/#/tickers/MSFT`)
  await page.locator("[data-render-ms]").waitFor({ timeout: 60_000 })
  await page.waitForTimeout(1_000)
  await page.mouse.move(0, 0)
  await shot("ticker-dark")
  await context.close()
}
await browser.close()
await service.stop()
console.log(`screenshots written to ${OUT}`)
process.exit(0)
