/** Chromium for a vitest suite (browser.ts; this module needs vitest's hooks, as suiteServer.ts). */
import type { Browser } from "playwright-core"
import { afterAll, beforeAll } from "vitest"
import { launchChromium } from "./browser.js"

/**
 * Chromium for a describe block: launched before its tests, closed after them. The answer is the
 * browser (use it inside hooks and tests).
 */
export const chromiumForSuite = (): (() => Browser) => {
  let browser: Browser | undefined
  beforeAll(async () => {
    browser = await launchChromium()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
  })
  return () => {
    if (browser === undefined) throw new Error("the suite's Chromium has not started")
    return browser
  }
}
