/**
 * The `webhook.fired` event: the rows of the tickers that newly match, in
 * the operator contract's shape.
 *
 * A row carries the standard fields (`ticker`, `name`, `asset_type`,
 * `price`, `day_change_pct`, `market_cap`) plus the subscription's `fields`.
 * One fire carries at most `MAX_FIRE_ROWS` rows, the largest companies first
 * (`market_cap` descending, nulls last, then ticker), with `match_count`
 * (how many tickers newly matched) and `truncated`, so a huge first fire or
 * re-enable stays one readable event. With `DASHBOARD_URL` set, each row also carries
 * `chart_url`: the ticker's chart in the dashboard at the fire's data time.
 */
import type { AlertEvent, AlertEventType, RowValue } from "../delivery/event.js"
import type { Snapshot } from "../market/snapshot.js"

export const MAX_FIRE_ROWS = 100
export const STANDARD_FIELDS = ["ticker", "name", "asset_type", "price", "day_change_pct", "market_cap"] as const

const cell = (snapshot: Snapshot, name: string, r: number): RowValue => {
  const col = snapshot.columns.get(name)
  if (col === undefined) return null
  if (col.kind === "string") return col.values[r] ?? null
  if (col.valid[r] === 0) return null
  return col.kind === "boolean" ? col.values[r] === 1 : col.values[r]!
}

/** The dashboard's chart of `ticker` at `asOfIso` (`DASHBOARD_URL` is the base). */
export const chartUrl = (base: string, ticker: string, asOfIso: string): string =>
  `${base.replace(/\/+$/, "")}/#/tickers/${encodeURIComponent(ticker)}?at=${encodeURIComponent(asOfIso)}`

/** The columns of a fired row: the standard ones, then `fields` not already among them. */
export const eventColumns = (fields: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out: Array<string> = [...STANDARD_FIELDS]
  for (const f of fields) if (!out.includes(f)) out.push(f)
  return out
}

/** Orders tickers for a fire: market cap descending, nulls last, then ticker. */
export const fireOrder = (snapshot: Snapshot, tickers: ReadonlyArray<string>): Array<string> => {
  const cap = snapshot.columns.get("market_cap")
  const capOf = (t: string): number | null => {
    const r = snapshot.index.get(t)
    if (r === undefined || cap === undefined || cap.kind !== "numeric" || cap.valid[r] === 0) return null
    return cap.values[r]!
  }
  return [...tickers]
    .map((t) => [t, capOf(t)] as const)
    .sort((a, b) => {
      if (a[1] === null || b[1] === null) {
        if (a[1] !== b[1]) return a[1] === null ? 1 : -1
      } else if (a[1] !== b[1]) return b[1] - a[1]
      return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0
    })
    .map(([t]) => t)
}

/** The rows of an event; a ticker in `repeated` carries `repeat: true` (sent again, still inside). */
export const firedRows = (
  snapshot: Snapshot,
  tickers: ReadonlyArray<string>,
  fields: ReadonlyArray<string>,
  repeated?: ReadonlySet<string>,
  /** `DASHBOARD_URL`: each row links to its chart */
  chartBase?: string
): Array<Record<string, RowValue>> => {
  const columns = eventColumns(fields)
  const asOf = new Date(snapshot.asOf).toISOString()
  const out: Array<Record<string, RowValue>> = []
  for (const t of fireOrder(snapshot, tickers).slice(0, MAX_FIRE_ROWS)) {
    const r = snapshot.index.get(t)
    const row: Record<string, RowValue> = {}
    for (const c of columns) row[c] = r === undefined ? (c === "ticker" ? t : null) : cell(snapshot, c, r)
    if (chartBase !== undefined) row["chart_url"] = chartUrl(chartBase, t, asOf)
    if (repeated?.has(t)) row["repeat"] = true
    out.push(row)
  }
  return out
}

/** Where an event stands in its webhook's feed (not on test pings). */
export interface EventPlace {
  readonly type: AlertEventType
  readonly sequence: number
  /** epoch ms of the market data evaluated */
  readonly dataAsOf: number
  /** tickers of a `webhook.fired` sent again */
  readonly repeated?: ReadonlySet<string> | undefined
}

export const firedEvent = (args: {
  readonly webhookId: string
  readonly name: string
  readonly q: string
  readonly snapshot: Snapshot
  readonly added: ReadonlyArray<string>
  readonly fields: ReadonlyArray<string>
  readonly test: boolean
  /** epoch ms of the event */
  readonly now: number
  /** the event's type, sequence and data time (a test ping has none: a `webhook.fired` without them) */
  readonly place?: EventPlace | undefined
  /** `DASHBOARD_URL`: each row links to its chart */
  readonly chartBase?: string | undefined
}): AlertEvent => {
  const place = args.place
  const matches = firedRows(args.snapshot, args.added, args.fields, place?.repeated, args.chartBase)
  return {
    type: place?.type ?? "webhook.fired",
    timestamp: new Date(args.now).toISOString(),
    data: {
      webhook_id: args.webhookId,
      name: args.name,
      q: args.q,
      as_of: new Date(args.snapshot.asOf).toISOString(),
      ...(place === undefined ? {} : { data_as_of: new Date(place.dataAsOf).toISOString(), sequence: place.sequence }),
      test: args.test,
      match_count: args.added.length,
      truncated: args.added.length > matches.length,
      matches
    }
  }
}

/**
 * Renders the event bodies of one tick (the same text as
 * `JSON.stringify(firedEvent(…))`), cheaply when thousands of webhooks fire:
 * each ticker's row is rendered once per column list and spliced into every
 * event that carries it, and the fire order comes from one ranking of the
 * snapshot's rows (market cap descending, nulls last, then ticker).
 */
export class FireRenderer {
  private rank: Int32Array | undefined
  private readonly rows = new Map<string, Array<string | undefined>>()
  private readonly timestamp: string
  private readonly asOf: string

  constructor(
    private readonly snapshot: Snapshot,
    private readonly now: number,
    /** `DASHBOARD_URL`: each row links to its chart */
    private readonly chartBase?: string | undefined
  ) {
    this.timestamp = JSON.stringify(new Date(now).toISOString())
    this.asOf = JSON.stringify(new Date(snapshot.asOf).toISOString())
  }

  /** each row's position in the fire order */
  private ranking(): Int32Array {
    if (this.rank === undefined) {
      const s = this.snapshot
      const order = fireOrder(s, s.tickers)
      const rank = new Int32Array(s.size)
      for (let i = 0; i < order.length; i++) rank[s.index.get(order[i]!)!] = i
      this.rank = rank
    }
    return this.rank
  }

  /** the event's body: `added` are its tickers (any order), `place` its type, sequence and data time */
  render(args: {
    readonly webhookId: string
    readonly name: string
    readonly q: string
    readonly added: ReadonlyArray<string>
    readonly fields: ReadonlyArray<string>
    readonly place?: EventPlace | undefined
  }): string {
    const s = this.snapshot
    const rowsOf: Array<number> = []
    const place = args.place
    for (const t of args.added) {
      const r = s.index.get(t)
      if (r === undefined || s.tickers[r] !== t) {
        // a ticker the snapshot does not have: the general path
        return JSON.stringify(
          firedEvent({ ...args, snapshot: s, test: false, now: this.now, chartBase: this.chartBase })
        )
      }
      rowsOf.push(r)
    }
    const rank = this.ranking()
    rowsOf.sort((a, b) => rank[a]! - rank[b]!)
    const shown = Math.min(rowsOf.length, MAX_FIRE_ROWS)
    const columns = eventColumns(args.fields)
    const key = columns.join(",")
    let cache = this.rows.get(key)
    if (cache === undefined) {
      cache = new Array<string | undefined>(s.size)
      this.rows.set(key, cache)
    }
    const parts: Array<string> = []
    for (let i = 0; i < shown; i++) {
      const r = rowsOf[i]!
      let json = cache[r]
      if (json === undefined) {
        const row: Record<string, RowValue> = {}
        for (const c of columns) row[c] = cell(s, c, r)
        if (this.chartBase !== undefined) {
          row["chart_url"] = chartUrl(this.chartBase, s.tickers[r]!, new Date(s.asOf).toISOString())
        }
        json = JSON.stringify(row)
        cache[r] = json
      }
      parts.push(place?.repeated?.has(s.tickers[r]!) ? `${json.slice(0, -1)},"repeat":true}` : json)
    }
    const where =
      place === undefined
        ? ""
        : `,"data_as_of":${JSON.stringify(new Date(place.dataAsOf).toISOString())},"sequence":${place.sequence}`
    return `{"type":"${place?.type ?? "webhook.fired"}","timestamp":${this.timestamp},"data":{"webhook_id":${JSON.stringify(args.webhookId)},"name":${JSON.stringify(args.name)},"q":${JSON.stringify(args.q)},"as_of":${this.asOf}${where},"test":false,"match_count":${args.added.length},"truncated":${args.added.length > shown},"matches":[${parts.join(",")}]}}`
  }
}
