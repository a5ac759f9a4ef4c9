/**
 * `/v2/news/scan` and its unauthenticated sandbox mirror
 * `/v2/sandbox/news/scan`: the news mentions behind the `news_volume` and
 * `news_volume_weighted_sentiment` columns, filtered and paged newest first.
 * See docs/news.md.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { StrictParams } from "../common/params.js"
import { BadRequest, groupErrors, NewsArchiveTierRequired, ServiceUnavailable, UnknownTickers } from "../errors.js"
import { Authentication } from "../middleware/Authentication.js"
import { SandboxRateLimit } from "./SandboxRateLimit.js"

/** Largest page of the authenticated scan, and its default. */
export const MAX_LIMIT = 100
export const DEFAULT_LIMIT = 50
/** Rows per sandbox response: a larger `limit` is lowered to this. */
export const SANDBOX_MAX_ROWS = 50
/** Tickers per request. */
export const MAX_TICKERS = 50
/** Days before the market instant readable without the archive (every plan and the sandbox). */
export const RECENT_DAYS = 7
/** Days of the range one page examines at most. */
export const DAYS_PER_PAGE = 31

/** An optional body field; null counts as absent (so `next_cursor` can be sent back as it came). */
const opt = <A, I>(schema: Schema.Schema<A, I>, description: string) =>
  Schema.optional(Schema.NullOr(schema)).annotations({ description })

/**
 * No query parameters: every parameter goes in the JSON body, and any query
 * parameter is refused (400 naming it) rather than silently ignored.
 */
export const NoQueryParams = Schema.Record({
  key: Schema.String,
  value: Schema.Union(Schema.String, Schema.Array(Schema.String))
}).pipe(
  Schema.filter((params) => {
    const names = Object.keys(params)
    return (
      names.length === 0 ||
      `unknown query parameter${names.length > 1 ? "s" : ""} ${names.join(", ")}: this endpoint takes its parameters in the JSON body`
    )
  }),
  Schema.annotations({ description: "No query parameters: send every parameter in the JSON body" })
)

export const NewsScanBody = StrictParams({
  tickers: opt(
    Schema.Array(Schema.String),
    `Up to ${MAX_TICKERS} tracked symbols in any convention (case-insensitive, deduplicated); omitted or null = every tracked ticker. Untracked symbols: 400 \`unknown_tickers\` with \`disallowed\`.`
  ),
  from: opt(
    Schema.String,
    "Earliest publication time, inclusive: an ISO 8601 timestamp (2026-03-02T15:04:05Z, offsets allowed) or a date YYYY-MM-DD (its 00:00:00.000 UTC). Default: `to` − 24 h + 1 ms, so the default window is (`to` − 24 h, `to`], the window of `news_volume`."
  ),
  to: opt(
    Schema.String,
    "Latest publication time, inclusive: an ISO 8601 timestamp or a date (its 23:59:59.999 UTC). Default and upper bound: the current market instant (`as_of`)."
  ),
  min_relevance: opt(Schema.Number, "Minimum relevance, inclusive, 0 to 1. Default 0."),
  sentiment_min: opt(Schema.Number, "Minimum sentiment, inclusive, -1 to 1. Default -1."),
  sentiment_max: opt(Schema.Number, "Maximum sentiment, inclusive, -1 to 1, not below sentiment_min. Default 1."),
  limit: opt(
    Schema.Number,
    `Page size: an integer 1 to ${MAX_LIMIT}, default ${DEFAULT_LIMIT} (the sandbox lowers anything above ${SANDBOX_MAX_ROWS} to ${SANDBOX_MAX_ROWS}).`
  ),
  cursor: opt(
    Schema.String,
    "`next_cursor` of the previous page; send the same other fields. The walk keeps the time window of its first page."
  )
}).annotations({
  examples: [
    { tickers: ["AAPL", "MSFT"], min_relevance: 0.6, limit: 20 },
    { from: "2026-11-20", to: "2026-11-20", sentiment_max: -0.5 }
  ]
})

export const NewsItem = Schema.Struct({
  id: Schema.String.annotations({
    description:
      "Stable id of the mention for a given MARKET_SEED: `<ticker>:<YYYYMMDD>:<n>` (n-th mention of that ticker that UTC day)"
  }),
  ticker: Schema.String,
  published_at: Schema.String.annotations({ description: "ISO 8601 publication time (UTC, milliseconds)" }),
  relevance: Schema.Number.annotations({ description: "0 to 1, 3 decimals; news_volume counts mentions at >= 0.6" }),
  sentiment: Schema.Number.annotations({ description: "-1 (negative) to 1 (positive), 3 decimals" })
}).annotations({
  examples: [
    {
      id: "AAPL:20261123:20",
      ticker: "AAPL",
      published_at: "2026-11-23T16:19:18.643Z",
      relevance: 0.735,
      sentiment: -0.207
    }
  ]
})

export const NewsScanResponse = Schema.Struct({
  as_of: Schema.String.annotations({
    description: "The market instant the walk reads at (ISO 8601); nothing published later is returned"
  }),
  query: Schema.Struct({
    tickers: Schema.NullOr(Schema.Array(Schema.String)),
    from: Schema.String,
    to: Schema.String,
    min_relevance: Schema.Number,
    sentiment_min: Schema.Number,
    sentiment_max: Schema.Number,
    limit: Schema.Int
  }).annotations({
    description: "The effective parameters: canonical tickers, the resolved window, defaults filled in"
  }),
  count: Schema.Int.annotations({ description: "Items in this page" }),
  next_cursor: Schema.NullOr(Schema.String).annotations({
    description: "Cursor of the next page; null once the window is exhausted"
  }),
  results: Schema.Array(NewsItem).annotations({
    description: "Newest first; ties by ticker, then by the mention's position that day"
  })
})

const describe = (what: string) =>
  `${what} Items are the simulated news mentions (\`id\`, \`ticker\`, \`published_at\`, \`relevance\`, \`sentiment\`) behind the \`news_volume\` and \`news_volume_weighted_sentiment\` columns, newest first, filtered by \`tickers\`, the inclusive window \`from\`..\`to\` (default: the 24 hours up to the current market instant; nothing after it is ever returned), \`min_relevance\` and \`sentiment_min\`..\`sentiment_max\`. Keyset pages (\`limit\`, \`cursor\`): no duplicates, no gaps. A page examines at most ${DAYS_PER_PAGE} days of the window, so over a long window with sparse filters a page can hold fewer than \`limit\` items while \`next_cursor\` is set: follow it until null. Unknown body fields and any query parameter: 400. See docs/news.md.`

export class NewsApi extends HttpApiGroup.make("news")
  // what every endpoint of the group can answer
  .pipe(groupErrors(BadRequest, UnknownTickers, NewsArchiveTierRequired, ServiceUnavailable))
  .add(
    HttpApiEndpoint.post("scan", "/v2/news/scan")
      .annotate(OpenApi.Summary, "Scan news mentions")
      .setPayload(NewsScanBody)
      .setUrlParams(NoQueryParams)
      .addSuccess(NewsScanResponse)
      .middleware(Authentication)
      .annotate(
        OpenApi.Description,
        describe(
          `News scan (every plan). The last ${RECENT_DAYS} days before the market instant are open to every plan; a \`from\` earlier than that (the archive, back to the start of the market's history window) needs Pro, Scale or Enterprise: 403 \`news_archive_tier_required\` below (with \`earliest_allowed_from\`). \`limit\` 1–${MAX_LIMIT}, default ${DEFAULT_LIMIT}.`
        )
      )
  )
  .add(
    HttpApiEndpoint.post("sandboxScan", "/v2/sandbox/news/scan")
      .annotate(OpenApi.Summary, "Scan recent news mentions (sandbox, no key)")
      .setPayload(NewsScanBody)
      .setUrlParams(NoQueryParams)
      .addSuccess(NewsScanResponse)
      .middleware(SandboxRateLimit)
      .annotate(
        OpenApi.Description,
        describe(
          `Unauthenticated sandbox mirror of POST /v2/news/scan: same body and answer, at most ${SANDBOX_MAX_ROWS} rows per response (a larger \`limit\`, up to ${MAX_LIMIT}, is lowered to ${SANDBOX_MAX_ROWS}; the echoed \`query.limit\` says so), no archive (a \`from\` earlier than ${RECENT_DAYS} days before the market instant: 403 \`news_archive_tier_required\`), rate-limited per client IP (the connection's peer address; X-Forwarded-For is not trusted) with X-RateLimit-* headers and 429 \`rate_limited\` + Retry-After.`
        )
      )
  )
  .annotate(OpenApi.Description, "News: the mentions behind the news columns") {}
