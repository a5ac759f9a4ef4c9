/**
 * The ticker page's calls (issue 18, item 4): the chart's bars and markers (the dashboard's own
 * `/dashboard/api/tickers/…`), and through the session's `/v2` (`/dashboard/v2/…`) the ticker's
 * row and its minute coverage. The row's values are grouped and described by the dashboard's
 * column catalog (`/dashboard/api/catalog`: each column's group, unit and description, from the
 * catalog the service itself is built from). `GET /v2/signals` is not asked: it lists a built-in
 * by name, type and source only, and the row carries built-in columns alone (a custom signal's
 * description is there, but no row carries a custom signal).
 */
import { type Cell, call } from "./api"
import { type ColumnGroup, GROUP_NAMES, loadBuiltins } from "./vocabulary"

export type ChartInterval = "1m" | "1h" | "1d" | "1w"
export const INTERVALS: ReadonlyArray<ChartInterval> = ["1m", "1h", "1d", "1w"]

export const intradayInterval = (interval: ChartInterval): boolean => interval === "1m" || interval === "1h"

export interface ChartBars {
  readonly ticker: string
  readonly name: string
  readonly interval: ChartInterval
  /** `YYYY-MM-DD` (1d, 1w) or an ISO time (1m, 1h) of the first and last bars */
  readonly from: string | null
  readonly to: string | null
  readonly limited: boolean
  /** epoch seconds: a bar's first minute (1m, 1h), 00:00 UTC of its day (1d; a week's last day, 1w) */
  readonly t: ReadonlyArray<number>
  readonly o: ReadonlyArray<number>
  readonly h: ReadonlyArray<number>
  readonly l: ReadonlyArray<number>
  readonly c: ReadonlyArray<number>
  readonly v: ReadonlyArray<number>
}

export const chartBars = (ticker: string, interval: ChartInterval) =>
  call<ChartBars>("GET", `/dashboard/api/tickers/${encodeURIComponent(ticker)}/bars?interval=${interval}`)

/** Where one of the account's webhooks fired or cleared for the ticker. */
export interface ChartMarker {
  /** the market data time of the event (ISO) */
  readonly time: string
  readonly kind: "fired" | "cleared"
  readonly webhook_id: string
  readonly webhook_name: string
}

/** the account's newest 500 events naming the ticker, newest first */
export const chartMarkers = (ticker: string) =>
  call<{ readonly markers: ReadonlyArray<ChartMarker> }>(
    "GET",
    `/dashboard/api/tickers/${encodeURIComponent(ticker)}/markers`
  )

/** the days the ticker's daily and minute bars cover (`minute_from` null: no minute bars) */
export const tickerCoverage = (ticker: string) =>
  call<{ readonly minute_from: string | null; readonly minute_to: string | null }>(
    "GET",
    `/dashboard/v2/tickers/${encodeURIComponent(ticker)}/coverage`
  )

export interface TickerRow {
  readonly as_of: string
  readonly ticker: string
  readonly data: Readonly<Record<string, Cell>>
}

export const tickerRow = (ticker: string) =>
  call<TickerRow>("GET", `/dashboard/v2/tickers/${encodeURIComponent(ticker)}`)

/** The row's values under these headings, in this order ("Other": a field the catalog does not know). */
export const GROUPS = ["Price", "Volume", "Trend", "Momentum", "Volatility", "Fundamentals", "News", "Other"] as const
export type Group = (typeof GROUPS)[number]

/** the catalog's groups as the page's headings; `identity` (ticker, name, sector, …) is the page's heading itself */
const headingOf = (group: ColumnGroup): Group | null =>
  group === "identity" ? null : ((GROUP_NAMES[group] as Group | undefined) ?? "Other")

/** One value of the row, as the page shows it. */
export interface RowValue {
  readonly name: string
  readonly value: Cell
  /** the value formatted by the column's unit */
  readonly text: string
  readonly description: string
}

export interface GroupedValues {
  readonly asOf: string
  readonly groups: ReadonlyArray<{ readonly group: Group; readonly values: ReadonlyArray<RowValue> }>
}

const compact = new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 2 })
const whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 })
const two = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 })
/** a price under $1 (crypto): up to 6 decimals */
const small = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 6 })

/** A value by its column's unit (`USD`, `fraction`, `shares`, …): `$1.23`, `-$3.40`, `1.53%`, `2.9T`, `Yes`. */
export const formatValue = (value: Cell, unit: string | undefined): string => {
  if (value === null) return "—"
  if (typeof value === "boolean") return value ? "Yes" : "No"
  if (typeof value === "string") return value
  if (!Number.isFinite(value)) return String(value)
  switch (unit) {
    case "fraction":
      return `${two.format(value * 100)}%`
    case "USD": {
      const abs = Math.abs(value)
      const digits = abs >= 1e6 ? compact.format(abs) : abs < 1 ? small.format(abs) : two.format(abs)
      return `${value < 0 ? "-" : ""}$${digits}`
    }
    case "shares":
      return Math.abs(value) >= 1e6 ? compact.format(value) : whole.format(value)
    case "count":
    case "days":
      return whole.format(value)
    default:
      return Math.abs(value) >= 1e6 ? compact.format(value) : two.format(value)
  }
}

/** The ticker's live row grouped under the catalog's headings, in its order, each value described. */
export const groupedValues = async (ticker: string): Promise<GroupedValues> => {
  const [row, catalog] = await Promise.all([tickerRow(ticker), loadBuiltins()])
  const byGroup = new Map<Group, Array<RowValue>>(GROUPS.map((g) => [g, []]))
  const known = new Set<string>()
  for (const column of catalog.columns) {
    known.add(column.name)
    const heading = headingOf(column.group)
    if (heading === null || !(column.name in row.data)) continue
    const value = row.data[column.name] ?? null
    byGroup.get(heading)!.push({
      name: column.name,
      value,
      text: formatValue(value, column.unit),
      description: column.description
    })
  }
  for (const [name, value] of Object.entries(row.data)) {
    if (!known.has(name))
      byGroup.get("Other")!.push({ name, value, text: formatValue(value, undefined), description: "" })
  }
  return {
    asOf: row.as_of,
    groups: GROUPS.map((group) => ({ group, values: byGroup.get(group)! })).filter((g) => g.values.length > 0)
  }
}
