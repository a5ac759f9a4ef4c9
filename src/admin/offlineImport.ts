/**
 * Import without a running service: each file parsed and checked as the service would
 * (`bulkImport.ts`), then stored in one transaction of its own in the database the service uses
 * (DATABASE_URL, or the embedded one under DATA_DIR), one file after the other. The service lays
 * them over the simulated history at its next start. The first bad file stops the import; the
 * files before it stay stored.
 */

import { createReadStream } from "node:fs"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Clock, Effect, Layer } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { BulkImport, type ImportReport, importEach } from "../market/sources/bulkImport.js"
import { tickerDirectory } from "../market/tickers/index.js"
import { DatabaseLive } from "../store/Database.js"
import { ImportedBars } from "../store/importedBars.js"
import { runMigrations } from "../store/migrate.js"
import { isGzipFile } from "./importPaths.js"

/** The files stored, and the error that stopped the import (`file:line: reason`), if one did. */
export interface OfflineResult {
  readonly report: ImportReport
  readonly error?: string
}

/** Imports `files` in order into the store of the current scope (tests give theirs). */
export const importFiles = (files: ReadonlyArray<string>, ticker: string | undefined) =>
  Effect.gen(function* () {
    const directory = tickerDirectory()
    const store = yield* ImportedBars
    const now = yield* Clock.currentTimeMillis
    const bulk = new BulkImport(store)
    const error = yield* importEach(
      files.map((file) => ({
        file,
        bytes: NodeStream.fromReadable(
          () => createReadStream(file),
          (e) => `${file}: cannot be read (${(e as Error)?.message ?? String(e)})`
        ),
        gzip: isGzipFile(file)
      })),
      bulk,
      { ticker, directory, now }
    )
    // processes following ticks (none should be running, the service was not reachable) re-read these
    yield* store.logImport(bulk.storedTickers())
    const result: OfflineResult = error === undefined ? { report: bulk.report() } : { report: bulk.report(), error }
    return result
  })

export const offlineImport = (files: ReadonlyArray<string>, ticker: string | undefined) =>
  runMigrations.pipe(
    Effect.zipRight(importFiles(files, ticker)),
    Effect.provide(ImportedBars.Default.pipe(Layer.provideMerge(DatabaseLive), Layer.provide(AppConfig.layer)))
  )
