/**
 * `GET /v2/signals/{signal}/stats`: how many tickers matched a signal on each
 * trading day of a range.
 *
 * A day's count is the number of tickers whose daily row as of that day (the
 * as-of rule of the as-of matches: a ticker's latest daily state on or before
 * the day, at most 14 days old) matches; `total` is the number of tickers that
 * have such a row. So `count` equals the `total` of
 * `GET /v2/signals/{signal}?asof=<day>` for that day (with the same `universe`).
 *
 * Days: the NYSE trading days of the range whose daily state is final for
 * every asset class (equities after the 16:00 ET close, crypto after 24:00
 * UTC), oldest first, not paged (one entry per trading day).
 *
 * Two ways of counting:
 * - built-in boolean signals: read from the flag history (`SignalStats`),
 *   where the counts of every flag over all tickers are computed once per
 *   daily close; a whole-window request only slices arrays. With a universe,
 *   the members' stored flags are counted per day. Range: any part of the
 *   data; the default is the market's history window (`HISTORY_DAYS` trading
 *   days to the last final day).
 * - numeric signals with `condition` and custom signals: every walked
 *   ticker's daily rows are rebuilt over the range and the condition is
 *   evaluated per day; the range is capped at `STATS_COMPUTED_MAX_DAYS`
 *   trading days (default: the last ones).
 */
import { Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { isTradingDay } from "../../market/calendar.js"
import type { ColumnDef } from "../../market/catalog.js"
import { INPUT_COLUMNS } from "../../market/engine/inputs.js"
import { CARRY_FORWARD_DAYS, type MarketReader, STRING_COLUMNS } from "../../market/engine/MarketData.js"
import { DailyWalk, type WalkInputs } from "../../market/history/dailyWalk.js"
import type { FlagHistory } from "../../market/history/flagHistory.js"
import { DAY_MS, epochDay, isoDate } from "../../market/indicators/days.js"
import { Market } from "../../market/Market.js"
import type { Column, Snapshot } from "../../market/snapshot.js"
import type { TickerDirectory } from "../../market/tickers/index.js"
import type { CompiledQuery } from "../../query/index.js"
import { isoAsOf, liveSnapshot, marketData } from "../common/market.js"
import { parseDate } from "../common/params.js"
import { BadRequest, HistoryWindowExceeded } from "../errors.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { dayOf, lookupUniverse, membersOn } from "../universes/resolve.js"
import { type Condition, compareNumbers, parseCondition } from "./matching.js"
import { SignalStats } from "./SignalStats.js"

/** Trading days a stats request may span when the counts are computed on demand. */
export const STATS_COMPUTED_MAX_DAYS = 31

const NEWS_COLUMNS = new Set(["news_volume", "news_volume_weighted_sentiment"])
const STRING_COLUMN_SET: ReadonlySet<string> = new Set(STRING_COLUMNS)

/** The NYSE trading days in [fromDay, toDay], ascending. */
export const tradingDays = (fromDay: number, toDay: number): Array<number> => {
  const out: Array<number> = []
  for (let d = fromDay; d <= toDay; d++) if (isTradingDay(isoDate(d))) out.push(d)
  return out
}

/**
 * The last day whose rows are final for every asset class: the earlier of
 * the latest equity bar and the latest crypto bar in the history.
 */
export const finalDay = (md: MarketReader): number => {
  let equity = Number.NEGATIVE_INFINITY
  let crypto = Number.NEGATIVE_INFINITY
  for (let i = 0; i < md.size; i++) {
    const s = md.series[i]
    if (s.length === 0) continue
    const last = s.days[s.length - 1]
    if (md.isCrypto[i] === 1) crypto = Math.max(crypto, last)
    else equity = Math.max(equity, last)
  }
  if (equity === Number.NEGATIVE_INFINITY) return crypto
  if (crypto === Number.NEGATIVE_INFINITY) return equity
  return Math.min(equity, crypto)
}

/**
 * The range of a computed request: `to` defaults to the last final day (or,
 * with only `from`, to the end of a capped range from it), `from` to the
 * start of a capped range ending at `to`, never before `first` (the first day
 * of the data: a `to` before it gives an empty range).
 */
export const cappedRange = (
  from: number | undefined,
  to: number | undefined,
  last: number,
  cap: number,
  first: number
): { readonly fromDay: number; readonly toDay: number } => {
  if (from !== undefined && to === undefined) {
    let end = from
    let n = isTradingDay(isoDate(from)) ? 1 : 0
    while (end < last && n < cap) {
      end++
      if (isTradingDay(isoDate(end))) n++
    }
    while (end < last && !isTradingDay(isoDate(end + 1))) end++
    return { fromDay: from, toDay: Math.min(end, last) }
  }
  const toDay = Math.min(to ?? last, last)
  if (from !== undefined) return { fromDay: from, toDay }
  if (toDay < first) return { fromDay: first, toDay }
  let start = toDay
  let n = isTradingDay(isoDate(toDay)) ? 1 : 0
  while (n < cap && start > first) {
    start--
    if (isTradingDay(isoDate(start))) n++
  }
  return { fromDay: start, toDay }
}

export interface DayCount {
  readonly count: number
  readonly total: number
}

export interface ComputedSpec {
  /** listed days, ascending */
  readonly days: ReadonlyArray<number>
  /** ticker slots to rebuild, ascending (members and cross-referenced tickers) */
  readonly slots: ReadonlyArray<number>
  /** the slots counted on a day; every walked slot when undefined */
  readonly members?: ((day: number) => ReadonlySet<number>) | undefined
  /** columns the condition reads */
  readonly columns: ReadonlyArray<string>
  /** matching rows among `rows` of a day's snapshot */
  readonly count: (snapshot: Snapshot, rows: Int32Array) => number
}

/** The inputs a walk needs for these columns. */
export const inputsFor = (columns: ReadonlyArray<string>): WalkInputs =>
  columns.some((c) => NEWS_COLUMNS.has(c)) ? "all" : columns.some((c) => INPUT_COLUMNS.has(c)) ? "fundamentals" : "none"

/**
 * Counts per listed day by rebuilding the walked tickers' rows over the range.
 * Every walked bar's row is copied (the condition's columns only) into the
 * listed days it is the as-of row of (its day up to the next bar, at most
 * CARRY_FORWARD_DAYS later); then each listed day's rows form that day's
 * snapshot and the members among them are counted.
 */
export function* computedCounts(md: MarketReader, spec: ComputedSpec): Generator<void, Array<DayCount>> {
  const out: Array<DayCount> = []
  if (spec.days.length === 0) return out
  const first = spec.days[0]
  const last = spec.days[spec.days.length - 1]
  /** listed day index by day offset from `first` (-1 when not listed) */
  const listedAt = new Int32Array(last - first + 1).fill(-1)
  spec.days.forEach((d, x) => {
    listedAt[d - first] = x
  })
  const slots = spec.slots
  const n = slots.length
  const L = spec.days.length
  const walk = new DailyWalk(md, {
    slots,
    start: (_i, s) => s.indexAtOrBefore(first),
    fresh: false,
    toDay: last,
    inputs: inputsFor(spec.columns),
    // only the columns read: the walk then advances only the parts of the state they need
    columns: spec.columns.filter((c) => !STRING_COLUMN_SET.has(c))
  })
  const computed = spec.columns.filter((c) => !STRING_COLUMN_SET.has(c) && walk.row.has(c))
  const strings = spec.columns.filter((c) => STRING_COLUMN_SET.has(c))
  // per column: the values of every (listed day, walked ticker), row x * n + k
  const matrices = computed.map((name) => {
    const col = walk.row.get(name) as Exclude<Column, { kind: "string" }>
    return {
      name,
      from: col,
      values: col.kind === "numeric" ? new Float64Array(L * n) : new Uint8Array(L * n),
      valid: new Uint8Array(L * n)
    }
  })
  const present = new Uint8Array(L * n)
  yield* walk.run((k, j, day) => {
    const s = walk.series[k]
    const nextDay = j + 1 < s.length ? s.days[j + 1] : Number.POSITIVE_INFINITY
    const until = Math.min(nextDay - 1, day + CARRY_FORWARD_DAYS, last)
    for (let d = Math.max(day, first); d <= until; d++) {
      const x = listedAt[d - first]
      if (x < 0) continue
      const at = x * n + k
      present[at] = 1
      for (const m of matrices) {
        m.values[at] = m.from.values[0]
        m.valid[at] = m.from.valid[0]
      }
    }
  })
  for (let x = 0; x < L; x++) {
    const d = spec.days[x]
    const rowsOf: Array<number> = []
    for (let k = 0; k < n; k++) if (present[x * n + k] === 1) rowsOf.push(k)
    const size = rowsOf.length
    const tickers = rowsOf.map((k) => md.tickers[slots[k]].ticker)
    const columns = new Map<string, Column>()
    for (const m of matrices) {
      const valid = new Uint8Array(size)
      const values = m.values instanceof Float64Array ? new Float64Array(size) : new Uint8Array(size)
      for (let r = 0; r < size; r++) {
        values[r] = m.values[x * n + rowsOf[r]]
        valid[r] = m.valid[x * n + rowsOf[r]]
      }
      columns.set(
        m.name,
        values instanceof Float64Array
          ? { kind: "numeric", values, valid }
          : { kind: "boolean", values: values as Uint8Array, valid }
      )
    }
    for (const name of strings) {
      columns.set(name, {
        kind: "string",
        values: rowsOf.map((k) => (md.tickers[slots[k]] as unknown as Record<string, string | null>)[name] ?? null)
      })
    }
    const snapshot: Snapshot = {
      asOf: (d + 1) * DAY_MS - 1,
      date: isoDate(d),
      size,
      tickers,
      index: new Map(tickers.map((t, r) => [t, r])),
      columns
    }
    const members = spec.members?.(d)
    const rows: Array<number> = []
    for (let r = 0; r < size; r++) if (members === undefined || members.has(slots[rowsOf[r]])) rows.push(r)
    const at = Int32Array.from(rows)
    out.push({ count: at.length === 0 ? 0 : spec.count(snapshot, at), total: at.length })
    yield
  }
  return out
}

/**
 * The stored counts of a flag per trading day in [fromDay, toDay] (clipped to
 * the counted days; `toDay` defaults to the last one): over every ticker from
 * the per-day totals, or over a universe's members on each day from their
 * stored flags.
 */
export const flagDays = (
  history: FlagHistory,
  flag: string,
  fromDay: number,
  toDay: number | undefined,
  members?: ((day: number) => ReadonlySet<number>) | undefined
): { readonly days: Array<number>; readonly counts: Array<DayCount> } => {
  const published = history.counts
  const f = history.flagIndex.get(flag)
  if (published === undefined || f === undefined) return { days: [], counts: [] }
  const days = tradingDays(
    Math.max(fromDay, published.firstDay),
    Math.min(toDay ?? published.lastDay, published.lastDay)
  )
  const F = history.flags.length
  const counts = days.map((d) =>
    members === undefined
      ? { count: published.counts[(d - published.firstDay) * F + f], total: published.totals[d - published.firstDay] }
      : history.countAmong([...members(d)], f, d)
  )
  return { days, counts }
}

/** Rows among `rows` where a numeric column satisfies the condition. */
export const numericCount =
  (column: string, condition: Condition) =>
  (snapshot: Snapshot, rows: Int32Array): number => {
    const col = snapshot.columns.get(column)
    if (col === undefined || col.kind !== "numeric") return 0
    let n = 0
    for (const r of rows) if (col.valid[r] === 1 && compareNumbers(condition.op, col.values[r], condition.value)) n++
    return n
  }

type Resolved =
  | { readonly kind: "builtin"; readonly column: ColumnDef }
  | { readonly kind: "custom"; readonly name: string; readonly compiled: CompiledQuery }

export interface StatsRequest {
  readonly path: { readonly signal: string }
  readonly urlParams: {
    readonly from?: string | undefined
    readonly to?: string | undefined
    readonly condition?: string | undefined
    readonly universe?: string | undefined
  }
}

export const signalStats = <E, R>(
  { path, urlParams }: StatsRequest,
  resolveSignal: (raw: string, key: AuthenticatedKey, directory: TickerDirectory) => Effect.Effect<Resolved, E, R>
) =>
  Effect.gen(function* () {
    const key = yield* CurrentKey
    const market = yield* Market
    const stats = yield* SignalStats
    const resolved = yield* resolveSignal(path.signal, key, market.directory)
    const signal = resolved.kind === "custom" ? resolved.name : resolved.column.name
    const flag = resolved.kind === "builtin" && resolved.column.type === "boolean"
    let condition: Condition | undefined
    if (resolved.kind === "builtin" && resolved.column.type === "numeric") {
      if (urlParams.condition === undefined || urlParams.condition.trim() === "") {
        return yield* new BadRequest({
          message: `${signal} is a numeric signal: condition is required, e.g. condition=>70`
        })
      }
      condition = parseCondition(urlParams.condition)
      if (condition === undefined) {
        return yield* new BadRequest({
          message: `condition must be <op><value> with op one of >, >=, =, !=, <, <= (got ${JSON.stringify(urlParams.condition)})`
        })
      }
    }

    const md = yield* marketData
    const live = yield* liveSnapshot
    // the first day every ticker has a row in the history kept in memory (the flag history's days): a
    // day's count must equal the as-of matches' total, which count the whole market
    const earliest = md.wholeMarketFrom
    let from: number | undefined
    let to: number | undefined
    if (urlParams.from !== undefined) from = epochDay(yield* parseDate("from", urlParams.from))
    if (urlParams.to !== undefined) to = epochDay(yield* parseDate("to", urlParams.to))
    if (from !== undefined && from < earliest) {
      return yield* new HistoryWindowExceeded({
        message: `from ${urlParams.from} is before the whole market's daily rows the stats count (from ${isoDate(earliest)})`,
        details: { max_history_days: null, earliest_allowed_from: isoDate(earliest) }
      })
    }
    if (from !== undefined && to !== undefined && to < from) {
      return yield* new BadRequest({ message: "to is before from" })
    }

    // the universe: its members on each day (system universes are rebalanced monthly, own universes
    // keep the versions of their list), one set of slots per membership
    let members: ((day: number) => ReadonlySet<number>) | undefined
    const universe = urlParams.universe
    if (universe !== undefined) {
      const resolved = yield* lookupUniverse(key.account.id, universe, {
        from: from ?? earliest,
        to: to ?? dayOf(live.asOf)
      })
      const bySet = new Map<unknown, ReadonlySet<number>>()
      members = (day) => {
        const tickers = membersOn(md, resolved, day)
        // one set per system rebalance, or per own version (the same array for the same version)
        const at = resolved._tag === "System" ? (md.membershipOn(day)?.effectiveDay ?? -1) : tickers
        let set = bySet.get(at)
        if (set === undefined) {
          set = new Set(tickers.map((t) => md.index.get(t)).filter((i): i is number => i !== undefined))
          bySet.set(at, set)
        }
        return set
      }
    }

    const response = (
      listed: ReadonlyArray<number>,
      values: ReadonlyArray<DayCount>,
      source: "precomputed" | "computed"
    ) => ({
      as_of: isoAsOf(live),
      signal,
      condition: condition?.text ?? null,
      universe: universe ?? null,
      from: listed.length > 0 ? isoDate(listed[0]) : null,
      to: listed.length > 0 ? isoDate(listed[listed.length - 1]) : null,
      source,
      count: listed.length,
      days: listed.map((d, k) => ({ date: isoDate(d), count: values[k].count, total: values[k].total }))
    })

    if (flag) {
      const history = yield* stats.current(md)
      // default: the market's history window, or all the data when `to` is before it
      const windowStart = Math.max(epochDay(md.windowStart), earliest)
      const read = flagDays(
        history,
        signal,
        from ?? (to !== undefined && to < windowStart ? earliest : windowStart),
        to,
        members
      )
      const { days, counts } = read
      return response(days, counts, "precomputed")
    }

    const last = finalDay(md)
    const range = cappedRange(from, to, last, STATS_COMPUTED_MAX_DAYS, earliest)
    const days = tradingDays(range.fromDay, range.toDay)
    if (days.length > STATS_COMPUTED_MAX_DAYS) {
      return yield* new BadRequest({
        message: `from ${isoDate(range.fromDay)} to ${isoDate(range.toDay)} spans ${days.length} trading days; stats of ${resolved.kind === "custom" ? "custom signals" : "numeric conditions"} are computed on demand over at most ${STATS_COMPUTED_MAX_DAYS} trading days`,
        details: { max_days: STATS_COMPUTED_MAX_DAYS }
      })
    }
    let slots: Array<number>
    if (members === undefined) {
      slots = Array.from({ length: md.size }, (_, i) => i)
    } else {
      const memberUnion = new Set<number>()
      for (const d of days) for (const i of members(d)) memberUnion.add(i)
      if (resolved.kind === "custom") {
        for (const t of resolved.compiled.tickers) {
          const i = md.index.get(t)
          if (i !== undefined) memberUnion.add(i)
        }
      }
      slots = [...memberUnion].sort((a, b) => a - b)
    }
    const spec: ComputedSpec =
      resolved.kind === "custom"
        ? {
            days,
            slots,
            members,
            columns: resolved.compiled.columns,
            // the day's members are also the rows ranked among (PCT_RANK, RANK, ZSCORE)
            count: (snapshot, rows) => resolved.compiled.evaluate(snapshot, rows, rows).length
          }
        : {
            days,
            slots,
            members,
            columns: [signal],
            count: numericCount(signal, condition!)
          }
    const counts = yield* stats.compute(() => computedCounts(md, spec))
    return response(days, counts, "computed")
  })
