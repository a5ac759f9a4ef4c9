/**
 * The MCP server's tools (issue 19): each one endpoint of the `/v2` API, called through the typed
 * client, its input schema the endpoint's own path, query and body schemas merged (one source of
 * truth: validated with Effect Schema, advertised as the JSON Schema Effect derives from them),
 * with a description an LLM can act on. `readOnly` tools change nothing (`MCP_TOOLS=read` serves
 * only those).
 */
import { SchemaAST as AST, Option, Schema } from "effect"
import { VigilApi } from "../client.js"

/** The `q` language in brief, for the descriptions of the tools that take one. */
export const Q_BRIEF =
  "`q` is a SQL WHERE-style boolean expression over the ticker row's columns (see the resource vigil://docs/query-language and the column catalog vigil://catalog): comparisons `= != < <= > >=`, `AND OR NOT`, `BETWEEN a AND b`, `IN (…)`, `LIKE`/`ILIKE`, `IS [NOT] NULL`, arithmetic `+ - * / %`, functions (ABS, ROUND, COALESCE, NULLIF, LEAST, GREATEST, PCT_RANK, RANK, ZSCORE, …), another ticker's column as `spy.price`, and the account's custom signals by name. Examples: `rsi_14 < 30 AND price > 5`, `golden_cross AND market_cap > 1e10`, `sector = 'Technology' AND PCT_RANK(return_3m) > 0.9`. Fractions are fractions (`day_change_pct > 0.05` is +5%). A rejected `q` comes back as a tool error with each problem's position (`pos`, a character offset) and a suggestion to fix it."

export interface ToolSpec {
  /** the tool's name (snake_case) */
  readonly name: string
  /** the API's group and endpoint it calls (`client[group][endpoint]`) */
  readonly group: string
  readonly endpoint: string
  /** what it does and returns, its limits, for the model */
  readonly description: string
  /** changes nothing (served with `MCP_TOOLS=read`) */
  readonly readOnly: boolean
  /** a short line for people (the text beside the structured result) */
  readonly summary?: (result: any) => string
}

const count = (noun: string) => (r: any) =>
  `${r.count ?? r[noun]?.length ?? 0} ${noun}${r.next_cursor ? " (more: pass next_cursor as cursor)" : ""}`

const names = (rows: ReadonlyArray<any> | undefined, key = "ticker", n = 10) =>
  (rows ?? [])
    .slice(0, n)
    .map((r) => r[key])
    .join(", ")

export const TOOLS: ReadonlyArray<ToolSpec> = [
  {
    name: "scan",
    group: "scan",
    endpoint: "scan",
    readOnly: true,
    description: `Screens the market (12,947 US equities and ETFs, the top 100 cryptocurrencies) with \`q\`, live or as of a past date (\`asof\`: YYYY-MM-DD or ISO, within the plan's history window), optionally within a universe (\`top_10\`, \`top_100\` or one of the account's slugs). Returns \`count\`, \`total\` matches, \`results\` (rows: ticker, name, asset_type, price, day_change_pct, market_cap and the \`fields\` asked for), \`next_cursor\` for the next page. \`order\`/\`dir\` sort (default day_change_pct desc), \`limit\` 1–100 (default 50). ${Q_BRIEF}`,
    summary: (r) =>
      `${r.count} of ${r.total ?? r.count} matching tickers as of ${r.as_of}${r.count > 0 ? `: ${names(r.results)}${r.count > 10 ? ", …" : ""}` : ""}`
  },
  {
    name: "explain_scan",
    group: "scan",
    endpoint: "explain",
    readOnly: true,
    description: `Explains \`q\` at one ticker (live or as of a date): the expression tree with each AND/OR/NOT, each comparison's operands and their values, and whether each part holds — why a ticker matches or does not. ${Q_BRIEF}`,
    summary: (r) =>
      `${r.ticker ?? ""}: ${r.matches === true ? "matches" : r.matches === false ? "does not match" : "evaluated"}`
  },
  {
    name: "backtest",
    group: "scan",
    endpoint: "backtest",
    readOnly: true,
    description: `Backtests a screen: on each rebalance day from \`from\` to \`to\` (YYYY-MM-DD; \`every\` 1d, 1w or 1mo) the tickers matching \`q\` (all, or the first \`limit\` in \`order\`/\`dir\`) are bought at the close in equal weights and sold \`hold\` trading days later (\`5d\`, 1d–252d), against \`benchmark\` (default SPY). Returns every period's return and the benchmark's, and a summary: mean and excess return a period, hit rate, cumulative return against the benchmark's, max drawdown. Returns are fractions (0.012 = +1.2%). ${Q_BRIEF}`,
    summary: (r) =>
      `${r.summary?.periods} periods: screen ${pct(r.summary?.cumulative_return)}, ${r.query?.benchmark} ${pct(r.summary?.benchmark_cumulative_return)}`
  },
  {
    name: "list_tickers",
    group: "tickers",
    endpoint: "list",
    readOnly: true,
    description:
      "Lists the tracked tickers (symbol, name, asset type, exchange), filtered and paged: see the input fields; `next_cursor` for the next page.",
    summary: count("tickers")
  },
  {
    name: "get_ticker",
    group: "tickers",
    endpoint: "row",
    readOnly: true,
    description:
      "One ticker's whole row of current values (price, volume, moving averages and trend flags, momentum, volatility, 52-week range, returns, fundamentals, news), or as of a past date (`asof`). Column meanings: the resource vigil://catalog.",
    summary: (r) => `${r.ticker ?? r.data?.ticker}: ${r.data?.price ?? r.price ?? ""}`
  },
  {
    name: "get_ticker_coverage",
    group: "tickers",
    endpoint: "coverage",
    readOnly: true,
    description:
      "The dates a ticker has data for: `daily_from`/`daily_to` (daily bars, back to 2003 or listing) and `minute_from`/`minute_to` (minute bars, the 200 most traded tickers).",
    summary: (r) => `${r.ticker}: daily ${r.daily_from}–${r.daily_to}`
  },
  {
    name: "list_signals",
    group: "signals",
    endpoint: "catalog",
    readOnly: true,
    description:
      "The signal catalog: every built-in signal (a boolean or numeric column usable in `q`) and the account's custom signals (named expressions, with their `expr` and description). Descriptions of the built-ins: the resource vigil://catalog.",
    summary: (r) => `${r.count_builtin} built-in and ${r.count_custom} custom signals`
  },
  {
    name: "get_signal_matches",
    group: "signals",
    endpoint: "matches",
    readOnly: true,
    description:
      "The tickers a signal (built-in flag or custom signal) matches now or as of a date, optionally within a universe; paged.",
    summary: (r) => `${r.count} matches${r.count > 0 ? `: ${names(r.matches ?? r.results)}` : ""}`
  },
  {
    name: "get_signal_series",
    group: "signals",
    endpoint: "history",
    readOnly: true,
    description:
      "A signal's values over time for one ticker at an interval (`1m`, `1h`: minute-tier tickers and columns; `1d`, `1w`), within the plan's history window.",
    summary: (r) => `${r.ticker} ${r.signal ?? ""}: ${r.count ?? r.points?.length ?? 0} points`
  },
  {
    name: "create_custom_signal",
    group: "signals",
    endpoint: "create",
    readOnly: false,
    description: `Creates a custom signal (Pro plan and above): a \`name\` (lowercase letters, digits, _) for a boolean \`expr\` in the \`q\` language, usable in scans and subscriptions by name. ${Q_BRIEF}`,
    summary: (r) => `created ${r.signal?.name ?? r.name}`
  },
  {
    name: "update_custom_signal",
    group: "signals",
    endpoint: "update",
    readOnly: false,
    description: "Changes a custom signal's `expr` or `description` (subscriptions keep the expression they froze).",
    summary: (r) => `updated ${r.signal?.name ?? r.name}`
  },
  {
    name: "delete_custom_signal",
    group: "signals",
    endpoint: "remove",
    readOnly: false,
    description:
      "Deletes a custom signal; refused (signal_referenced) while another custom signal uses it unless `force` is true.",
    summary: () => "deleted"
  },
  {
    name: "list_universes",
    group: "universes",
    endpoint: "list",
    readOnly: true,
    description:
      "The account's own universes (named ticker lists: slug, name, size). The system universes `top_10` and `top_100` (by market cap) can be used everywhere too.",
    summary: count("universes")
  },
  {
    name: "get_universe",
    group: "universes",
    endpoint: "get",
    readOnly: true,
    description: "One universe with its tickers (a system slug or one of the account's).",
    summary: (r) => `${r.id ?? r.slug}: ${r.size} tickers`
  },
  {
    name: "create_universe",
    group: "universes",
    endpoint: "create",
    readOnly: false,
    description: "Creates a universe of the account: a name (and slug) and its tracked tickers.",
    summary: (r) => `created ${r.id ?? r.slug} (${r.size} tickers)`
  },
  {
    name: "update_universe",
    group: "universes",
    endpoint: "update",
    readOnly: false,
    description: "Renames a universe or changes its tickers (replace, add or remove: see the input fields).",
    summary: (r) => `${r.id ?? r.slug}: ${r.size} tickers`
  },
  {
    name: "delete_universe",
    group: "universes",
    endpoint: "delete",
    readOnly: false,
    description: "Deletes one of the account's universes.",
    summary: () => "deleted"
  },
  {
    name: "subscribe",
    group: "webhooks",
    endpoint: "create",
    readOnly: false,
    description: `Subscribes to \`q\` (paid plans): evaluated on every refresh (\`cadence\` realtime, hourly or exchange_open), it sends an event when tickers newly match (\`fire_on\` enter, exit or both) to the \`channel\`: \`in_app\` (the default without a target: the account's notifications), \`webhook\` (\`target_url\`, https, signed per Standard Webhooks; the \`signing_secret\` is in this answer only), \`chat\` (\`chat_url\`), \`mobile_push\` (\`device_id\`). Options: \`pending_for\`, \`clear_q\`, \`cooldown\`, \`repeat_interval\` (durations like 15m, 4h, 1d), \`fields\` (extra columns in each row), \`universe\`. Check it first with dry_run. ${Q_BRIEF}`,
    summary: (r) => `subscribed: ${r.id} (${r.channel}, ${r.cadence})`
  },
  {
    name: "dry_run",
    group: "webhooks",
    endpoint: "dryRun",
    readOnly: true,
    description: `What a subscription would have sent over a past window (\`from\`/\`to\`, default the last year at \`resolution\` 1d; 1m: at most 7 days, minute-tier tickers): the events in sequence, the tickers with the most, and the forward returns 1, 5 and 20 days after each fire. Nothing is stored or sent. Takes the same rule fields as subscribe. ${Q_BRIEF}`,
    summary: (r) => `${r.event_count} events over ${r.evaluations} evaluations (${r.from} to ${r.to})`
  },
  {
    name: "list_webhooks",
    group: "webhooks",
    endpoint: "list",
    readOnly: true,
    description: "The account's subscriptions (webhooks of every channel) with their settings and state; paged.",
    summary: count("webhooks")
  },
  {
    name: "get_webhook",
    group: "webhooks",
    endpoint: "get",
    readOnly: true,
    description:
      "One subscription: its query, channel, cadence, firing options, status, the tickers matching at the last evaluation, last fired.",
    summary: (r) => `${r.id} ${r.name}: ${r.status}, ${r.last_match_set?.length ?? 0} matching`
  },
  {
    name: "update_webhook",
    group: "webhooks",
    endpoint: "update",
    readOnly: false,
    description:
      "Changes a subscription's name, target or chat URL, cadence, fields or firing options (the query, universe and channel are fixed once created).",
    summary: (r) => `updated ${r.id}`
  },
  {
    name: "enable_webhook",
    group: "webhooks",
    endpoint: "enable",
    readOnly: false,
    description: "Re-enables a disabled subscription.",
    summary: (r) => `${r.id}: ${r.status}`
  },
  {
    name: "disable_webhook",
    group: "webhooks",
    endpoint: "disable",
    readOnly: false,
    description: "Disables a subscription (nothing is evaluated or sent until it is enabled).",
    summary: (r) => `${r.id}: ${r.status}`
  },
  {
    name: "delete_webhook",
    group: "webhooks",
    endpoint: "delete",
    readOnly: false,
    description: "Deletes a subscription.",
    summary: () => "deleted"
  },
  {
    name: "snooze_webhook",
    group: "webhooks",
    endpoint: "snooze",
    readOnly: false,
    description:
      "Snoozes a subscription until `until` (ISO 8601, at most 30 days ahead): it is still evaluated and its events kept in the feed, but not delivered.",
    summary: (r) => `${r.id} snoozed until ${r.snoozed_until}`
  },
  {
    name: "test_webhook",
    group: "webhooks",
    endpoint: "test",
    readOnly: false,
    description: "Sends a test delivery to the subscription's target; answers the delivery record.",
    summary: (r) => `test delivery ${r.delivery?.id}: ${r.delivery?.status}`
  },
  {
    name: "explain_webhook",
    group: "webhooks",
    endpoint: "explain",
    readOnly: true,
    description:
      "Where one ticker stands on a subscription after its last evaluation: `state` (idle, pending, inside, cooling), the reason in words, and the rule's evaluated tree.",
    summary: (r) => `${r.ticker}: ${r.state}: ${r.reason}`
  },
  {
    name: "list_deliveries",
    group: "webhooks",
    endpoint: "deliveries",
    readOnly: true,
    description:
      "A subscription's delivery attempts, newest first: status (pending, delivered, permanent_failure), attempts, the receiver's status code, the error; paged.",
    summary: count("deliveries")
  },
  {
    name: "get_webhook_events",
    group: "webhooks",
    endpoint: "events",
    readOnly: true,
    description:
      "A subscription's event feed in sequence after `after`: every fired/cleared event with the body sent (or, snoozed, that would have been) — to catch up without redeliveries.",
    summary: (r) => `${r.count} events${r.next_cursor ? ` (more after ${r.next_cursor})` : ""}`
  },
  {
    name: "market_status",
    group: "market",
    endpoint: "status",
    readOnly: true,
    description: "Whether the market is open, the session's times, and how fresh the data is.",
    summary: (r) =>
      `equities ${r.equities?.open === true ? "open" : "closed"}, crypto ${r.crypto?.open === true ? "open" : "closed"}; data as of ${r.data_as_of}${r.stale === true ? " (stale)" : ""}`
  },
  {
    name: "search_news",
    group: "news",
    endpoint: "scan",
    readOnly: true,
    description:
      "Searches news mentions (tickers, sentiment, relevance, time window) as the news endpoint describes in its input fields; paged.",
    summary: count("mentions")
  }
]

const pct = (x: number | null | undefined) =>
  typeof x === "number" ? `${x >= 0 ? "+" : ""}${(x * 100).toFixed(2)}%` : "—"

/** An endpoint of the API, as a tool calls it: its merged input schema and which fields go where. */
export interface ToolInput {
  readonly schema: Schema.Schema<any, any>
  readonly path: ReadonlyArray<string>
  readonly urlParams: ReadonlyArray<string>
  readonly payload: ReadonlyArray<string>
}

interface EndpointSchemas {
  readonly pathSchema: Option.Option<Schema.Schema.Any>
  readonly urlParamsSchema: Option.Option<Schema.Schema.Any>
  readonly payloadSchema: Option.Option<Schema.Schema.Any>
}

const fieldNames = (schema: Schema.Schema.Any | undefined): ReadonlyArray<string> =>
  schema === undefined ? [] : AST.getPropertySignatures(schema.ast).map((p) => String(p.name))

/**
 * The input of `spec`: the endpoint's body, path and query fields in one struct — the query's on
 * their decoded side (a number is a number to an agent, not the string of a URL), the client
 * encodes them again.
 */
export const toolInput = (spec: ToolSpec): ToolInput => {
  const groups = VigilApi.groups as unknown as Record<string, { readonly endpoints: Record<string, unknown> }>
  const endpoint = groups[spec.group]?.endpoints[spec.endpoint] as EndpointSchemas | undefined
  if (endpoint === undefined) throw new Error(`${spec.name}: no endpoint ${spec.group}.${spec.endpoint}`)
  const payload = Option.getOrUndefined(endpoint.payloadSchema)
  const path = Option.getOrUndefined(endpoint.pathSchema)
  const query = Option.map(endpoint.urlParamsSchema, (q) => Schema.typeSchema(q) as Schema.Schema.Any)
  const urlParams = Option.getOrUndefined(query)
  const parts = [payload, path, urlParams].filter(
    (p): p is Schema.Schema.Any => p !== undefined && fieldNames(p).length > 0
  )
  const schema = parts.reduce<Schema.Schema.Any>(
    (all, part) => Schema.extend(all as any, part as any) as unknown as Schema.Schema.Any,
    Schema.Struct({})
  )
  return {
    schema: schema as unknown as Schema.Schema<any, any>,
    path: fieldNames(path),
    urlParams: fieldNames(urlParams),
    payload: fieldNames(payload)
  }
}
