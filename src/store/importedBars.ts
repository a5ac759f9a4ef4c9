/**
 * Imported daily bars: replaced per ticker over the imported date range in
 * one transaction (all of a file or nothing), read back in bulk at start.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"

/** A daily bar as stored (what the market's CSV parser gives; the store knows no market module). */
export interface StoredBar {
  readonly ticker: string
  readonly date: string
  readonly open: number
  readonly high: number
  readonly low: number
  readonly close: number
  readonly volume: number
}

/** rows per INSERT … SELECT FROM unnest(…): keeps statements small on PGlite */
const BATCH = 5_000

export class ImportedBars extends Effect.Service<ImportedBars>()("vigil/ImportedBars", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const replace = (byTicker: ReadonlyMap<string, ReadonlyArray<StoredBar>>) =>
      Effect.gen(function* () {
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        for (const [ticker, bars] of byTicker) {
          if (bars.length === 0) continue
          const from = bars[0].date
          const to = bars[bars.length - 1].date
          yield* sql`DELETE FROM imported_bars WHERE ticker = ${ticker} AND date BETWEEN ${from} AND ${to}`
          for (let i = 0; i < bars.length; i += BATCH) {
            const chunk = bars.slice(i, i + BATCH)
            yield* sql`INSERT INTO imported_bars (ticker, date, open, high, low, close, volume, imported_at)
              SELECT ${ticker}, d, o, h, l, c, v, ${now}
              FROM unnest(${chunk.map((b) => b.date)}::text[], ${chunk.map((b) => b.open)}::float8[],
                          ${chunk.map((b) => b.high)}::float8[], ${chunk.map((b) => b.low)}::float8[],
                          ${chunk.map((b) => b.close)}::float8[], ${chunk.map((b) => b.volume)}::float8[])
                AS t(d, o, h, l, c, v)`
          }
        }
        // logged, so every process that follows ticks applies it before its next one (migration 0015)
        const tickers = [...byTicker.keys()]
        if (tickers.length > 0) {
          yield* sql`INSERT INTO market_imports (tickers, created_at) VALUES (${tickers}::text[], ${now})`
        }
      }).pipe(sql.withTransaction)

    /** every imported bar (of `tickers` only, when given), grouped by ticker, dates ascending */
    const load = (tickers?: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const rows = yield* sql<StoredBar>`SELECT ticker, date, open, high, low, close, volume FROM imported_bars
        ${tickers === undefined ? sql`` : sql`WHERE ticker = ANY(${tickers}::text[])`} ORDER BY ticker, date`
        const out = new Map<string, Array<StoredBar>>()
        for (const r of rows) {
          const list = out.get(r.ticker) ?? []
          list.push(r)
          out.set(r.ticker, list)
        }
        return out as ReadonlyMap<string, ReadonlyArray<StoredBar>>
      })

    return { replace, loadAll: load(), load } as const
  })
}) {}
