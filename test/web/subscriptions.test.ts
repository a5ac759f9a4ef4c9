/**
 * The dashboard's subscriptions (issue 18, items 6 and 9), in Chromium: the full form (channel,
 * target, cadence, fields, firing options) saved only after its dry-run — a changed rule previewed
 * again — the signing secret shown once, then the subscription's page: its event feed, the
 * delivery log with a failed delivery retried by hand, explain drawn as a tree, snooze, secret
 * rotation, an edit, and sign-out.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HAS_CHROMIUM, NEEDS_CHROMIUM } from "../support/browser.js"
import { chromiumForSuite } from "../support/chromiumSuite.js"
import { signedIn } from "../support/dashboard.js"
import { type LocalReceiver, startReceiver } from "../support/receiver.js"
import { admin } from "../support/server.js"
import { serveForSuite } from "../support/suiteServer.js"

describe.skipIf(!HAS_CHROMIUM)(`the dashboard's subscriptions in Chromium (${NEEDS_CHROMIUM})`, () => {
  const server = serveForSuite({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true" })
  const chromium = chromiumForSuite()
  let receiver: LocalReceiver
  beforeAll(async () => {
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await receiver?.close()
  })

  it("creates a webhook subscription after its dry-run, then feeds, retries, explains, snoozes, rotates and edits it", async () => {
    const { page, context, apiKey } = await signedIn(chromium(), server, "sue@example.com")
    const key = await apiKey()
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Subscriptions" }).click()
    await page.getByRole("link", { name: "make a new subscription" }).click()
    await page.getByRole("heading", { name: "New subscription" }).waitFor()

    await page.getByLabel("Name", { exact: true }).fill("msft watch")
    await page.getByLabel("Query").fill("ticker = 'MSFT' AND price > 0")
    await page.getByLabel("Fire on").selectOption("both")
    await page.getByLabel("Cooldown").fill("1h")
    await page.getByLabel("Channel").selectOption("webhook")
    // the receiver says 410 Gone first: the delivery fails for good (and the webhook is disabled)
    receiver.respond("/hook", 410)
    await page.getByLabel("Target URL").fill(receiver.url("/hook"))
    await page.getByLabel("Extra fields").fill("rsi_14, day_change_pct")
    const create = page.getByRole("button", { name: "Create subscription" })
    expect(await create.isDisabled()).toBe(true)

    await page.getByRole("button", { name: "Preview" }).click()
    const preview = page.getByRole("status").filter({ hasText: "would have sent" })
    await preview.waitFor({ timeout: 30_000 })
    expect(await preview.textContent()).toMatch(/\(\d+ evaluations\) it would have sent [1-9]\d* alerts?/)
    expect(await page.getByRole("table", { name: "Forward returns" }).getByRole("row").count()).toBe(4)
    expect(await create.isDisabled()).toBe(false)
    // a changed rule is previewed again before it can be saved
    await page.getByLabel("Cooldown").fill("2h")
    await page.getByText("The rule changed since this preview").waitFor()
    expect(await create.isDisabled()).toBe(true)
    await page.getByRole("button", { name: "Preview" }).click()
    await expect.poll(() => create.isDisabled(), { timeout: 30_000 }).toBe(false)
    await create.click()

    // the signing secret, this once
    const secret = await page.getByLabel("Signing secret").inputValue()
    expect(secret).toMatch(/^whsec_/)
    await page.getByRole("link", { name: "Open msft watch" }).click()
    await page.getByRole("heading", { name: "msft watch" }).waitFor()
    expect(await page.locator("dl.settings").textContent()).toContain("both, cooldown 2h")
    expect(await page.locator("dl.settings").textContent()).toContain("rsi_14, day_change_pct")
    expect(await page.getByRole("main").textContent()).not.toContain(secret)

    const listed = await fetch(`${server.url}/v2/webhooks`, { headers: { authorization: `Bearer ${key}` } })
    const [hook] = ((await listed.json()) as any).webhooks
    expect(hook).toMatchObject({
      name: "msft watch",
      channel: "webhook",
      target_url: receiver.url("/hook"),
      fire_on: "both",
      cooldown: "2h",
      fields: ["rsi_14", "day_change_pct"]
    })

    // a refresh fires it: the event feed shows it, the delivery fails (410) and is retried by hand
    expect((await admin(server, "POST", "/admin/refresh")).status).toBe(200)
    await expect.poll(() => receiver.at("/hook").length, { timeout: 20_000 }).toBeGreaterThan(0)
    await page.getByRole("button", { name: "Reload events" }).click()
    const events = page.getByRole("list", { name: "Events" })
    await events.waitFor({ timeout: 20_000 })
    expect(await events.textContent()).toMatch(/#1.*fired.*MSFT/)

    const deliveries = page.getByRole("table", { name: "Deliveries" })
    await expect
      .poll(
        async () => {
          await page.getByRole("button", { name: "Reload deliveries" }).click()
          return (await deliveries.count()) > 0 ? deliveries.getByRole("row").nth(1).textContent() : ""
        },
        { timeout: 20_000 }
      )
      .toMatch(/webhook\.fired.*failed.*410/)
    receiver.respond("/hook", 200)
    await deliveries.getByRole("button", { name: /^Retry/ }).click()
    await page.getByText(/sent again/).waitFor()
    await expect
      .poll(
        async () => {
          await page.getByRole("button", { name: "Reload deliveries" }).click()
          return deliveries.getByRole("row").nth(1).textContent()
        },
        { timeout: 20_000 }
      )
      .toMatch(/delivered/)
    expect(receiver.at("/hook").length).toBeGreaterThanOrEqual(2)

    // explain: the rule's tree at MSFT
    await page.getByLabel("Ticker").fill("MSFT")
    await page.getByRole("button", { name: "Explain", exact: true }).click()
    const tree = page.getByRole("list", { name: "Why MSFT" })
    await tree.waitFor()
    expect(await tree.textContent()).toMatch(/holds: AND/)
    expect(await tree.textContent()).toMatch(/holds: ticker = 'MSFT'/)
    expect(await tree.textContent()).toMatch(/price = [\d,.]+/)

    // snooze a day, then end it
    await page.getByLabel("Snooze for").selectOption({ label: "1 day" })
    await page.getByRole("button", { name: "Snooze", exact: true }).click()
    await page
      .locator("dl.settings")
      .getByText(/snoozed until/)
      .waitFor()
    await page.getByRole("button", { name: "End snooze" }).click()
    await page.getByText("Snooze ended.").waitFor()
    // the settings are read again after the change: gone once that answer is drawn
    await page
      .locator("dl.settings")
      .getByText(/snoozed until/)
      .waitFor({ state: "detached" })
    expect(await page.locator("dl.settings").textContent()).not.toContain("snoozed until")

    // a new secret, shown once
    page.once("dialog", (dialog) => void dialog.accept())
    await page.getByRole("button", { name: "Rotate secret" }).click()
    const rotated = await page.getByLabel("New signing secret").inputValue()
    expect(rotated).toMatch(/^whsec_/)
    expect(rotated).not.toBe(secret)

    // an edit: the cooldown changed is previewed before it is saved
    await page.getByRole("link", { name: "Edit", exact: true }).click()
    await page.getByRole("heading", { name: "Edit msft watch" }).waitFor()
    const save = page.getByRole("button", { name: "Save changes" })
    expect(await save.isDisabled()).toBe(false)
    expect(await page.getByLabel("Query").getAttribute("readonly")).not.toBeNull()
    await page.getByLabel("Cooldown").fill("4h")
    expect(await save.isDisabled()).toBe(true)
    await page.getByRole("button", { name: "Preview" }).click()
    await expect.poll(() => save.isDisabled(), { timeout: 30_000 }).toBe(false)
    await save.click()
    await page.getByRole("heading", { name: "msft watch" }).waitFor()
    await expect.poll(() => page.locator("dl.settings").textContent()).toContain("cooldown 4h")

    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByRole("button", { name: "Sign in" }).waitFor()
    await context.close()
  }, 180_000)

  it("refuses a rule the API refuses, at its place, and keeps the form", async () => {
    const { page, context } = await signedIn(chromium(), server, "tom@example.com", { hash: "#/subscriptions/new" })
    await page.getByRole("heading", { name: "New subscription" }).waitFor()
    await page.getByLabel("Query").fill("rsi_14 < 30")
    await page.getByLabel("Clear when").fill("rsi_41 > 40")
    await page.getByRole("button", { name: "Preview" }).click()
    const alert = page.getByRole("alert")
    await alert.waitFor({ timeout: 20_000 })
    expect(await alert.textContent()).toMatch(/rsi_41/)
    await page.getByLabel("Clear when").fill("rsi_14 > 40")
    await page.getByLabel("Pending for").fill("3x")
    await page.getByRole("button", { name: "Preview" }).click()
    await expect.poll(() => alert.textContent(), { timeout: 20_000 }).toMatch(/pending_for/)
    expect(await page.getByLabel("Query").inputValue()).toBe("rsi_14 < 30")
    await context.close()
  }, 90_000)
})
