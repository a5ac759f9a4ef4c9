/**
 * `GET /v2/signals/{signal}/{ticker}/events`: the days a built-in boolean
 * signal (flag) turned on or off for one ticker.
 *
 * A flag is "on" in a daily row when it is TRUE, "off" when it is FALSE or
 * NULL (not computable that day, e.g. `above_sma_200` before 200 bars). An
 * event is a daily row whose state differs from the ticker's previous daily
 * row (the previous bar, which may lie before `from`); a ticker's first bar
 * has no previous row and so no event. Rows are the daily state at the close,
 * the same rows `GET /v2/tickers/{ticker}?asof=` returns, read from the flag
 * history (`SignalStats`).
 *
 * Window: as the signal history endpoint's daily form — `from`/`to`
 * inclusive, a date or an ISO timestamp; the plan's history window applies
 * (`history_window_exceeded` with `max_history_days` and
 * `earliest_allowed_from`), and a missing `from` defaults to the later of the
 * plan window's start and the start of the data. Events come newest first;
 * `next_cursor` continues with older ones.
 */
import { Clock, Effect } from "effect"
import { PLAN_LIMITS } from "../../accounts/plans.js"
import { columnByName } from "../../market/catalog.js"
import { DAY_MS, isoDate } from "../../market/indicators/days.js"
import { Market } from "../../market/Market.js"
import { accountSignals } from "../common/compile.js"
import { isoAsOf, liveSnapshot, marketData } from "../common/market.js"
import { pageSize, parseDate } from "../common/params.js"
import { Cursors, integerPosition, readCursor } from "../cursor.js"
import { BadRequest, HistoryWindowExceeded, NotFound, NotSupportedForCustomSignal, orUnavailable } from "../errors.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { SignalStats } from "./SignalStats.js"

/** Page size bounds of the events endpoint. */
export const EVENTS_MAX_LIMIT = 1000
export const EVENTS_DEFAULT_LIMIT = 100

/** What the events need of the flag history (`FlagHistory` has it). */
export interface FlagBars {
  barCount(i: number): number
  barDay(i: number, j: number): number
  barClose(i: number, j: number): number
  value(i: number, j: number, f: number): boolean | null
}

export interface FlagEvent {
  /** epoch day of the row whose state changed */
  readonly day: number
  readonly on: boolean
  /** the flag in that row: true (on), false or null (off) */
  readonly value: boolean | null
  /** epoch day of the previous daily row */
  readonly previousDay: number
  readonly close: number
}

/**
 * Events of flag `f` of ticker `i` on days within [fromDay, toDay] and
 * before `beforeDay`, newest first, at most `max`.
 */
export const flagEvents = (
  bars: FlagBars,
  i: number,
  f: number,
  fromDay: number,
  toDay: number,
  beforeDay: number,
  max: number
): Array<FlagEvent> => {
  const out: Array<FlagEvent> = []
  const last = Math.min(toDay, beforeDay - 1)
  for (let j = bars.barCount(i) - 1; j >= 1 && out.length < max; j--) {
    const day = bars.barDay(i, j)
    if (day > last) continue
    if (day < fromDay) break
    const value = bars.value(i, j, f)
    const on = value === true
    if (on === (bars.value(i, j - 1, f) === true)) continue
    out.push({ day, on, value, previousDay: bars.barDay(i, j - 1), close: bars.barClose(i, j) })
  }
  return out
}

/** The latest daily row of ticker `i` on or before `toDay` and not before `fromDay`: its day and flag value. */
export const latestState = (
  bars: FlagBars,
  i: number,
  f: number,
  fromDay: number,
  toDay: number
): { readonly day: number; readonly value: boolean | null } | undefined => {
  for (let j = bars.barCount(i) - 1; j >= 0; j--) {
    const day = bars.barDay(i, j)
    if (day > toDay) continue
    if (day < fromDay) return undefined
    return { day, value: bars.value(i, j, f) }
  }
  return undefined
}

/** An instant from `from`/`to`: a date means the start (from) or the end (to) of that UTC day. */
const parseBound = (name: string, raw: string, end: boolean) =>
  Effect.map(parseDate(name, raw), (date) => {
    if (raw.trim().length === 10) return Date.parse(`${date}T00:00:00Z`) + (end ? DAY_MS - 1 : 0)
    return Date.parse(raw.trim())
  })

export interface EventsRequest {
  readonly path: { readonly signal: string; readonly ticker: string }
  readonly urlParams: {
    readonly from?: string | undefined
    readonly to?: string | undefined
    readonly limit?: number | undefined
    readonly cursor?: string | undefined
  }
}

export const signalEvents = ({ path, urlParams }: EventsRequest) =>
  Effect.gen(function* () {
    const key = yield* CurrentKey
    const market = yield* Market
    const limit = yield* pageSize(urlParams.limit, EVENTS_MAX_LIMIT, EVENTS_DEFAULT_LIMIT)

    // the signal: a built-in boolean column
    const name = path.signal.toLowerCase()
    const column = columnByName.get(name)
    if (column === undefined) {
      const own = yield* accountSignals(key.account.id)
      if (own.get(name) !== undefined || own.get(path.signal) !== undefined) {
        return yield* new NotSupportedForCustomSignal({
          message: `${path.signal} is a custom signal; events exist for built-in boolean signals only (use GET /v2/signals/${path.signal}/{ticker}/history/1d for its daily series)`
        })
      }
      return yield* new NotFound({
        message: `no signal ${JSON.stringify(path.signal)}: not a built-in nor a custom signal of this account`
      })
    }
    if (!column.signal) return yield* new NotFound({ message: `${name} is a string column, not a signal` })
    if (column.type !== "boolean") {
      return yield* new BadRequest({
        message: `${name} is a numeric signal; events exist for boolean signals only (use GET /v2/signals/${name}/{ticker}/history/1d for its values)`
      })
    }

    const meta = market.directory.lookup(path.ticker)
    if (meta === undefined) return yield* new NotFound({ message: `ticker ${path.ticker} is not tracked` })

    // the window, as the signal history's daily form
    const md = yield* marketData
    const live = yield* liveSnapshot
    const now = yield* Clock.currentTimeMillis
    const today = Math.floor(now / DAY_MS)
    const maxDays = PLAN_LIMITS[key.account.plan].maxHistoryDays
    const planStartDay = maxDays === null ? Number.NEGATIVE_INFINITY : today - maxDays
    const coverageStartDay = md.earliestDay
    const windowStartMs = Math.max(planStartDay, coverageStartDay) * DAY_MS
    const exceeded = (earliestDay: number, why: string) =>
      new HistoryWindowExceeded({
        message: why,
        details: { max_history_days: maxDays, earliest_allowed_from: isoDate(earliestDay) }
      })
    let fromMs = windowStartMs
    if (urlParams.from !== undefined) {
      fromMs = yield* parseBound("from", urlParams.from, false)
      if (fromMs < planStartDay * DAY_MS) {
        return yield* exceeded(
          planStartDay,
          `from ${urlParams.from} is before the ${key.account.plan} plan's history window (${maxDays} days)`
        )
      }
      if (fromMs < coverageStartDay * DAY_MS) {
        return yield* exceeded(coverageStartDay, `from ${urlParams.from} is before the start of the daily data`)
      }
    }
    const toMs = urlParams.to !== undefined ? yield* parseBound("to", urlParams.to, true) : now
    if (toMs < fromMs) {
      if (urlParams.from === undefined && toMs >= 0) {
        return yield* exceeded(Math.floor(windowStartMs / DAY_MS), `to ${urlParams.to} is before the history window`)
      }
      return yield* new BadRequest({ message: "to is before from" })
    }
    const fromDay = Math.ceil(fromMs / DAY_MS)
    const toDay = Math.floor(toMs / DAY_MS)

    // the cursor: the day of the last event returned
    const codec = yield* orUnavailable(Effect.flatMap(Cursors, (c) => c.codec))
    const binding = {
      endpoint: "signal_events",
      account: key.account.id,
      signal: name,
      ticker: meta.ticker,
      from: urlParams.from ?? null,
      to: urlParams.to ?? null,
      limit
    }
    const beforeDay = (yield* readCursor(codec, binding, urlParams.cursor, integerPosition)) ?? Number.POSITIVE_INFINITY

    const i = md.index.get(meta.ticker)!
    const history = yield* Effect.flatMap(SignalStats, (s) => s.current(md, [i]))
    const f = history.flagIndex.get(name)!
    const found = toDay < fromDay ? [] : flagEvents(history, i, f, fromDay, toDay, beforeDay, limit + 1)
    const page = found.slice(0, limit)
    const oldest = page[page.length - 1]
    const latest = latestState(history, i, f, fromDay, toDay)
    return {
      as_of: isoAsOf(live),
      ticker: meta.ticker,
      signal: name,
      from: isoDate(fromDay),
      to: isoDate(toDay),
      latest: latest === undefined ? null : { date: isoDate(latest.day), value: latest.value },
      count: page.length,
      next_cursor: found.length > limit && oldest !== undefined ? codec.encode(binding, oldest.day) : null,
      events: page.map((e) => ({
        date: isoDate(e.day),
        event: e.on ? ("on" as const) : ("off" as const),
        value: e.value,
        previous_date: isoDate(e.previousDay),
        close: e.close
      }))
    }
  })
