/**
 * The list mode of GET /v2/tickers over one snapshot: filters, the two
 * orders and keyset positions. Pure (no Effect), so the handler stays thin.
 *
 * Orders: `ticker` (snapshot row order, which is ascending by ticker) and
 * `market_cap` (descending, nulls last, ticker ascending as tie-breaker). The
 * market_cap order is sorted once per snapshot and cached; lowercase names and
 * tickers for `search` are cached per string column (shared by live snapshots).
 * A request scans the rows after its position once, stopping at limit + 1 matches.
 */

import type { NumericColumn, Snapshot, StringColumn } from "../../market/snapshot.js"
import type { AssetType } from "../../market/tickers/index.js"

export type ListOrder = "ticker" | "market_cap"

export interface ListFilter {
  /** lowercase substring of the ticker or the name */
  readonly search?: string | undefined
  readonly assetTypes?: ReadonlySet<AssetType> | undefined
  readonly exchange?: string | undefined
  readonly sector?: string | undefined
  readonly minMarketCap?: number | undefined
}

/** Where a page starts: after the row with this ticker (and, for the market_cap order, this value). */
export interface ListPosition {
  readonly t: string
  /** market_cap of the last row (null when it had none); market_cap order only */
  readonly c?: number | null
}

export interface ListPage {
  readonly rows: ReadonlyArray<number>
  /** the last row's position when more rows match after it */
  readonly next: ListPosition | undefined
}

const capOrders = new WeakMap<Snapshot, Int32Array>()
const lowered = new WeakMap<ReadonlyArray<string | null>, ReadonlyArray<string>>()

const lowerOf = (values: ReadonlyArray<string | null>): ReadonlyArray<string> => {
  let out = lowered.get(values)
  if (out === undefined) {
    out = values.map((v) => (v ?? "").toLowerCase())
    lowered.set(values, out)
  }
  return out
}

const stringColumn = (snapshot: Snapshot, name: string): ReadonlyArray<string | null> =>
  (snapshot.columns.get(name) as StringColumn).values

const capColumn = (snapshot: Snapshot): NumericColumn => snapshot.columns.get("market_cap") as NumericColumn

/** Compares (cap, ticker) keys in the market_cap order: descending, nulls last, then ticker ascending. */
const compareCap = (ca: number | null, ta: string, cb: number | null, tb: string): number => {
  if (ca !== cb) {
    if (ca === null) return 1
    if (cb === null) return -1
    return ca > cb ? -1 : 1
  }
  return ta < tb ? -1 : ta > tb ? 1 : 0
}

/** The snapshot's rows in the market_cap order (cached per snapshot). */
export const capOrder = (snapshot: Snapshot): Int32Array => {
  let order = capOrders.get(snapshot)
  if (order === undefined) {
    const cap = capColumn(snapshot)
    const tickers = snapshot.tickers
    const key = (r: number) => (cap.valid[r] === 1 ? cap.values[r] : null)
    order = Int32Array.from({ length: snapshot.size }, (_, i) => i).sort((a, b) =>
      compareCap(key(a), tickers[a], key(b), tickers[b])
    )
    capOrders.set(snapshot, order)
  }
  return order
}

/** First index of `order` whose row comes strictly after `position`. */
const startAfter = (snapshot: Snapshot, order: ListOrder, sorted: Int32Array | undefined, p: ListPosition) => {
  const tickers = snapshot.tickers
  const cap = capColumn(snapshot)
  let lo = 0
  let hi = snapshot.size
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const r = sorted === undefined ? mid : sorted[mid]
    const after =
      order === "ticker"
        ? tickers[r] > p.t
        : compareCap(cap.valid[r] === 1 ? cap.values[r] : null, tickers[r], p.c ?? null, p.t) > 0
    if (after) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** One page of matching rows in `order`, after `position` when given. */
export const listPage = (
  snapshot: Snapshot,
  order: ListOrder,
  filter: ListFilter,
  limit: number,
  position: ListPosition | undefined
): ListPage => {
  const sorted = order === "market_cap" ? capOrder(snapshot) : undefined
  const cap = capColumn(snapshot)
  const assetTypes = stringColumn(snapshot, "asset_type")
  const exchanges = stringColumn(snapshot, "exchange")
  const sectors = stringColumn(snapshot, "sector")
  const search = filter.search
  const names = search === undefined ? undefined : lowerOf(stringColumn(snapshot, "name"))
  const tickersLower = search === undefined ? undefined : lowerOf(snapshot.tickers)
  const rows: Array<number> = []
  let more = false
  const start = position === undefined ? 0 : startAfter(snapshot, order, sorted, position)
  for (let k = start; k < snapshot.size; k++) {
    const r = sorted === undefined ? k : sorted[k]
    if (filter.assetTypes !== undefined && !filter.assetTypes.has(assetTypes[r] as AssetType)) continue
    if (filter.exchange !== undefined && exchanges[r] !== filter.exchange) continue
    if (filter.sector !== undefined && sectors[r] !== filter.sector) continue
    if (filter.minMarketCap !== undefined && (cap.valid[r] === 0 || cap.values[r] < filter.minMarketCap)) continue
    if (search !== undefined && !tickersLower![r].includes(search) && !names![r].includes(search)) continue
    if (rows.length === limit) {
      more = true
      break
    }
    rows.push(r)
  }
  if (!more || rows.length === 0) return { rows, next: undefined }
  const last = rows[rows.length - 1]
  return {
    rows,
    next:
      order === "ticker"
        ? { t: snapshot.tickers[last] }
        : { t: snapshot.tickers[last], c: cap.valid[last] === 1 ? cap.values[last] : null }
  }
}

/** A decoded cursor position, checked for the shape `order` writes. */
export const readPosition = (order: ListOrder, value: unknown): ListPosition | undefined => {
  if (value === null || typeof value !== "object") return undefined
  const { t, c } = value as { t?: unknown; c?: unknown }
  if (typeof t !== "string") return undefined
  if (order === "ticker") return c === undefined ? { t } : undefined
  if (c === null || (typeof c === "number" && Number.isFinite(c))) return { t, c }
  return undefined
}
