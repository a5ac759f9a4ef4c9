/**
 * A ticker's bars for the dashboard's chart (issue 18, item 4), columnar, over the plan's history
 * window (`maxHistoryDays`: all of it on Scale and above, five years on Pro, the last session below):
 *
 * - `1d`, `1w`: the completed sessions' daily bars (weekly: folded Monday–Sunday), `t` in epoch
 *   seconds at 00:00 UTC of the bar's day (of a week's last day).
 * - `1m`, `1h`: minute and hourly bars of the sessions the market holds minute data for (the
 *   minute tier's tickers, `MINUTE_HISTORY_DAYS` back, the open session to the latest refresh;
 *   the newest `INTRADAY_SESSIONS` of them), `t` in epoch seconds of the bar's first minute
 *   (market/engine/intradayBars.ts).
 */
import { Clock, Effect } from "effect"
import { PLAN_LIMITS } from "../../accounts/plans.js"
import { type Bars, weeklyBars } from "../../market/engine/bars.js"
import { intradayBars } from "../../market/engine/intradayBars.js"
import { DAY_MS, isoDate } from "../../market/indicators/days.js"
import { liveSnapshot, marketData } from "../common/market.js"
import type { RequestOf } from "../common/request.js"
import { trackedTicker } from "../common/tickers.js"
import { NotFound, TickerNotInMinuteTier } from "../errors.js"
import { minuteTier } from "../signals/history.js"
import type { DashboardApi } from "./Api.js"
import { CurrentSession } from "./DashboardAuth.js"

const DAY_SECONDS = 86_400

/**
 * The sessions a chart shows at each intraday interval (the newest): `1m` ~2,000 equity minutes
 * (7,200 crypto ones); `1h` a year of equity sessions (~1,800 bars; ~8.5 months of crypto, ~6,200),
 * read in ~0.3 ms a session — the whole two years would hold a request up to half a second.
 */
export const INTRADAY_SESSIONS = { "1m": 5, "1h": 260 } as const

export const chartBars = ({ path, urlParams }: RequestOf<typeof DashboardApi, "bars">) =>
  Effect.gen(function* () {
    const session = yield* CurrentSession
    const meta = yield* trackedTicker(path.ticker)
    const md = yield* marketData
    const now = yield* Clock.currentTimeMillis
    const interval = urlParams.interval ?? "1d"
    const maxDays = PLAN_LIMITS[session.plan].maxHistoryDays
    if (interval === "1m" || interval === "1h") {
      if (!minuteTier(yield* liveSnapshot).has(meta.ticker)) {
        return yield* new TickerNotInMinuteTier({
          message: `${meta.ticker} has no minute bars: they are kept for the 200 tickers of the most 30-day dollar volume; use 1d or 1w`
        })
      }
      const i = md.index.get(meta.ticker)!
      const coverage = md.minuteCoverage(i)
      const retention = md.latest.asOf - (md.options.minuteHistoryDays ?? 730) * DAY_MS
      const planFrom = maxDays === null || maxDays === 0 ? undefined : (Math.floor(now / DAY_MS) - maxDays) * DAY_MS
      const fromMs = Math.max(coverage.from * DAY_MS, retention, planFrom ?? Number.NEGATIVE_INFINITY)
      const sessions = maxDays === 0 ? 1 : INTRADAY_SESSIONS[interval]
      const bars = intradayBars(md, i, interval, fromMs, Math.min(now, md.latest.asOf), sessions)
      const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString())
      return {
        ticker: meta.ticker,
        name: meta.name,
        interval,
        from: iso(bars.t[0]),
        to: iso(bars.t[bars.t.length - 1]),
        limited: maxDays === 0 || (planFrom !== undefined && planFrom > coverage.from * DAY_MS),
        t: bars.t.map((ms) => ms / 1000),
        o: bars.o,
        h: bars.h,
        l: bars.l,
        c: bars.c,
        v: bars.v
      }
    }
    const coverage = md.dailyCoverage(md.index.get(meta.ticker)!)
    if (coverage === undefined) return yield* new NotFound({ message: `${meta.ticker} has no daily bars yet` })
    const toDay = coverage.to
    const firstDay = coverage.from
    const fromDay =
      maxDays === null ? firstDay : Math.max(firstDay, maxDays === 0 ? toDay : Math.floor(now / 86_400_000) - maxDays)
    const daily = md.dailyBars(meta.ticker, fromDay, toDay)
    const bars: Bars = interval === "1w" ? weeklyBars(daily) : daily
    return {
      ticker: meta.ticker,
      name: meta.name,
      interval,
      from: bars.days.length === 0 ? null : isoDate(bars.days[0]!),
      to: bars.days.length === 0 ? null : isoDate(bars.days[bars.days.length - 1]!),
      limited: maxDays !== null,
      t: bars.days.map((d) => d * DAY_SECONDS),
      o: bars.open,
      h: bars.high,
      l: bars.low,
      c: bars.close,
      v: bars.volume
    }
  })
