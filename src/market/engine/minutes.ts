/**
 * The minute tier: a ticker's row at every minute (or hour's end) of its
 * sessions within the minute history (`MINUTE_HISTORY_DAYS`), each session's
 * minute path regenerated for that ticker alone from its daily bar.
 */
import { isTradingDay } from "../calendar.js"
import { DAY_MS, epochDay, isoDate } from "../indicators/days.js"
import { allocateColumns, bindColumns, preview, type RowSink } from "../indicators/index.js"
import { allocateDayBars, allocatePartialBars, type DayBars, type PartialBars } from "../sim/index.js"
import type { MarketCore } from "./core.js"
import { stateBefore } from "./history.js"
import { partialBar } from "./sessions.js"

export type MinutePoint = { t: number; value: number | boolean | null }

/** Buffers for one ticker's session paths, reused between reads. */
const scratch = new WeakMap<MarketCore, { bars: DayBars; partial: PartialBars }>()

const scratchOf = (core: MarketCore) => {
  let s = scratch.get(core)
  if (s === undefined) {
    s = { bars: allocateDayBars(core.size), partial: allocatePartialBars(core.size) }
    scratch.set(core, s)
  }
  return s
}

/**
 * Minute-tier columns at minute resolution, walking back from `toMs`: the
 * value at every minute (`1m`) or at the end of every hour (`1h`) of each
 * session, newest first, until `limit` points or `fromMs`. Sessions from
 * imported bars have no minute data and are skipped; so is the open session
 * beyond the latest refresh.
 */
export const intradaySeries = (
  core: MarketCore,
  ticker: string,
  column: string,
  interval: "1m" | "1h",
  fromMs: number,
  toMs: number,
  limit: number
): Array<MinutePoint> => {
  const i = core.index.get(ticker)
  const out: Array<MinutePoint> = []
  if (i === undefined) return out
  const s = core.series[i]
  const one = allocateColumns(1)
  const col = one.get(column)
  if (col === undefined) return out
  const sink = bindColumns(new Map([[column, col]]))
  const latest = core.latest.asOf
  const end = Math.min(toMs, latest)
  const retention = latest - core.minuteHistoryDays * DAY_MS
  fromMs = Math.max(fromMs, retention)
  const session = core.sessionOf(i)
  // the open session first (from the live state), then completed sessions from the history
  const days: Array<{ day: number; j: number }> = []
  if (session.intraday.slotOf[i] >= 0 && session.intraday.startMs <= end) days.push({ day: session.day, j: -1 })
  for (let j = s.indexAtOrBefore(epochDay(isoDate(Math.floor(end / DAY_MS)))); j >= 0; j--) {
    if (s.days[j] === session.day) continue
    days.push({ day: s.days[j], j })
    if (days.length > 800) break
  }
  for (const { day, j } of days) {
    if (out.length >= limit) break
    const points: Array<MinutePoint> = []
    sessionMinutes(core, i, day, j, sink, fromMs, end, interval, (t) => {
      points.push({
        t,
        value: col.valid[0] === 0 ? null : col.kind === "boolean" ? col.values[0] === 1 : col.values[0]
      })
    })
    for (let p = points.length - 1; p >= 0 && out.length < limit; p--) out.push(points[p])
    if (days.length > 0 && (j >= 0 ? s.days[j] : day) * DAY_MS + DAY_MS < fromMs) break
  }
  return out
}

/**
 * Every minute (`1m`) or every hour's end (`1h`) of ticker `i`'s session on `day` within
 * [fromMs, toMs]: the row at that minute previewed into `sink` (row 0), then `visit(t)`. `j` is
 * the session's daily bar (-1: the open session, from the live state). Sessions from imported
 * bars have no minute data, nor equity days off: nothing is visited.
 */
const sessionMinutes = (
  core: MarketCore,
  i: number,
  day: number,
  j: number,
  sink: RowSink,
  fromMs: number,
  toMs: number,
  interval: "1m" | "1h",
  visit: (t: number) => void
): void => {
  // a real bar (imported, or made of a live feed's quotes) has no simulated minutes
  if (core.isImportedDay(i, day) || core.isQuotedDay(i, day)) return
  const crypto = core.isCrypto[i] === 1
  const s = core.series[i]
  const { bars, partial } = scratchOf(core)
  const session = core.sessionOf(i)
  // the session's paths of this ticker alone (a path depends on its own bar only): the open
  // session's shared paths would advance every ticker of the market at each minute
  bars.traded.fill(0)
  bars.traded[i] = 1
  if (j < 0) {
    const live = session.bars
    bars.open[i] = live.open[i]
    bars.high[i] = live.high[i]
    bars.low[i] = live.low[i]
    bars.close[i] = live.close[i]
    bars.volume[i] = live.volume[i]
  } else {
    bars.open[i] = s.openAt(j)
    bars.high[i] = s.highAt(j)
    bars.low[i] = s.lowAt(j)
    bars.close[i] = s.close[j]
    bars.volume[i] = s.volume[j]
  }
  bars.day = day
  bars.date = isoDate(day)
  if (!crypto && !isTradingDay(bars.date)) return
  const intraday = core.sim.intradaySession(bars, crypto ? "crypto" : "equity")
  const state = j < 0 ? core.states[i] : stateBefore(core, i, j)
  const inputs = core.tickerInputsAt(i, day)
  const k = intraday.minutes
  for (let m = 1; m <= k; m++) {
    // 1h: every minute on the hour (UTC), and the session's last minute
    if (interval === "1h" && (intraday.startMs + m * 60_000) % 3_600_000 !== 0 && m !== k) continue
    const t = intraday.startMs + m * 60_000
    if (t > toMs || t < fromMs) continue
    intraday.partialBars(m, partial)
    const bar = partialBar(partial, i, day, crypto)
    preview(state, bar, inputs, sink, 0)
    visit(t)
  }
}

/**
 * Ticker `i`'s rows at every minute of its sessions within [fromMs, toMs] (within the minute
 * history), oldest first: each previewed into `sink` (row 0), then `visit(t, j)` with `j` the
 * session's daily bar (-1: the open session). Slot-based, for replays over many tickers.
 */
export const minuteWalk = (
  core: MarketCore,
  i: number,
  fromMs: number,
  toMs: number,
  sink: RowSink,
  visit: (t: number, j: number) => void
): void => {
  const s = core.series[i]
  const latest = core.latest.asOf
  const end = Math.min(toMs, latest)
  const from = Math.max(fromMs, latest - core.minuteHistoryDays * DAY_MS)
  if (from > end) return
  const session = core.sessionOf(i)
  const lastDay = Math.floor(end / DAY_MS)
  for (let j = Math.max(0, s.indexAtOrAfter(Math.floor(from / DAY_MS) - 1)); j < s.length; j++) {
    const day = s.days[j]
    if (day > lastDay) break
    if (day === session.day) continue
    sessionMinutes(core, i, day, j, sink, from, end, "1m", (t) => visit(t, j))
  }
  if (session.intraday.slotOf[i] >= 0 && session.intraday.startMs <= end && session.day <= lastDay) {
    sessionMinutes(core, i, session.day, -1, sink, from, end, "1m", (t) => visit(t, -1))
  }
}
