/**
 * Per-ticker series of a signal: built-in columns straight from the market's
 * daily, weekly and minute-resolution reads; custom signals by evaluating the
 * compiled expression over a "bar snapshot" whose rows are the bars of the
 * one ticker (one row per bar, every referenced column filled in).
 */
import { columnByName } from "../../market/catalog.js"
import type { MarketReader } from "../../market/engine/MarketData.js"
import type { Column, Snapshot } from "../../market/snapshot.js"
import type { TickerMeta } from "../../market/tickers/index.js"
import type { CompiledQuery } from "../../query/index.js"

export type HistoryInterval = "1m" | "1h" | "1d" | "1w"
export const INTERVALS: ReadonlyArray<HistoryInterval> = ["1m", "1h", "1d", "1w"]

export type HistoryValue = number | boolean | null

/** A point: `key` is the epoch day (1d/1w) or epoch ms (1m/1h). */
export interface Point {
  readonly key: number
  readonly v: HistoryValue
}

export interface Window {
  readonly interval: HistoryInterval
  /** epoch day (1d/1w) or epoch ms (1m/1h), inclusive */
  readonly from: number
  readonly to: number
  readonly limit: number
}

export interface Page {
  /** oldest first */
  readonly points: ReadonlyArray<Point>
  /** whether older points exist within the window */
  readonly more: boolean
}

/** Epoch day of the Monday of the week containing `day` (epoch day 4 was a Monday). */
export const mondayOf = (day: number): number => day - ((((day - 4) % 7) + 7) % 7)

/** The newest `limit` points of one column within the window, oldest first. */
export const columnPage = (md: MarketReader, ticker: string, column: string, w: Window): Page => {
  if (w.interval === "1m" || w.interval === "1h") {
    const newestFirst = md.intradaySeries(ticker, column, w.interval, w.from, w.to, w.limit + 1)
    const page = newestFirst.slice(0, w.limit).reverse()
    return { points: page.map((p) => ({ key: p.t, v: p.value })), more: newestFirst.length > w.limit }
  }
  const all =
    w.interval === "1d" ? md.dailySeries(ticker, column, w.from, w.to) : md.weeklySeries(ticker, column, w.from, w.to)
  const page = all.slice(Math.max(0, all.length - w.limit))
  return { points: page.map((p) => ({ key: p.day, v: p.value })), more: all.length > w.limit }
}

/** The `to` bound of the page after the one that starts at `oldest`. */
export const nextTo = (interval: HistoryInterval, oldest: number): number =>
  interval === "1w" ? mondayOf(oldest) - 1 : oldest - 1

/**
 * A custom signal's series: the keys of `price` (present on every bar) set the
 * bars; every column the expression references is read over the same window
 * and the expression evaluated once over all the bars. NULL counts as false.
 */
export const customPage = (md: MarketReader, meta: TickerMeta, compiled: CompiledQuery, w: Window): Page => {
  const base = columnPage(md, meta.ticker, "price", w)
  const n = base.points.length
  const keys = new Map(base.points.map((p, r) => [p.key, r]))
  const columns = new Map<string, Column>()
  for (const name of compiled.columns) {
    const def = columnByName.get(name)
    if (def === undefined) continue
    if (def.type === "string") {
      const value = ((meta as unknown as Record<string, unknown>)[name] as string | null | undefined) ?? null
      columns.set(name, { kind: "string", values: Array.from({ length: n }, () => value) })
      continue
    }
    const series = name === "price" ? base : columnPage(md, meta.ticker, name, w)
    const valid = new Uint8Array(n)
    if (def.type === "boolean") {
      const values = new Uint8Array(n)
      for (const p of series.points) {
        const r = keys.get(p.key)
        if (r === undefined || p.v === null) continue
        valid[r] = 1
        values[r] = p.v === true ? 1 : 0
      }
      columns.set(name, { kind: "boolean", values, valid })
    } else {
      const values = new Float64Array(n)
      for (const p of series.points) {
        const r = keys.get(p.key)
        if (r === undefined || typeof p.v !== "number") continue
        valid[r] = 1
        values[r] = p.v
      }
      columns.set(name, { kind: "numeric", values, valid })
    }
  }
  const bars: Snapshot = {
    asOf: 0,
    size: n,
    tickers: Array.from({ length: n }, () => meta.ticker),
    index: new Map([[meta.ticker, 0]]),
    columns
  }
  const truth = n === 0 ? new Uint8Array(0) : compiled.truth(bars)
  return { points: base.points.map((p, r) => ({ key: p.key, v: truth[r] === 2 })), more: base.more }
}

const minuteTierCache = new WeakMap<Snapshot, ReadonlySet<string>>()

/** The minute tier: the top 200 tickers of a (live) snapshot by 30-day average dollar volume. */
export const minuteTier = (snapshot: Snapshot, size = 200): ReadonlySet<string> => {
  const cached = minuteTierCache.get(snapshot)
  if (cached !== undefined) return cached
  const col = snapshot.columns.get("avg_dollar_volume_30d")
  const ranked: Array<{ ticker: string; v: number }> = []
  if (col !== undefined && col.kind === "numeric") {
    for (let r = 0; r < snapshot.size; r++) {
      if (col.valid[r] === 1) ranked.push({ ticker: snapshot.tickers[r], v: col.values[r] })
    }
  }
  ranked.sort((a, b) => b.v - a.v || (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0))
  const tier = new Set(ranked.slice(0, size).map((x) => x.ticker))
  minuteTierCache.set(snapshot, tier)
  return tier
}
