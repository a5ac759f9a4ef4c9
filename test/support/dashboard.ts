/** A dashboard user signed in in a fresh browser context (the browser suites' first steps). */
import type { Browser, BrowserContext, Page } from "playwright-core"
import { admin, type Reachable } from "./server.js"

export interface SignedIn {
  readonly context: BrowserContext
  readonly page: Page
  readonly accountId: string
  readonly password: string
  /** an API key of the user's account (for driving /v2 beside the page) */
  readonly apiKey: () => Promise<string>
}

export const signedIn = async (
  browser: Browser,
  server: Reachable,
  email: string,
  options: { readonly plan?: string; readonly width?: number; readonly hash?: string } = {}
): Promise<SignedIn> => {
  const made = await admin(server, "POST", "/admin/users", { email, plan: options.plan ?? "pro" })
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 } })
  const page = await context.newPage()
  await page.goto(`${server.url}/${options.hash ?? ""}`)
  await page.getByLabel("Email").fill(email)
  await page.getByLabel("Password").fill(made.body.password)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("button", { name: "Sign out" }).waitFor()
  return {
    context,
    page,
    accountId: made.body.account_id,
    password: made.body.password,
    apiKey: async () => (await admin(server, "POST", `/admin/accounts/${made.body.account_id}/keys`, {})).body.api_key
  }
}
