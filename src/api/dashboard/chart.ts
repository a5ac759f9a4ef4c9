/**
 * A ticker's bars for the dashboard's chart (issue 18, item 4): daily or weekly, over the plan's
 * history window (`maxHistoryDays`: all of it on Scale and above, five years on Pro, the last
 * session below), columnar (`t` in epoch seconds at 00:00 UTC of the bar's day).
 */
import { Clock, Effect } from "effect"
import { PLAN_LIMITS } from "../../accounts/plans.js"
import { type Bars, weeklyBars } from "../../market/engine/bars.js"
import { isoDate } from "../../market/indicators/days.js"
import { marketData } from "../common/market.js"
import type { RequestOf } from "../common/request.js"
import { trackedTicker } from "../common/tickers.js"
import { NotFound } from "../errors.js"
import type { DashboardApi } from "./Api.js"
import { CurrentSession } from "./DashboardAuth.js"

const DAY_SECONDS = 86_400

export const chartBars = ({ path, urlParams }: RequestOf<typeof DashboardApi, "bars">) =>
  Effect.gen(function* () {
    const session = yield* CurrentSession
    const meta = yield* trackedTicker(path.ticker)
    const md = yield* marketData
    const now = yield* Clock.currentTimeMillis
    const coverage = md.dailyCoverage(md.index.get(meta.ticker)!)
    if (coverage === undefined) return yield* new NotFound({ message: `${meta.ticker} has no daily bars yet` })
    const toDay = coverage.to
    const maxDays = PLAN_LIMITS[session.plan].maxHistoryDays
    const firstDay = coverage.from
    const fromDay =
      maxDays === null ? firstDay : Math.max(firstDay, maxDays === 0 ? toDay : Math.floor(now / 86_400_000) - maxDays)
    const daily = md.dailyBars(meta.ticker, fromDay, toDay)
    const interval = urlParams.interval ?? "1d"
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
