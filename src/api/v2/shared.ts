/**
 * Building blocks every /v2 group uses: the market behind a 503 while it
 * loads, as-of dates, page sizes, plan gates, strict query parameters and
 * row rendering. Keep group handlers thin by adding here what two groups need.
 */
import { Effect, Schema } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import type { Plan } from "../../accounts/plans.js"
import { columnByName } from "../../market/catalog.js"
import type { MarketData } from "../../market/engine/MarketData.js"
import { Market } from "../../market/Market.js"
import type { Snapshot } from "../../market/snapshot.js"
import { BadRequest, Forbidden, ServiceUnavailable } from "../errors.js"

/** The loaded market, or 503 `service_unavailable` (Retry-After 2) while it loads. */
export const marketData: Effect.Effect<MarketData, ServiceUnavailable, Market> = Effect.flatMap(Market, (m) =>
  Effect.mapError(m.data, (e) => new ServiceUnavailable({ message: e.message, details: { retry_after: 2 } }))
)

/** The latest live snapshot, or 503 while the market loads. */
export const liveSnapshot: Effect.Effect<Snapshot, ServiceUnavailable, Market> = Effect.flatMap(Market, (m) =>
  Effect.mapError(m.latest, (e) => new ServiceUnavailable({ message: e.message, details: { retry_after: 2 } }))
)

/** `as_of` of a snapshot: ISO 8601. */
export const isoAsOf = (snapshot: Snapshot): string => new Date(snapshot.asOf).toISOString()

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
/** a time of day 00:00–23:59(:59) and a UTC offset up to ±23:59, as ISO 8601 allows */
const DATETIME = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/

/**
 * Parses an `asof` (or `from`/`to`) value: `YYYY-MM-DD` or a full ISO
 * timestamp, whose time component is truncated to the date. 400 naming the
 * parameter otherwise.
 */
export const parseDate = (name: string, raw: string): Effect.Effect<string, BadRequest> => {
  const text = raw.trim()
  const m = DATE.exec(text) ?? DATETIME.exec(text)
  const date = m === null ? undefined : m[0].length === 10 ? m[0] : m[1]
  const valid =
    date !== undefined &&
    !Number.isNaN(Date.parse(`${date}T00:00:00Z`)) &&
    // the whole timestamp is an instant too: callers that keep the time read it with Date.parse
    (m![0].length === 10 || !Number.isNaN(Date.parse(text))) &&
    new Date(`${date}T00:00:00Z`).toISOString().startsWith(date) &&
    date >= "1990-01-01" &&
    date <= "2100-12-31"
  return valid
    ? Effect.succeed(date!)
    : Effect.fail(
        new BadRequest({
          message: `${name} must be a date YYYY-MM-DD or an ISO 8601 timestamp such as 2026-03-02T15:04:05Z (got ${JSON.stringify(raw)})`
        })
      )
}

/** A page size: default when absent, 400 outside 1..max. */
export const pageSize = (raw: number | undefined, max: number, fallback: number): Effect.Effect<number, BadRequest> =>
  raw === undefined
    ? Effect.succeed(fallback)
    : Number.isInteger(raw) && raw >= 1 && raw <= max
      ? Effect.succeed(raw)
      : Effect.fail(new BadRequest({ message: `limit must be an integer from 1 to ${max} (got ${raw})` }))

/** URL parameters: an integer given as text. */
export const IntParam = Schema.NumberFromString.pipe(Schema.int())

/**
 * A URL-parameter struct that refuses parameters it does not name (400 naming
 * them), so a typo is never silently ignored.
 */
export const StrictParams = <F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Struct(fields).annotations({ parseOptions: { onExcessProperty: "error" } })

/** 403 with `code` unless the account's plan (of a key, or the plan itself) is one of `plans`. */
export const requirePlan = (
  of: AuthenticatedKey | Plan,
  plans: ReadonlyArray<Plan>,
  code: string,
  what: string
): Effect.Effect<void, Forbidden> => {
  const plan = typeof of === "string" ? of : of.account.plan
  return plans.includes(plan)
    ? Effect.void
    : Effect.fail(
        new Forbidden({
          code,
          message: `${what} needs the ${plans.join(", ")} plan${plans.length > 1 ? "s" : ""}; this account is on ${plan}`
        })
      )
}

/** Static fields of the row: they always reflect current values, also in historical reads. */
export const FROZEN_FIELDS = ["name", "sector", "industry", "asset_type", "exchange"] as const

/** One snapshot row as JSON: the named columns (every column when omitted), nulls kept. */
export const renderRow = (
  snapshot: Snapshot,
  r: number,
  columns?: ReadonlyArray<string>
): Record<string, string | number | boolean | null> => {
  const out: Record<string, string | number | boolean | null> = {}
  const names = columns ?? [...snapshot.columns.keys()]
  for (const name of names) {
    const col = snapshot.columns.get(name)
    if (col === undefined) continue
    if (col.kind === "string") out[name] = col.values[r] ?? null
    else if (col.valid[r] === 0) out[name] = null
    else out[name] = col.kind === "boolean" ? col.values[r] === 1 : col.values[r]
  }
  return out
}

/** Every column name of the ticker row in catalog order. */
export const ROW_COLUMNS: ReadonlyArray<string> = [...columnByName.keys()]
