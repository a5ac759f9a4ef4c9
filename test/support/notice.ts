/**
 * vitest globalSetup: before the run, one line for each external thing that is
 * absent (a real PostgreSQL or Redis, Chromium) and what is skipped for it, so a run on a fresh clone says why some
 * suites are skipped (their names say it too; see servers.ts). CI has them all.
 */
import { CHROMIUM, HAS_CHROMIUM } from "./browser.js"
import { DATABASE_URL, REDIS_URL } from "./servers.js"

export default function notice(): void {
  const absent: Array<string> = []
  if (DATABASE_URL === undefined)
    absent.push("DATABASE_URL is not set: the suites that need a real PostgreSQL are skipped (the rest use PGlite)")
  if (REDIS_URL === undefined) absent.push("REDIS_URL is not set: the suites that need a real Redis are skipped")
  if (!HAS_CHROMIUM) absent.push(`no Chromium at ${CHROMIUM}: the dashboard's browser suites are skipped`)
  for (const line of absent) process.stdout.write(`[vigil tests] ${line}; CI runs them.\n`)
}
