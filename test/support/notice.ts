/**
 * vitest globalSetup: before the run, one line for each external thing that is
 * absent and what is skipped for it, so a run on a fresh clone says why some
 * suites are skipped (their names say it too; see servers.ts). CI has them all.
 */
import { existsSync } from "node:fs"
import { DEFAULT_DATA_DIR } from "../../scripts/build-ticker-seed.js"
import { DATABASE_URL, REDIS_URL } from "./servers.js"

export default function notice(): void {
  const absent: Array<string> = []
  if (DATABASE_URL === undefined)
    absent.push("DATABASE_URL is not set: the suites that need a real PostgreSQL are skipped (the rest use PGlite)")
  if (REDIS_URL === undefined) absent.push("REDIS_URL is not set: the suites that need a real Redis are skipped")
  if (!existsSync(DEFAULT_DATA_DIR))
    absent.push(
      `no reference data at ${DEFAULT_DATA_DIR}: the data/tickers.json rebuild and the test/fixtures check are skipped`
    )
  for (const line of absent) process.stdout.write(`[vigil tests] ${line}; CI runs them.\n`)
}
