/** A signal's series for one ticker (`1m`, `1h`, `1d`, `1w`), within the plan's history window, paged back in time. */
import { Clock, Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { PLAN_LIMITS } from "../../accounts/plans.js"
import { columnByName, isAvailableAt } from "../../market/catalog.js"
import { HISTORY_START_DAY } from "../../market/history/coverage.js"
import { DAY_MS, isoDate } from "../../market/indicators/days.js"
import { Market } from "../../market/Market.js"
import { isoAsOf, liveSnapshot, marketData } from "../common/market.js"
import { pageSize } from "../common/params.js"
import { cursorCodec, integerPosition, readCursor } from "../cursor.js"
import { BadRequest, NotFound, SignalNotAvailableAtInterval, TickerNotInMinuteTier } from "../errors.js"
import { columnPage, customPage, type HistoryInterval, INTERVALS, minuteTier, nextTo, type Window } from "./history.js"
import { resolveSignal } from "./resolve.js"
import { historyWindow } from "./window.js"

const isInterval = (s: string): s is HistoryInterval => (INTERVALS as ReadonlyArray<string>).includes(s)

export const signalSeries = (
  key: AuthenticatedKey,
  path: { readonly signal: string; readonly ticker: string; readonly interval: string },
  urlParams: {
    readonly from?: string | undefined
    readonly to?: string | undefined
    readonly limit?: number | undefined
    readonly cursor?: string | undefined
  }
) =>
  Effect.gen(function* () {
    const market = yield* Market
    const interval = path.interval
    if (!isInterval(interval)) {
      return yield* new BadRequest({
        message: `interval must be one of 1m, 1h, 1d, 1w (got ${JSON.stringify(interval)})`
      })
    }
    const limit = yield* pageSize(urlParams.limit, 1000, 252)
    const meta = market.directory.lookup(path.ticker)
    if (meta === undefined) return yield* new NotFound({ message: `ticker ${path.ticker} is not tracked` })
    const resolved = yield* resolveSignal(path.signal, key, market.directory)
    const intraday = interval === "1m" || interval === "1h"
    const signal = resolved.kind === "custom" ? resolved.name : resolved.column.name
    if (resolved.kind === "builtin" && !isAvailableAt(resolved.column, interval)) {
      return yield* new SignalNotAvailableAtInterval({
        message: `${signal} is a daily-only column: use 1d or 1w (minute-tier columns only at ${interval})`
      })
    }
    if (resolved.kind === "custom") {
      if (resolved.compiled.crossSectional) {
        return yield* new BadRequest({
          message: `${signal} ranks tickers against each other (PCT_RANK, RANK or ZSCORE); such signals have no per-ticker history`
        })
      }
      if (resolved.compiled.tickers.length > 0) {
        return yield* new BadRequest({
          message: `${signal} references other tickers (${resolved.compiled.tickers.join(", ")}); such signals have no per-ticker history`
        })
      }
      const daily = resolved.compiled.columns.filter((c) => {
        const def = columnByName.get(c)
        return def !== undefined && def.type !== "string" && !isAvailableAt(def, interval)
      })
      if (daily.length > 0) {
        return yield* new SignalNotAvailableAtInterval({
          message: `${signal} uses daily-only columns (${daily.join(", ")}): use 1d or 1w`
        })
      }
    }
    const md = yield* marketData
    const live = yield* liveSnapshot
    if (intraday && !minuteTier(live).has(meta.ticker)) {
      return yield* new TickerNotInMinuteTier({
        message: `${meta.ticker} is not among the top 200 tickers by 30-day dollar volume that have minute bars; use 1d or 1w`
      })
    }
    const now = yield* Clock.currentTimeMillis
    const { fromMs, toMs } = yield* historyWindow({
      plan: key.account.plan,
      maxDays: PLAN_LIMITS[key.account.plan].maxHistoryDays,
      now,
      coverageStartMs: intraday
        ? live.asOf - (md.options.minuteHistoryDays ?? 730) * DAY_MS
        : Math.min(HISTORY_START_DAY, md.earliestDay) * DAY_MS,
      interval,
      from: urlParams.from,
      to: urlParams.to
    })
    const binding = {
      endpoint: "signal_history",
      account: key.account.id,
      signal,
      ticker: meta.ticker,
      interval,
      from: urlParams.from ?? null,
      to: urlParams.to ?? null,
      limit
    }
    let window: Window = {
      interval,
      from: intraday ? fromMs : Math.ceil(fromMs / DAY_MS),
      to: intraday ? toMs : Math.floor(toMs / DAY_MS),
      limit
    }
    const position = yield* readCursor(yield* cursorCodec, binding, urlParams.cursor, integerPosition)
    if (position !== undefined) window = { ...window, to: Math.min(window.to, nextTo(interval, position)) }
    const page =
      window.to < window.from
        ? { points: [], more: false }
        : resolved.kind === "custom"
          ? customPage(md, meta, resolved.compiled, window)
          : columnPage(md, meta.ticker, resolved.column.name, window)
    const oldest = page.points[0]
    return {
      as_of: isoAsOf(live),
      ticker: meta.ticker,
      signal,
      interval,
      count: page.points.length,
      next_cursor: page.more && oldest !== undefined ? (yield* cursorCodec).encode(binding, oldest.key) : null,
      bars: page.points.map((p) => ({
        t: intraday ? new Date(p.key).toISOString() : isoDate(p.key),
        v: p.v
      }))
    }
  })
