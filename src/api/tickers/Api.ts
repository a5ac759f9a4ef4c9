/**
 * The tickers group: the list / bulk lookup (`GET /v2/tickers`), one ticker's
 * row live or as of a date (`GET /v2/tickers/{ticker}`) and its daily row as
 * of a date (`GET /v2/tickers/{ticker}/history`).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { IntParam, StrictParams } from "../common/params.js"
import { DirectRead } from "../direct/DirectRead.js"
import { BadRequest, groupErrors, HistoryWindowExceeded, NotFound, ServiceUnavailable, withErrors } from "../errors.js"
import { Authentication } from "../middleware/Authentication.js"

/** A ticker row: column name → value (nulls kept). */
export const TickerRow = Schema.Record({
  key: Schema.String,
  value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null)
}).annotations({
  description:
    "A ticker row: column name to value (string, number, boolean or null). Historical rows add `date`; a bulk miss is `{ticker, _not_found: true}`."
})

export const HistoryMeta = Schema.Struct({
  resolution: Schema.Literal("daily").annotations({ description: "Daily state resolution" }),
  frozen_fields: Schema.Array(Schema.String).annotations({
    description: "Static fields that carry their current values in historical reads"
  })
})

export const TickerListParams = StrictParams({
  tickers: Schema.optional(
    Schema.String.annotations({
      description:
        "Bulk lookup: comma-separated symbols in any convention (case-insensitive), up to 50. Returns full rows in request order, unknown symbols as `{ticker, _not_found: true}`; paging parameters are ignored."
    })
  ),
  limit: Schema.optional(IntParam.annotations({ description: "Page size, 1 to 1000; default 50" })),
  cursor: Schema.optional(
    Schema.String.annotations({
      description: "Opaque `next_cursor` of the previous page; pass the same other parameters and limit"
    })
  ),
  search: Schema.optional(
    Schema.String.annotations({
      description:
        "Case-insensitive substring of the ticker or the name; orders by market_cap descending, nulls last, then ticker"
    })
  ),
  asset_type: Schema.optional(
    Schema.String.annotations({
      description: "Case-insensitive: `equity` (CS and ETF), `crypto`, `CS` or `ETF`"
    })
  ),
  exchange: Schema.optional(
    Schema.String.annotations({
      description: "Exchange code: NASDAQ, NYSE, NYSEARCA, NYSEAMERICAN, CBOEBZX, OTC or CRYPTO"
    })
  ),
  sector: Schema.optional(Schema.String.annotations({ description: "Sector name, exact match" })),
  min_market_cap: Schema.optional(
    Schema.String.annotations({
      description: "Minimum market_cap in USD (tickers without one are left out); orders by market_cap descending"
    })
  )
})

export const TickerList = Schema.Struct({
  as_of: Schema.String.annotations({ description: "ISO 8601 time of the live snapshot read" }),
  count: Schema.Number.annotations({ description: "Rows in this page" }),
  next_cursor: Schema.NullOr(Schema.String).annotations({ description: "Cursor of the next page; null at the end" }),
  results: Schema.Array(TickerRow).annotations({
    description:
      "List mode: slim rows (ticker, name, asset_type, exchange, market_cap); bulk mode: full rows in request order"
  }),
  requested: Schema.optional(
    Schema.Array(Schema.String).annotations({ description: "Bulk mode: the symbols asked for, uppercased" })
  )
})

export const TickerPath = Schema.Struct({
  ticker: Schema.String.annotations({
    description: "Ticker symbol in any convention (BRK.B, brk-b, BRK/B), case-insensitive"
  })
})

export const TickerRowParams = StrictParams({
  asof: Schema.optional(
    Schema.String.annotations({
      description:
        "YYYY-MM-DD or an ISO 8601 timestamp (time truncated): the row at the close of that day, looking back without limit"
    })
  )
})

export const TickerRowResponse = Schema.Struct({
  as_of: Schema.String.annotations({
    description: "ISO 8601 time of the live snapshot, or the requested date (YYYY-MM-DD) with asof"
  }),
  ticker: Schema.String.annotations({ description: "Canonical ticker symbol" }),
  _meta: Schema.optional(HistoryMeta),
  data: TickerRow
})

export const TickerHistoryParams = StrictParams({
  asof: Schema.optional(
    Schema.String.annotations({
      description:
        "Required. YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (time truncated): the most recent daily row on or before that day; a future date gives the latest completed row"
    })
  )
})

export const TickerHistoryResponse = Schema.Struct({
  as_of: Schema.String.annotations({ description: "The requested date (YYYY-MM-DD)" }),
  ticker: Schema.String.annotations({ description: "Canonical ticker symbol" }),
  _meta: HistoryMeta,
  data: TickerRow
})

export const TickerCoverage = Schema.Struct({
  ticker: Schema.String.annotations({ description: "Canonical ticker symbol" }),
  daily_from: Schema.String.annotations({
    description:
      "The first day with a daily bar (YYYY-MM-DD): 2003-01-02, or the first session of the year the ticker listed"
  }),
  daily_to: Schema.String.annotations({ description: "The last completed daily bar (YYYY-MM-DD)" }),
  minute_from: Schema.NullOr(Schema.String).annotations({
    description:
      "The first session with minute bars (YYYY-MM-DD; `MINUTE_HISTORY_DAYS` back), or null when the ticker is not in the minute tier (the top 200 by 30-day dollar volume)"
  }),
  minute_to: Schema.NullOr(Schema.String).annotations({
    description: "The latest session with minute bars (the current one), or null outside the minute tier"
  })
})

export class TickersApi extends HttpApiGroup.make("tickers")
  // what every endpoint of the group can answer
  .pipe(groupErrors(BadRequest, ServiceUnavailable))
  .add(
    HttpApiEndpoint.get("list", "/v2/tickers")
      .annotate(OpenApi.Summary, "List or look up tickers")
      .setUrlParams(TickerListParams)
      .addSuccess(TickerList)
      .annotate(
        OpenApi.Description,
        "List tracked tickers (slim rows; alphabetical by ticker, or by market_cap descending with `search` or `min_market_cap`), filtered by `search`, `asset_type`, `exchange`, `sector` and `min_market_cap`, paged with opaque cursors. With `tickers`, a bulk lookup of up to 50 full rows."
      )
  )
  .add(
    HttpApiEndpoint.get("row", "/v2/tickers/:ticker")
      .annotate(OpenApi.Summary, "Get one ticker's row")
      .annotate(DirectRead, "ticker")
      .setPath(TickerPath)
      .setUrlParams(TickerRowParams)
      .addSuccess(TickerRowResponse)
      .pipe(withErrors(NotFound))
      .annotate(
        OpenApi.Description,
        "One ticker's full row: live, or with `asof` the daily row at the close of that day (the latest state on or before it, no look-back limit; `data.date` is the state's date)."
      )
  )
  .add(
    HttpApiEndpoint.get("history", "/v2/tickers/:ticker/history")
      .annotate(OpenApi.Summary, "Get one ticker's daily row as of a date")
      .setPath(TickerPath)
      .setUrlParams(TickerHistoryParams)
      .addSuccess(TickerHistoryResponse)
      .pipe(withErrors(HistoryWindowExceeded, NotFound))
      .annotate(
        OpenApi.Description,
        "One ticker's daily row as of `asof`: the most recent daily state on or before the date, no look-back limit (`data.date` may precede `asof`); a future date gives the latest completed row. The plan's history window applies (Free and Hobby: today only, Pro 5 years, Scale and Enterprise everything): an earlier `asof` is 400 `history_window_exceeded` with `max_history_days` and `earliest_allowed_from`. (`GET /v2/tickers/{ticker}?asof=` has no window.)"
      )
  )
  .add(
    HttpApiEndpoint.get("coverage", "/v2/tickers/:ticker/coverage")
      .annotate(OpenApi.Summary, "Get how far one ticker's data reaches")
      .setPath(TickerPath)
      .setUrlParams(StrictParams({}))
      .addSuccess(TickerCoverage)
      .pipe(withErrors(NotFound))
      .annotate(
        OpenApi.Description,
        "The days one ticker's data covers: daily bars from `daily_from` (2003-01-02, or the first session of its listing year; crypto from its first year of trading) to `daily_to`, and minute bars from `minute_from` to `minute_to` for tickers in the minute tier (null otherwise). Reads within these bounds may still be limited by the plan's history window."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Tracked tickers: list, bulk lookup, one row live or as of a date, coverage.") {}
