/**
 * Import without a running service: parses the file, checks it as the
 * service would, and stores the bars in the database the service uses
 * (DATABASE_URL, or the embedded one under DATA_DIR). The service lays them
 * over the simulated history at its next start.
 */

import { readFileSync } from "node:fs"
import { Clock, Effect, Layer } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { cryptoTradingDate, equityTradingDate } from "../market/calendar.js"
import { CsvBarParser } from "../market/sources/csvBars.js"
import { tickerDirectory } from "../market/tickers/index.js"
import { DatabaseLive } from "../store/Database.js"
import { ImportedBars } from "../store/importedBars.js"
import { runMigrations } from "../store/migrate.js"

export const offlineImport = (file: string, ticker: string | undefined) =>
  Effect.gen(function* () {
    const directory = tickerDirectory()
    const parser = new CsvBarParser({
      file,
      ticker,
      resolveTicker: (symbol) => directory.lookup(symbol)?.ticker
    })
    const parsed = yield* Effect.try({
      try: () => {
        parser.push(readFileSync(file, "utf8"))
        return parser.finish()
      },
      catch: (e) => e as Error
    })
    const now = yield* Clock.currentTimeMillis
    let rows = 0
    let from = "9999-12-31"
    let to = "0000-01-01"
    for (const [symbol, bars] of parsed) {
      const crypto = directory.lookup(symbol)?.asset_type === "CRYPTO"
      const current = crypto ? cryptoTradingDate(now) : equityTradingDate(now)
      const last = bars[bars.length - 1].date
      if (last >= current) {
        return yield* Effect.fail(
          new Error(`${symbol}: bar dated ${last} is not before the current session (${current})`)
        )
      }
      rows += bars.length
      if (bars[0].date < from) from = bars[0].date
      if (last > to) to = last
    }
    yield* runMigrations
    yield* (yield* ImportedBars).replace(parsed)
    return { tickers: [...parsed.keys()].sort(), rows, from, to }
  }).pipe(Effect.provide(ImportedBars.Default.pipe(Layer.provideMerge(DatabaseLive), Layer.provide(AppConfig.layer))))
