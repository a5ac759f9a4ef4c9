/**
 * The tickers group's reads: the list (filtered, paged, or a bulk lookup), a
 * ticker's row (live or as of a date) and its history variant (within the
 * plan's window). Rows are read by index (one snapshot row, or
 * one ticker's rebuilt daily state), and the list scans the snapshot at most
 * once. Responses are written as JSON directly (typed against the endpoint's
 * success schema), which skips a per-field schema walk of ~130-column rows.
 */
import { HttpServerResponse } from "@effect/platform"
import { Clock, Effect, type Schema } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { PLAN_LIMITS } from "../../accounts/plans.js"
import type { MarketReader } from "../../market/engine/MarketData.js"
import { STRING_COLUMNS } from "../../market/engine/MarketData.js"
import { DAY_MS, isoDate } from "../../market/indicators/days.js"
import type { Snapshot } from "../../market/snapshot.js"
import {
  type AssetType,
  assetTypeFilter,
  EXCHANGE_CODES,
  isWellFormedSymbol,
  normalizeSymbol,
  type TickerMeta
} from "../../market/tickers/index.js"
import { isoAsOf, liveSnapshot, marketData } from "../common/market.js"
import { pageSize, parseDate } from "../common/params.js"
import { FROZEN_FIELDS, ROW_COLUMNS, renderRow } from "../common/rows.js"
import { cursorCodec, readCursor } from "../cursor.js"
import { BadRequest, HistoryWindowExceeded, NotFound } from "../errors.js"
import { minuteTier } from "../signals/history.js"
import type { TickerCoverage, TickerHistoryResponse, TickerList, TickerListParams, TickerRowResponse } from "./Api.js"
import { type ListFilter, type ListOrder, listPage, readPosition } from "./listing.js"
import { liveRowBody } from "./liveRow.js"

const LIST_MAX = 1000
const LIST_DEFAULT = 50
const BULK_MAX = 50
const SLIM_COLUMNS = ["ticker", "name", "asset_type", "exchange", "market_cap"] as const
const STRING_SET: ReadonlySet<string> = new Set(STRING_COLUMNS)
const META = { resolution: "daily" as const, frozen_fields: FROZEN_FIELDS }

type Row = Record<string, string | number | boolean | null>

const json = <A>(body: A) => HttpServerResponse.unsafeJson(body)

/** The tracked ticker named by a path segment: 400 when it is not a symbol, 404 when untracked. */
const tickerOf = (
  md: MarketReader,
  raw: string
): Effect.Effect<{ meta: TickerMeta; i: number }, BadRequest | NotFound> => {
  if (!isWellFormedSymbol(raw)) {
    return Effect.fail(new BadRequest({ message: `ticker ${JSON.stringify(raw)} is not a ticker symbol` }))
  }
  const i = md.index.get(normalizeSymbol(raw))
  if (i !== undefined) return Effect.succeed({ meta: md.tickers[i], i })
  return Effect.flatMap(
    Effect.sync(() => lookupFallback(md, raw)),
    (found) =>
      found === undefined
        ? Effect.fail(new NotFound({ message: `ticker ${normalizeSymbol(raw)} is not tracked` }))
        : Effect.succeed(found)
  )
}

/** `SOL-USD` → `SOL`: a pair form of a crypto tracked under its bare symbol. */
const lookupFallback = (md: MarketReader, raw: string): { meta: TickerMeta; i: number } | undefined => {
  const s = normalizeSymbol(raw)
  if (!s.endsWith("-USD")) return undefined
  const i = md.index.get(s.slice(0, -4))
  return i !== undefined && md.isCrypto[i] === 1 ? { meta: md.tickers[i], i } : undefined
}

/** A daily row: every catalog column (static fields current), then `date`. */
const historicalRow = (meta: TickerMeta, found: { date: string; values: Record<string, number | boolean | null> }) => {
  const out: Row = {}
  for (const name of ROW_COLUMNS) {
    if (STRING_SET.has(name)) out[name] = ((meta as unknown as Record<string, string>)[name] ?? null) as string | null
    else if (name in found.values) out[name] = found.values[name]
  }
  out.date = found.date
  return out
}

/** The answer of a ticker's daily row as of `raw` (a date): 404 when it has none on or before it. */
const asOfBody = (md: MarketReader, meta: TickerMeta, raw: string) =>
  Effect.gen(function* () {
    const date = yield* parseDate("asof", raw)
    const found = md.rowAsOf(meta.ticker, date)
    if (found === undefined) {
      return yield* new NotFound({ message: `${meta.ticker} has no daily state on or before ${date}` })
    }
    return { as_of: date, ticker: meta.ticker, _meta: META, data: historicalRow(meta, found) }
  })

const fullRow = (snapshot: Snapshot, ticker: string): Row | undefined => {
  const r = snapshot.index.get(ticker)
  return r === undefined ? undefined : renderRow(snapshot, r, ROW_COLUMNS)
}

const bulk = (snapshot: Snapshot, md: MarketReader, raw: string, other: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (other.length > 0) {
      return yield* new BadRequest({
        message: `tickers (bulk lookup) cannot be combined with ${other.join(", ")}`
      })
    }
    const entries = raw.split(",").map((s) => s.trim())
    if (entries.some((s) => s === "")) {
      return yield* new BadRequest({
        message: "tickers must be a comma-separated list of symbols with no empty entries"
      })
    }
    if (entries.length > BULK_MAX) {
      return yield* new BadRequest({
        message: `tickers takes at most ${BULK_MAX} symbols (got ${entries.length})`,
        details: { max: BULK_MAX }
      })
    }
    const malformed = entries.filter((s) => !isWellFormedSymbol(s))
    if (malformed.length > 0) {
      return yield* new BadRequest({
        message: `tickers: not ticker symbols: ${malformed.map((s) => JSON.stringify(s)).join(", ")}`
      })
    }
    const requested = [...new Set(entries.map((s) => s.toUpperCase()))]
    const results = requested.map((given): Row => {
      const i = md.index.get(normalizeSymbol(given))
      const found = i !== undefined ? { i } : lookupFallback(md, given)
      const row = found === undefined ? undefined : fullRow(snapshot, md.tickers[found.i].ticker)
      return row ?? { ticker: given, _not_found: true }
    })
    const body: Schema.Schema.Type<typeof TickerList> = {
      as_of: isoAsOf(snapshot),
      count: results.length,
      next_cursor: null,
      results,
      requested
    }
    return json(body)
  })

const ASSET_HELP = "equity, crypto, CS or ETF"

/** GET /v2/tickers: a bulk lookup (`tickers`), or a filtered page of the tracked tickers. */
export const listTickers = (key: AuthenticatedKey, p: typeof TickerListParams.Type) =>
  Effect.gen(function* () {
    const snapshot = yield* liveSnapshot
    if (p.tickers !== undefined) {
      const md = yield* marketData
      const other = (["search", "asset_type", "exchange", "sector", "min_market_cap"] as const).filter(
        (k) => p[k] !== undefined
      )
      return yield* bulk(snapshot, md, p.tickers, other)
    }
    const limit = yield* pageSize(p.limit, LIST_MAX, LIST_DEFAULT)

    let assetTypes: ReadonlySet<AssetType> | undefined
    if (p.asset_type !== undefined) {
      const types = assetTypeFilter(p.asset_type)
      if (types === undefined) {
        return yield* new BadRequest({
          message: `asset_type must be one of ${ASSET_HELP} (got ${JSON.stringify(p.asset_type)})`
        })
      }
      assetTypes = new Set(types)
    }
    let exchange: string | undefined
    if (p.exchange !== undefined) {
      exchange = p.exchange.trim().toUpperCase()
      if (!(EXCHANGE_CODES as ReadonlyArray<string>).includes(exchange)) {
        return yield* new BadRequest({
          message: `exchange must be one of ${EXCHANGE_CODES.join(", ")} (got ${JSON.stringify(p.exchange)})`
        })
      }
    }
    let search: string | undefined
    if (p.search !== undefined) {
      search = p.search.trim().toLowerCase()
      if (search === "" || search.length > 100) {
        return yield* new BadRequest({ message: "search must be 1 to 100 characters" })
      }
    }
    let minMarketCap: number | undefined
    if (p.min_market_cap !== undefined) {
      const text = p.min_market_cap.trim()
      minMarketCap = text === "" ? Number.NaN : Number(text)
      if (!Number.isFinite(minMarketCap) || minMarketCap < 0) {
        return yield* new BadRequest({
          message: `min_market_cap must be a number of USD, 0 or more (got ${JSON.stringify(p.min_market_cap)})`
        })
      }
    }
    if (p.sector !== undefined && p.sector === "") {
      return yield* new BadRequest({ message: "sector must not be empty" })
    }
    const filter: ListFilter = { search, assetTypes, exchange, sector: p.sector, minMarketCap }
    const order: ListOrder = search !== undefined || minMarketCap !== undefined ? "market_cap" : "ticker"

    const binding = {
      endpoint: "GET /v2/tickers",
      account: key.account.id,
      search: p.search,
      asset_type: p.asset_type,
      exchange: p.exchange,
      sector: p.sector,
      min_market_cap: p.min_market_cap,
      limit
    }
    const codec = yield* cursorCodec
    const position = yield* readCursor(codec, binding, p.cursor, (carried) => readPosition(order, carried))

    const page = listPage(snapshot, order, filter, limit, position)
    const body: Schema.Schema.Type<typeof TickerList> = {
      as_of: isoAsOf(snapshot),
      count: page.rows.length,
      next_cursor: page.next === undefined ? null : codec.encode(binding, page.next),
      results: page.rows.map((r) => renderRow(snapshot, r, SLIM_COLUMNS))
    }
    return json(body)
  })

/** GET /v2/tickers/{ticker}: the live row, or the daily row as of `asof`. */
export const tickerRow = (path: { readonly ticker: string }, urlParams: { readonly asof?: string | undefined }) =>
  Effect.gen(function* () {
    const md = yield* marketData
    const { meta } = yield* tickerOf(md, path.ticker)
    if (urlParams.asof !== undefined) {
      const body: Schema.Schema.Type<typeof TickerRowResponse> = yield* asOfBody(md, meta, urlParams.asof)
      return json(body)
    }
    const body = liveRowBody(yield* liveSnapshot, meta.ticker)
    if (body === undefined) return yield* new NotFound({ message: `ticker ${meta.ticker} has no live row` })
    return json(body)
  })

/** GET /v2/tickers/{ticker}/history: the daily row as of `asof`, within the plan's history window. */
export const tickerHistory = (
  key: AuthenticatedKey,
  path: { readonly ticker: string },
  urlParams: { readonly asof?: string | undefined }
) =>
  Effect.gen(function* () {
    if (urlParams.asof === undefined) {
      return yield* new BadRequest({ message: "asof is required: a date YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ" })
    }
    const md = yield* marketData
    const { meta } = yield* tickerOf(md, path.ticker)
    // the history variant has the plan's history window (GET /v2/tickers/{ticker}?asof= has none)
    const requested = yield* parseDate("asof", urlParams.asof)
    const maxDays = PLAN_LIMITS[key.account.plan].maxHistoryDays
    if (maxDays !== null) {
      const today = Math.floor((yield* Clock.currentTimeMillis) / DAY_MS)
      const earliest = new Date((today - maxDays) * DAY_MS).toISOString().slice(0, 10)
      if (requested < earliest) {
        return yield* new HistoryWindowExceeded({
          message: `asof ${requested} is before the ${key.account.plan} plan's history window (${maxDays} days, from ${earliest})`,
          details: { max_history_days: maxDays, earliest_allowed_from: earliest }
        })
      }
    }
    const body: Schema.Schema.Type<typeof TickerHistoryResponse> = yield* asOfBody(md, meta, urlParams.asof)
    return json(body)
  })

/** GET /v2/tickers/{ticker}/coverage: the days its daily and minute data cover. */
export const tickerCoverage = (path: { readonly ticker: string }) =>
  Effect.gen(function* () {
    const md = yield* marketData
    const { meta, i } = yield* tickerOf(md, path.ticker)
    const live = yield* liveSnapshot
    const daily = md.dailyCoverage(i)
    if (daily === undefined) return yield* new NotFound({ message: `${meta.ticker} has no daily bars yet` })
    const minute = minuteTier(live).has(meta.ticker) ? md.minuteCoverage(i) : undefined
    const body: Schema.Schema.Type<typeof TickerCoverage> = {
      ticker: meta.ticker,
      daily_from: isoDate(daily.from),
      daily_to: isoDate(daily.to),
      minute_from: minute === undefined ? null : isoDate(minute.from),
      minute_to: minute === undefined ? null : isoDate(minute.to)
    }
    return json(body)
  })
