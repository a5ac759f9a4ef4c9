/**
 * The news scan shared by `/v2/news/scan` and the sandbox mirror: validate
 * the body, resolve the time window against the market instant, gate the
 * archive, then walk the UTC days of the window newest first and cut one
 * keyset page on (published_at desc, ticker, index). See docs/news.md.
 */
import { Effect, Either } from "effect"
import { hasFeature, type Plan, plansWith } from "../../accounts/plans.js"
import { yieldToEventLoop } from "../../eventLoop.js"
import { DAY_MS } from "../../market/indicators/days.js"
import { type LocatedMention, newsArchiveOf } from "../../market/newsArchive.js"
import { Tickers } from "../../market/tickers/index.js"
import { liveSnapshot, marketData } from "../common/market.js"
import { pageSize } from "../common/params.js"
import { type CursorCodec, readCursor } from "../cursor.js"
import { BadRequest, NewsArchiveTierRequired } from "../errors.js"
import { canonicalTickers } from "../universes/resolve.js"
import type { NewsScanBody } from "./Api.js"
import { DAYS_PER_PAGE, DEFAULT_LIMIT, MAX_LIMIT, MAX_TICKERS, RECENT_DAYS, SANDBOX_MAX_ROWS } from "./Api.js"

export type NewsScanInput = typeof NewsScanBody.Type

/** Who is asking: an account (with its plan) or the sandbox. */
export type Caller =
  | { readonly kind: "account"; readonly accountId: string; readonly plan: Plan }
  | { readonly kind: "sandbox" }

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/i

const validDate = (y: string, m: string, d: string): boolean => {
  const iso = `${y}-${m}-${d}`
  const ms = Date.parse(`${iso}T00:00:00Z`)
  return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(iso) && iso >= "1990-01-01" && iso <= "2100-12-31"
}

/**
 * `from`/`to`: a date (its first or last millisecond, UTC) or an ISO 8601
 * timestamp (fractions beyond milliseconds truncated); 400 naming the field.
 */
export const parseInstant = (name: string, raw: string, end: boolean): Either.Either<number, BadRequest> => {
  const text = raw.trim()
  const bad = () =>
    Either.left(
      new BadRequest({
        message: `${name} must be an ISO 8601 timestamp such as 2026-03-02T15:04:05Z or a date YYYY-MM-DD (got ${JSON.stringify(raw)})`
      })
    )
  const d = DATE.exec(text)
  if (d !== null) {
    if (!validDate(d[1]!, d[2]!, d[3]!)) return bad()
    const start = Date.parse(`${text}T00:00:00Z`)
    return Either.right(end ? start + DAY_MS - 1 : start)
  }
  const t = DATETIME.exec(text)
  if (t === null || !validDate(t[1]!, t[2]!, t[3]!)) return bad()
  const [hh, mm, ss] = [Number(t[4]), Number(t[5]), Number(t[6] ?? "0")]
  if (hh > 23 || mm > 59 || ss > 59) return bad()
  const fraction = (t[7] ?? "").padEnd(3, "0").slice(0, 3)
  let zone = t[8]!.toUpperCase()
  if (zone !== "Z" && !zone.includes(":")) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`
  if (zone !== "Z" && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4, 6)) > 59)) return bad()
  const ms = Date.parse(
    `${t[1]}-${t[2]}-${t[3]}T${t[4]}:${t[5]}:${String(ss).padStart(2, "0")}.${fraction}${zone === "Z" ? "Z" : zone}`
  )
  return Number.isNaN(ms) ? bad() : Either.right(ms)
}

const inRange = (name: string, value: number | null | undefined, lo: number, hi: number, fallback: number) =>
  value === undefined || value === null
    ? Effect.succeed(fallback)
    : Number.isFinite(value) && value >= lo && value <= hi
      ? Effect.succeed(value)
      : Effect.fail(new BadRequest({ message: `${name} must be a number from ${lo} to ${hi} (got ${value})` }))

/** The walk's window, fixed by its first page: [from, to] inclusive, read at market instant `now`. */
interface Window {
  readonly from: number
  readonly to: number
  readonly now: number
}

/** Position of the last item served; `ticker` null = "everything published before `at`". */
interface Position {
  readonly at: number
  readonly ticker: string | null
  readonly index: number
}

const decodeState = (raw: unknown): { window: Window; position: Position } | undefined => {
  if (typeof raw !== "object" || raw === null) return undefined
  const { w, p } = raw as { w?: unknown; p?: unknown }
  if (!Array.isArray(w) || w.length !== 3 || !w.every((x) => Number.isSafeInteger(x))) return undefined
  if (!Array.isArray(p) || p.length !== 3) return undefined
  const [at, ticker, index] = p as [unknown, unknown, unknown]
  if (!Number.isSafeInteger(at) || !(ticker === null || typeof ticker === "string") || !Number.isSafeInteger(index)) {
    return undefined
  }
  return {
    window: { from: w[0] as number, to: w[1] as number, now: w[2] as number },
    position: { at: at as number, ticker: ticker as string | null, index: index as number }
  }
}

const compactDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll("-", "")

export const runNewsScan = (input: NewsScanInput, caller: Caller, codec: CursorCodec) =>
  Effect.gen(function* () {
    const sandbox = caller.kind === "sandbox"
    // ---- parameters
    let tickers: Array<string> | null = null
    if (input.tickers !== undefined && input.tickers !== null) {
      if (input.tickers.length === 0) {
        return yield* new BadRequest({ message: "tickers must name at least one ticker (omit it for every ticker)" })
      }
      if (input.tickers.length > MAX_TICKERS) {
        return yield* new BadRequest({
          message: `tickers: at most ${MAX_TICKERS} symbols per request (got ${input.tickers.length})`
        })
      }
      const directory = yield* Tickers
      tickers = yield* canonicalTickers(directory, input.tickers, "tickers", true)
    }
    const minRelevance = yield* inRange("min_relevance", input.min_relevance, 0, 1, 0)
    const sentimentMin = yield* inRange("sentiment_min", input.sentiment_min, -1, 1, -1)
    const sentimentMax = yield* inRange("sentiment_max", input.sentiment_max, -1, 1, 1)
    if (sentimentMin > sentimentMax) {
      return yield* new BadRequest({
        message: `sentiment_min (${sentimentMin}) must not be above sentiment_max (${sentimentMax})`
      })
    }
    const requested = yield* pageSize(input.limit ?? undefined, MAX_LIMIT, DEFAULT_LIMIT)
    const limit = sandbox ? Math.min(requested, SANDBOX_MAX_ROWS) : requested
    const rawFrom = input.from ?? undefined
    const rawTo = input.to ?? undefined
    const fromGiven = rawFrom === undefined ? undefined : yield* parseInstant("from", rawFrom, false)
    const toGiven = rawTo === undefined ? undefined : yield* parseInstant("to", rawTo, true)
    if (fromGiven !== undefined && toGiven !== undefined && fromGiven > toGiven) {
      return yield* new BadRequest({ message: `from (${rawFrom}) is after to (${rawTo})` })
    }

    const binding = {
      endpoint: sandbox ? "sandbox_news_scan" : "news_scan",
      account: caller.kind === "account" ? caller.accountId : null,
      tickers: tickers === null ? null : [...tickers].sort(),
      from: fromGiven ?? null,
      to: toGiven ?? null,
      min_relevance: minRelevance,
      sentiment_min: sentimentMin,
      sentiment_max: sentimentMax,
      limit
    }

    const md = yield* marketData
    const archive = newsArchiveOf(md)

    // ---- the window: the first page resolves it, the cursor carries it on
    let window: Window
    let position: Position | undefined
    const cursor = input.cursor ?? undefined
    const state = yield* readCursor(codec, binding, cursor, decodeState)
    if (state !== undefined) {
      window = state.window
      position = state.position
    } else {
      const now = (yield* liveSnapshot).asOf
      const to = Math.min(toGiven ?? now, now)
      let from = fromGiven ?? (toGiven ?? now) - DAY_MS + 1
      // the archive (Pro and above) reaches back to the start of the market's history window
      from = Math.max(from, Date.parse(`${md.windowStart}T00:00:00Z`))
      window = { from, to, now }
    }

    // ---- the archive gate (checked on every page, against the walk's own instant)
    const archivePlans = plansWith("newsArchive")
    const earliestRecent = window.now - RECENT_DAYS * DAY_MS
    const archiveAllowed = caller.kind === "account" && hasFeature(caller.plan, "newsArchive")
    if (window.from < earliestRecent && !archiveAllowed) {
      return yield* new NewsArchiveTierRequired({
        message: sandbox
          ? `the sandbox serves the last ${RECENT_DAYS} days only: from must not be before ${new Date(earliestRecent).toISOString()}; older news (the archive) needs an API key on the Pro plan or above`
          : `news older than ${RECENT_DAYS} days (the archive) needs the ${archivePlans.slice(0, -1).join(", ")} or ${archivePlans.at(-1)} plan; this account is on ${caller.kind === "account" ? caller.plan : "the sandbox"}: from must not be before ${new Date(earliestRecent).toISOString()}`,
        details: { earliest_allowed_from: new Date(earliestRecent).toISOString() }
      })
    }

    // ---- the page: UTC days newest first, at most DAYS_PER_PAGE of them
    const slots = tickers === null ? null : tickers.map((t) => archive.slotOf(t)).filter((s) => s >= 0)
    const { from, to } = window
    const upper = position === undefined ? to : Math.min(to, position.at)
    const symbols = archive.symbols
    const after = (m: LocatedMention): boolean => {
      if (position === undefined || m.at < position.at) return true
      if (m.at > position.at || position.ticker === null) return false
      const s = symbols[m.slot]!
      return s > position.ticker || (s === position.ticker && m.index > position.index)
    }
    const keep = (at: number, relevance: number, sentiment: number) =>
      at >= from && at <= upper && relevance >= minRelevance && sentiment >= sentimentMin && sentiment <= sentimentMax
    const order = (a: LocatedMention, b: LocatedMention): number => {
      if (a.at !== b.at) return b.at - a.at
      const sa = symbols[a.slot]!
      const sb = symbols[b.slot]!
      if (sa !== sb) return sa < sb ? -1 : 1
      return a.index - b.index
    }

    const found: Array<LocatedMention> = []
    const lastDay = Math.floor(from / DAY_MS)
    let day = Math.floor(upper / DAY_MS)
    let examined = 0
    if (from <= upper && (slots === null || slots.length > 0)) {
      while (day >= lastDay && examined < DAYS_PER_PAGE && found.length <= limit) {
        const cold = !archive.isCached(day)
        const mentions = archive.dayMentions(day, slots, keep).filter(after).sort(order)
        for (const m of mentions) found.push(m)
        examined++
        day--
        if (cold && day >= lastDay) yield* yieldToEventLoop
      }
    }
    const daysLeft = from <= upper && day >= lastDay
    const page = found.slice(0, limit)
    let next: Position | undefined
    if (found.length > limit || (daysLeft && page.length === limit)) {
      const last = page[page.length - 1]!
      next = { at: last.at, ticker: symbols[last.slot]!, index: last.index }
    } else if (daysLeft) {
      next = { at: (day + 1) * DAY_MS, ticker: null, index: 0 }
    }

    return {
      as_of: new Date(window.now).toISOString(),
      query: {
        tickers,
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        min_relevance: minRelevance,
        sentiment_min: sentimentMin,
        sentiment_max: sentimentMax,
        limit
      },
      count: page.length,
      next_cursor:
        next === undefined
          ? null
          : codec.encode(binding, { w: [window.from, window.to, window.now], p: [next.at, next.ticker, next.index] }),
      results: page.map((m) => {
        const ticker = symbols[m.slot]!
        return {
          id: `${ticker}:${compactDay(m.day)}:${m.index}`,
          ticker,
          published_at: new Date(m.at).toISOString(),
          relevance: m.relevance,
          sentiment: m.sentiment
        }
      })
    }
  })
