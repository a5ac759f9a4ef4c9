/**
 * Debian's Chromium driven by playwright-core (issue 18, the dashboard's browser tests): `.ci/run`
 * installs it with apt-get; without it those suites are skipped, and the run says so
 * (notice.ts). Launched headless with the flags this closed network needs (no background
 * networking, no component updates, no sync: otherwise it keeps dialling hosts that refuse it)
 * and a fresh profile each time.
 */
import { existsSync } from "node:fs"
import { type Browser, chromium } from "playwright-core"

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/** Chromium is here (the browser suites run) */
export const HAS_CHROMIUM = existsSync(CHROMIUM)

export const NEEDS_CHROMIUM = `needs Chromium at ${CHROMIUM}`

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
