/**
 * A live feed's fundamentals and news as stored (migration 0020): the store's side of the
 * market's `FeedInputStore` port (`src/market/ports.ts`). Each write is one statement plus its
 * line in `market_imports` (kind `inputs`), in one transaction, so a process following ticks reads
 * back the tickers it names before its next tick.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import type { FeedInputStore } from "../market/ports.js"
import type { FeedMention, FeedValues, FundamentalsEntry } from "../market/sources/feedSource.js"
import { numberArray, textList } from "./textList.js"

interface FundamentalsRow {
  readonly ticker: string
  readonly from_day: number | string
  readonly fields: FeedValues | string
}

interface MentionRow {
  readonly seq: number | string
  readonly ticker: string
  readonly at: number | string
  readonly relevance: number
  readonly sentiment: number
}

const entryOf = (r: FundamentalsRow): FundamentalsEntry => ({
  ticker: r.ticker,
  fromDay: Number(r.from_day),
  values: typeof r.fields === "string" ? (JSON.parse(r.fields) as FeedValues) : r.fields
})

const mentionOf = (r: MentionRow): FeedMention => ({
  seq: Number(r.seq),
  ticker: r.ticker,
  at: Number(r.at),
  relevance: Number(r.relevance),
  sentiment: Number(r.sentiment)
})

/** entries of one ticker and day merged field by field, later over earlier (one row each for the upsert) */
const merged = (entries: ReadonlyArray<FundamentalsEntry>): Array<FundamentalsEntry> => {
  const byKey = new Map<string, FundamentalsEntry>()
  for (const e of entries) {
    const key = `${e.ticker}\u0000${e.fromDay}`
    const held = byKey.get(key)
    byKey.set(key, held === undefined ? e : { ...e, values: { ...held.values, ...e.values } })
  }
  return [...byKey.values()]
}

export class FeedInputsStore extends Effect.Service<FeedInputsStore>()("vigil/FeedInputsStore", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

    const logInputs = (tickers: ReadonlyArray<string>) =>
      Effect.flatMap(
        nowSeconds,
        (now) =>
          sql`INSERT INTO market_imports (tickers, created_at, kind) VALUES (${textList(sql, [...new Set(tickers)])}, ${now}, 'inputs')`
      )

    const read = (tickers: ReadonlyArray<string> | undefined) =>
      Effect.gen(function* () {
        const only = tickers === undefined ? sql`` : sql`WHERE ticker = ANY(${textList(sql, tickers)})`
        const fundamentals = yield* sql<FundamentalsRow>`SELECT ticker, from_day, fields FROM feed_fundamentals ${only}
          ORDER BY ticker, from_day`
        const mentions = yield* sql<MentionRow>`SELECT seq, ticker, at, relevance, sentiment FROM feed_news ${only}
          ORDER BY seq`
        return { fundamentals: fundamentals.map(entryOf), mentions: mentions.map(mentionOf) }
      })

    const store: FeedInputStore = {
      initial: read(undefined),
      load: (tickers) => (tickers.length === 0 ? Effect.succeed({ fundamentals: [], mentions: [] }) : read(tickers)),
      addFundamentals: (entries) =>
        Effect.gen(function* () {
          if (entries.length === 0) return
          const rows = merged(entries)
          const now = yield* nowSeconds
          yield* sql`INSERT INTO feed_fundamentals (ticker, from_day, fields, updated_at)
            SELECT t, d, f, ${now} FROM unnest(
              ${textList(
                sql,
                rows.map((r) => r.ticker)
              )},
              ${numberArray(rows.map((r) => r.fromDay))}::integer[],
              ${textList(
                sql,
                rows.map((r) => JSON.stringify(r.values))
              )}::jsonb[]) AS r(t, d, f)
            ON CONFLICT (ticker, from_day) DO UPDATE
              SET fields = feed_fundamentals.fields || excluded.fields, updated_at = excluded.updated_at`
          yield* logInputs(rows.map((r) => r.ticker))
        }).pipe(sql.withTransaction),
      addMentions: (mentions) =>
        Effect.gen(function* () {
          if (mentions.length === 0) return []
          const rows = yield* sql<MentionRow>`INSERT INTO feed_news (ticker, at, relevance, sentiment)
            SELECT t, a, rel, sen FROM unnest(
              ${textList(
                sql,
                mentions.map((m) => m.ticker)
              )},
              ${numberArray(mentions.map((m) => m.at))}::bigint[],
              ${numberArray(mentions.map((m) => m.relevance))}::float8[],
              ${numberArray(mentions.map((m) => m.sentiment))}::float8[]) WITH ORDINALITY AS r(t, a, rel, sen, k)
            ORDER BY k
            RETURNING seq, ticker, at, relevance, sentiment`
          yield* logInputs(mentions.map((m) => m.ticker))
          return rows.map(mentionOf)
        }).pipe(sql.withTransaction)
    }
    return store
  })
}) {}
