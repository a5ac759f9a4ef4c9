/**
 * Imported daily bars and splits. Bars are replaced per ticker over the imported date range in
 * one transaction (all of a file or nothing), with a few statements per file whatever its number
 * of tickers (a whole-market day holds ~13,000); they are stored as their files give them and
 * read back split-adjusted (`splits.ts`), so bars and splits may arrive in any order.
 */
import { SqlClient } from "@effect/sql"
import type * as Statement from "@effect/sql/Statement"
import { Clock, Effect, Option } from "effect"
import type { StoredBar } from "../market/ports.js"
import { copyFromOf } from "./PgliteClient.js"
import { copyFromStdinOf } from "./pgCopy.js"
import { adjustForSplits, type Split } from "./splits.js"
import { isUniqueViolation } from "./sqlErrors.js"
import { numberArray, textList } from "./textList.js"

/** A daily bar as stored: the market's port defines it (`src/market/ports.ts`). */
export type { StoredBar } from "../market/ports.js"

export type { Split } from "./splits.js"

/** rows per INSERT … SELECT FROM unnest(…): a whole-market day in one statement, a long file in a few */
const BATCH = 20_000

export interface ReplaceOptions {
  /** the file already adjusted these bars for splits (an adjusted close column): imported splits leave them */
  readonly adjusted?: boolean
  /**
   * log the tickers in `market_imports` (default true), so every process following ticks applies
   * them before its next tick; a bulk import logs once for all its files (`logImport`)
   */
  readonly log?: boolean
}

const COPY_BARS = "COPY imported_bars (ticker, date, open, high, low, close, volume, imported_at, adjusted)"

/** rows per binary COPY */
const COPY_BATCH = 50_000

const encoder = new TextEncoder()

/**
 * The rows in PostgreSQL's binary COPY format (`COPY_BARS`'s columns: text, text, five float8,
 * int8, bool), in blobs of up to COPY_BATCH rows: no number is written or read as text (parsing
 * 65,000 numbers a day was the embedded store's largest cost, and a fifth of PostgreSQL's).
 */
export const binaryRows = (
  byTicker: ReadonlyMap<string, ReadonlyArray<StoredBar>>,
  importedAt: number,
  adjusted: boolean
): Array<Uint8Array> => {
  const out: Array<Uint8Array> = []
  const encoded = new Map<string, Uint8Array>()
  const bytesOf = (text: string) => {
    let b = encoded.get(text)
    if (b === undefined) {
      b = encoder.encode(text)
      encoded.set(text, b)
    }
    return b
  }
  const at = BigInt(importedAt)
  let rows: Array<readonly [Uint8Array, StoredBar]> = []
  let size = 0
  const flush = () => {
    // header: signature, flags, extension length; each row: field count, then length + bytes per field
    const buf = new Uint8Array(19 + size + 2)
    const view = new DataView(buf.buffer)
    buf.set([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00], 0)
    let p = 19 // flags and extension length: zero
    const float = (x: number) => {
      view.setInt32(p, 8)
      view.setFloat64(p + 4, x)
      p += 12
    }
    for (const [ticker, b] of rows) {
      view.setInt16(p, 9)
      p += 2
      for (const text of [ticker, bytesOf(b.date)]) {
        view.setInt32(p, text.length)
        buf.set(text, p + 4)
        p += 4 + text.length
      }
      float(b.open)
      float(b.high)
      float(b.low)
      float(b.close)
      float(b.volume)
      view.setInt32(p, 8)
      view.setBigInt64(p + 4, at)
      view.setInt32(p + 12, 1)
      buf[p + 16] = adjusted ? 1 : 0
      p += 17
    }
    view.setInt16(p, -1)
    out.push(buf)
    rows = []
    size = 0
  }
  for (const [ticker, bars] of byTicker) {
    const t = bytesOf(ticker)
    for (const b of bars) {
      rows.push([t, b])
      size += 2 + 4 + t.length + 4 + b.date.length + 5 * 12 + 12 + 5
      if (rows.length === COPY_BATCH) flush()
    }
  }
  if (rows.length > 0) flush()
  return out
}

export class ImportedBars extends Effect.Service<ImportedBars>()("vigil/ImportedBars", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

    /** processes following ticks apply imports of `tickers` before their next tick (migration 0015) */
    const logImport = (tickers: ReadonlyArray<string>) =>
      tickers.length === 0
        ? Effect.void
        : Effect.flatMap(
            nowSeconds,
            (now) => sql`INSERT INTO market_imports (tickers, created_at) VALUES (${tickers}::text[], ${now})`
          ).pipe(Effect.asVoid)

    /**
     * Each ticker's bars (dates ascending) replace its stored bars over their date range, in one
     * transaction. Tickers with a range of several days have their stored range deleted first (a
     * day the new file lacks goes); the rows are then inserted, as new rows — what a whole-market
     * day of a date not stored yet is, with no delete and no conflict handling (deleting 13,000
     * absent keys, or `ON CONFLICT`, each cost as much again) — and when a key is stored already
     * (a day imported again: the insert fails, back to its savepoint) as an upsert.
     */
    const replace = (byTicker: ReadonlyMap<string, ReadonlyArray<StoredBar>>, options: ReplaceOptions = {}) =>
      Effect.gen(function* () {
        const now = yield* nowSeconds
        const adjusted = options.adjusted === true
        const ranged: { t: Array<string>; f: Array<string>; l: Array<string> } = { t: [], f: [], l: [] }
        let total = 0
        for (const [ticker, bars] of byTicker) {
          if (bars.length === 0) continue
          total += bars.length
          const from = bars[0].date
          const to = bars[bars.length - 1].date
          if (from === to) continue
          ranged.t.push(ticker)
          ranged.f.push(from)
          ranged.l.push(to)
        }
        if (ranged.t.length > 0) {
          yield* sql`DELETE FROM imported_bars AS b
            USING unnest(${textList(sql, ranged.t)}, ${textList(sql, ranged.f)}, ${textList(sql, ranged.l)}) AS r(t, f, l)
            WHERE b.ticker = r.t AND b.date BETWEEN r.f AND r.l`
        }
        /** every row, in statements of up to BATCH rows across tickers: texts as lists, numbers as array literals */
        const literals = () => {
          const batches: Array<readonly [Statement.Fragment, Statement.Fragment, ...Array<string>]> = []
          const size = Math.min(BATCH, total)
          let t: Array<string> = []
          let d: Array<string> = []
          let o: Array<number> = []
          let h: Array<number> = []
          let l: Array<number> = []
          let c: Array<number> = []
          let v: Array<number> = []
          const cut = () => {
            batches.push([
              textList(sql, t),
              textList(sql, d),
              numberArray(o),
              numberArray(h),
              numberArray(l),
              numberArray(c),
              numberArray(v)
            ])
            t = []
            d = []
            o = []
            h = []
            l = []
            c = []
            v = []
          }
          for (const [ticker, bars] of byTicker) {
            for (const b of bars) {
              t.push(ticker)
              d.push(b.date)
              o.push(b.open)
              h.push(b.high)
              l.push(b.low)
              c.push(b.close)
              v.push(b.volume)
              if (t.length === size) cut()
            }
          }
          if (t.length > 0) cut()
          return batches
        }
        const insert = (upsert: boolean) =>
          Effect.forEach(
            literals(),
            ([bt, bd, bo, bh, bl, bc, bv]) =>
              sql`INSERT INTO imported_bars (ticker, date, open, high, low, close, volume, imported_at, adjusted)
                SELECT u.t, u.d, u.o, u.h, u.l, u.c, u.v, ${now}, ${adjusted}
                FROM unnest(${bt}, ${bd}, ${bo}::float8[], ${bh}::float8[], ${bl}::float8[],
                            ${bc}::float8[], ${bv}::float8[]) AS u(t, d, o, h, l, c, v)
                ${
                  upsert
                    ? sql`ON CONFLICT (ticker, date) DO UPDATE SET open = excluded.open, high = excluded.high,
                  low = excluded.low, close = excluded.close, volume = excluded.volume,
                  imported_at = excluded.imported_at, adjusted = excluded.adjusted`
                    : sql``
                }`,
            { discard: true }
          )
        // new rows: COPY in binary where the driver lets us (both do today), else INSERT
        const connection = Option.getOrUndefined(yield* Effect.serviceOption(SqlClient.TransactionConnection))?.[0]
        const blob = connection === undefined ? undefined : copyFromOf(connection)
        const stdin = connection === undefined || blob !== undefined ? undefined : copyFromStdinOf(connection)
        const copy =
          blob !== undefined
            ? (data: Uint8Array) => blob(`${COPY_BARS} FROM '/dev/blob' WITH (FORMAT binary)`, data)
            : stdin !== undefined
              ? (data: Uint8Array) => stdin(`${COPY_BARS} FROM STDIN WITH (FORMAT binary)`, data)
              : undefined
        const insertNew =
          copy === undefined
            ? insert(false)
            : Effect.forEach(binaryRows(byTicker, now, adjusted), copy, { discard: true })
        yield* insertNew.pipe(
          sql.withTransaction, // a savepoint: a key stored already undoes these inserts only
          Effect.catchIf(isUniqueViolation, () => insert(true))
        )
        if (options.log !== false) yield* logImport([...byTicker.keys()])
      }).pipe(sql.withTransaction)

    /** Stores splits (a split already stored for the ticker and date takes the new ratio), in one transaction. */
    const replaceSplits = (splits: ReadonlyArray<Split>, options: Pick<ReplaceOptions, "log"> = {}) =>
      Effect.gen(function* () {
        if (splits.length === 0) return
        const now = yield* nowSeconds
        for (let i = 0; i < splits.length; i += BATCH) {
          const chunk = splits.slice(i, i + BATCH)
          yield* sql`INSERT INTO imported_splits (ticker, date, ratio, imported_at)
            SELECT u.t, u.d, u.r, ${now}
            FROM unnest(${textList(
              sql,
              chunk.map((s) => s.ticker)
            )}, ${textList(
              sql,
              chunk.map((s) => s.date)
            )},
                        ${numberArray(chunk.map((s) => s.ratio))}::float8[]) AS u(t, d, r)
            ON CONFLICT (ticker, date) DO UPDATE SET ratio = excluded.ratio, imported_at = excluded.imported_at`
        }
        if (options.log !== false) yield* logImport([...new Set(splits.map((s) => s.ticker))])
      }).pipe(sql.withTransaction)

    /** the stored splits (of `tickers` only, when given), by ticker */
    const splitsOf = (tickers?: ReadonlyArray<string>) =>
      Effect.map(
        sql<Split>`SELECT ticker, date, ratio FROM imported_splits
          ${tickers === undefined ? sql`` : sql`WHERE ticker = ANY(${tickers}::text[])`} ORDER BY ticker, date`,
        (rows) => {
          const out = new Map<string, Array<Split>>()
          for (const r of rows) {
            const list = out.get(r.ticker) ?? []
            list.push(r)
            out.set(r.ticker, list)
          }
          return out as ReadonlyMap<string, ReadonlyArray<Split>>
        }
      )

    /**
     * Imported bars (of `tickers` only, when given; dated `from`..`to` when given), grouped by
     * ticker, dates ascending, adjusted for every stored split of their ticker.
     */
    const load = (tickers?: ReadonlyArray<string>, range: { readonly from?: string; readonly to?: string } = {}) =>
      Effect.gen(function* () {
        const splits = yield* splitsOf(tickers)
        const conditions = [
          ...(tickers === undefined ? [] : [sql`ticker = ANY(${tickers}::text[])`]),
          ...(range.from === undefined ? [] : [sql`date >= ${range.from}`]),
          ...(range.to === undefined ? [] : [sql`date <= ${range.to}`])
        ]
        const rows = yield* sql<StoredBar>`SELECT ticker, date, open, high, low, close, volume FROM imported_bars
          ${conditions.length === 0 ? sql`` : sql`WHERE ${sql.and(conditions)}`} ORDER BY ticker, date`
        const out = new Map<string, Array<StoredBar>>()
        for (const r of rows) {
          const list = out.get(r.ticker) ?? []
          list.push(r)
          out.set(r.ticker, list)
        }
        const split = [...splits.keys()].filter((t) => out.has(t))
        if (split.length === 0) return out as ReadonlyMap<string, ReadonlyArray<StoredBar>>
        // bars whose file adjusted them already (few, usually none) are left as they are
        const kept = new Set(
          (yield* sql<{ ticker: string; date: string }>`SELECT ticker, date FROM imported_bars
            WHERE adjusted AND ticker = ANY(${split}::text[])`).map((r) => `${r.ticker} ${r.date}`)
        )
        for (const ticker of split) {
          out.set(
            ticker,
            adjustForSplits(out.get(ticker)!, splits.get(ticker)!, (b) => kept.has(`${b.ticker} ${b.date}`))
          )
        }
        return out as ReadonlyMap<string, ReadonlyArray<StoredBar>>
      })

    return { replace, replaceSplits, splitsOf, logImport, loadAll: load(), load } as const
  })
}) {}
