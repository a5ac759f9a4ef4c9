/**
 * A ticker's minute (`1m`) or hourly (`1h`) bars from the market's minute tier (the dashboard's
 * chart). Which sessions have minutes, and each hour's last price, come from the market's own
 * minute-tier read (`intradaySeries`: sessions of imported or quoted bars have none); a completed
 * session's minutes are its minute path (`IntradaySession`, a function of its daily bar alone),
 * read straight rather than previewed minute by minute — the prices and cumulative volumes the
 * minute-tier rows carry (`price`, `volume_today`); the open session's are those rows themselves.
 */
import { DAY_MS, isoDate } from "../indicators/days.js"
import { allocateDayBars } from "../sim/index.js"
import type { MarketReader } from "./MarketData.js"
import { tickRound } from "./specs.js"

const MINUTE_MS = 60_000
const HOUR_MS = 3_600_000

/** Intraday bars: `t` in epoch ms of each bar's first minute, ascending. */
export interface IntradayBars {
  readonly t: Array<number>
  readonly o: Array<number>
  readonly h: Array<number>
  readonly l: Array<number>
  readonly c: Array<number>
  readonly v: Array<number>
}

/** One session's minute path: the instant, last price and cumulative volume at minutes 0..M. */
interface SessionPath {
  readonly at: ArrayLike<number>
  readonly price: ArrayLike<number>
  readonly volume: ArrayLike<number>
}

/**
 * Ticker `i`'s minute (`1m`) or hourly (`1h`) bars within [fromMs, toMs] (the minutes that end
 * there), over the newest `sessions` sessions with minute data.
 */
export const intradayBars = (
  md: MarketReader,
  i: number,
  interval: "1m" | "1h",
  fromMs: number,
  toMs: number,
  sessions: number
): IntradayBars => {
  const out: IntradayBars = { t: [], o: [], h: [], l: [], c: [], v: [] }
  if (toMs < fromMs) return out
  const ticker = md.tickers[i]!.ticker
  const crypto = md.isCrypto[i] === 1
  // the sessions with minute data: the days of the market's hourly points, at most 7 a session
  // (equities, 09:30–16:00 New York) or 24 (crypto): so many reach back `sessions` sessions at least
  const probe = md.intradaySeries(ticker, "price", "1h", fromMs, toMs, sessions * (crypto ? 24 : 7))
  // and the newest minute: an open session's first hour has no hourly point yet
  const newest = md.intradaySeries(ticker, "price", "1m", fromMs, toMs, 1)
  const days: Array<number> = []
  for (const p of [...newest, ...probe]) {
    const day = Math.floor((p.t - 1) / DAY_MS)
    if (days[days.length - 1] !== day) days.push(day)
  }
  days.splice(sessions)
  days.reverse()
  const s = md.series[i]!
  const dayBars = allocateDayBars(md.size)
  for (const day of days) {
    const j = s.indexAtOrBefore(day)
    const path: SessionPath =
      j >= 0 && s.days[j] === day ? completedPath(md, i, j, crypto, dayBars) : openPath(md, ticker, day, toMs)
    appendBars(path, interval, fromMs, toMs, out)
  }
  return out
}

/** A completed session's minute path, from its daily bar (as the market's minute tier makes it). */
const completedPath = (
  md: MarketReader,
  i: number,
  j: number,
  crypto: boolean,
  bars: ReturnType<typeof allocateDayBars>
): SessionPath => {
  const s = md.series[i]!
  bars.traded.fill(0)
  bars.traded[i] = 1
  bars.open[i] = s.openAt(j)
  bars.high[i] = s.highAt(j)
  bars.low[i] = s.lowAt(j)
  bars.close[i] = s.close[j]!
  bars.volume[i] = s.volume[j]!
  bars.day = s.days[j]!
  bars.date = isoDate(bars.day)
  const session = md.sim.intradaySession(bars, crypto ? "crypto" : "equity")
  const path = session.pathOf(i)
  const k = session.minutes
  const at = new Float64Array(k + 1)
  const price = new Float64Array(k + 1)
  const volume = new Float64Array(k + 1)
  for (let m = 0; m <= k; m++) {
    at[m] = session.startMs + m * MINUTE_MS
    price[m] = tickRound(path[m]!, crypto)
    volume[m] = Math.round(session.volumeFraction[m]! * bars.volume[i]!)
  }
  return { at, price, volume }
}

/** The open session's minutes on `day` to `toMs`: the minute-tier rows themselves. */
const openPath = (md: MarketReader, ticker: string, day: number, toMs: number): SessionPath => {
  // a crypto session ends at 24:00: the minute at 00:00 of `day` is the previous session's last
  const from = day * DAY_MS + 1
  const prices = md.intradaySeries(ticker, "price", "1m", from, toMs, 1441).reverse()
  const volumes = md.intradaySeries(ticker, "volume_today", "1m", from, toMs, 1441).reverse()
  const open = md.intradaySeries(ticker, "day_open", "1m", from, toMs, 1)[0]?.value
  const first = prices[0]
  if (first === undefined || typeof open !== "number" || volumes.length !== prices.length) {
    return { at: [], price: [], volume: [] }
  }
  return {
    at: [first.t - MINUTE_MS, ...prices.map((p) => p.t)],
    price: [open, ...prices.map((p) => p.value as number)],
    volume: [0, ...volumes.map((p) => p.value as number)]
  }
}

/** Folds a session's minutes ending within [fromMs, toMs] into bars of the interval. */
const appendBars = (path: SessionPath, interval: "1m" | "1h", fromMs: number, toMs: number, out: IntradayBars) => {
  let bucket = Number.NaN
  for (let m = 1; m < path.at.length; m++) {
    const end = path.at[m]!
    if (end < fromMs || end > toMs) continue
    const start = path.at[m - 1]!
    const prev = path.price[m - 1]!
    const price = path.price[m]!
    const volume = path.volume[m]! - path.volume[m - 1]!
    const key = interval === "1m" ? start : Math.floor(start / HOUR_MS)
    const last = out.t.length - 1
    if (key !== bucket) {
      bucket = key
      out.t.push(start)
      out.o.push(prev)
      out.h.push(Math.max(prev, price))
      out.l.push(Math.min(prev, price))
      out.c.push(price)
      out.v.push(volume)
    } else {
      out.h[last] = Math.max(out.h[last]!, price)
      out.l[last] = Math.min(out.l[last]!, price)
      out.c[last] = price
      out.v[last] = out.v[last]! + volume
    }
  }
}
