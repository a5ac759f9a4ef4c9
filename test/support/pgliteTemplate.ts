/**
 * vitest globalSetup: one embedded database, created and migrated once per
 * run, that every service a test starts on a new data directory begins from
 * (a copy in its `pgdata`), as a service restarted on an existing data
 * directory does. Creating the cluster (PGlite's initdb) costs ~7 s of CPU
 * per start, paid here once instead of by each of ~30 service starts. Tests
 * of creating the database itself give their own `DATA_DIR`.
 *
 * The path travels in `VIGIL_TEST_PGDATA` (the test processes inherit it;
 * the service never reads it): server.ts and inProcess.ts copy from it.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Logger, LogLevel } from "effect"
import { pgliteLayer } from "../../src/store/Database.js"
import { runMigrations } from "../../src/store/migrate.js"

export default async function pgliteTemplate(): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), "vigil-test-pgdata-"))
  await Effect.runPromise(
    runMigrations.pipe(Effect.provide(pgliteLayer(dir)), Effect.scoped, Logger.withMinimumLogLevel(LogLevel.Warning))
  )
  process.env.VIGIL_TEST_PGDATA = join(dir, "pgdata")
  return () => rmSync(dir, { recursive: true, force: true })
}
