/**
 * `POST /v2/scan/backtest` (issue 17, item 3): a screen's matches bought on
 * each rebalance day of a range, held `hold` trading days close to close in
 * equal weights, against a benchmark. The parameters are checked here (each
 * bad field a 400 naming it; `q` compiled for the account as a scan compiles
 * it, custom signals on Pro and above), the window is the history endpoints'
 * (`historyWindow`: the plan's history window and the data's coverage), the
 * universe is resolved with the membership of each rebalance day (as the
 * as-of scans of those days resolve it); the periods come from one walk over
 * the history (`src/research/backtest`). See docs/scan.md, "Backtests".
 */
import { Clock, Effect, Either, type Schema } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { PLAN_LIMITS } from "../../accounts/plans.js"
import type { MarketReader } from "../../market/engine/MarketData.js"
import { HISTORY_START_DAY } from "../../market/history/coverage.js"
import { DAY_MS, epochDay, isoDate } from "../../market/indicators/days.js"
import { Tickers } from "../../market/tickers/index.js"
import { type BacktestPeriod, backtestColumns, backtestStretches, exitTail } from "../../research/backtest/run.js"
import { EVERY, type Every, exitDay, rebalanceDays } from "../../research/backtest/schedule.js"
import { summarize } from "../../research/backtest/stats.js"
import { compileFor } from "../common/compile.js"
import { drive } from "../common/drive.js"
import { marketData, walkStretches } from "../common/market.js"
import { parseDate } from "../common/params.js"
import { BadRequest } from "../errors.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { historyWindow } from "../signals/window.js"
import { lookupUniverse, scopeSlots } from "../universes/resolve.js"
import type { BacktestResponse } from "./Api.js"
import { requireQ } from "./answer.js"
import { DEFAULT_DIR, DEFAULT_ORDER, validateDir, validateOrder } from "./params.js"

/** A backtest request as sent. */
export interface BacktestInput {
  readonly q?: string | undefined
  readonly universe?: string | undefined
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly every?: string | undefined
  readonly hold?: string | undefined
  readonly benchmark?: string | undefined
  readonly order?: string | undefined
  readonly dir?: string | undefined
  readonly limit?: number | undefined
}

export const DEFAULT_BENCHMARK = "SPY"
/** the longest hold, in trading days (a year of sessions) */
export const MAX_HOLD = 252
/** the largest `limit` */
export const MAX_BACKTEST_LIMIT = 1000
/** The longest a backtest computes before it answers 400 naming its size (the request deadline is 20 s). */
export const BACKTEST_BUDGET_MS = 17_000

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/
const HOLD = /^(\d{1,4})d$/

const requiredDate = (name: string, raw: string | undefined): Either.Either<string, BadRequest> =>
  raw === undefined
    ? Either.left(new BadRequest({ message: `${name} is required: a date YYYY-MM-DD` }))
    : ISO_DAY.test(raw)
      ? Either.mapLeft(
          parseDate(name, raw),
          () => new BadRequest({ message: `${name} must be a date YYYY-MM-DD (got ${JSON.stringify(raw)})` })
        )
      : Either.left(new BadRequest({ message: `${name} must be a date YYYY-MM-DD (got ${JSON.stringify(raw)})` }))

const checkEvery = (raw: string | undefined): Either.Either<Every, BadRequest> =>
  raw === undefined
    ? Either.left(new BadRequest({ message: "every is required: 1d, 1w or 1mo" }))
    : (EVERY as ReadonlyArray<string>).includes(raw)
      ? Either.right(raw as Every)
      : Either.left(new BadRequest({ message: `every must be 1d, 1w or 1mo (got ${JSON.stringify(raw)})` }))

const checkHold = (raw: string | undefined): Either.Either<number, BadRequest> => {
  const m = raw === undefined ? null : HOLD.exec(raw)
  const n = m === null ? Number.NaN : Number(m[1])
  return n >= 1 && n <= MAX_HOLD
    ? Either.right(n)
    : Either.left(
        new BadRequest({
          message:
            raw === undefined
              ? `hold is required: trading days as <n>d, 1d to ${MAX_HOLD}d`
              : `hold must be trading days as <n>d, 1d to ${MAX_HOLD}d (got ${JSON.stringify(raw)})`
        })
      )
}

const checkLimit = (raw: number | undefined): Either.Either<number | undefined, BadRequest> =>
  raw === undefined || (Number.isInteger(raw) && raw >= 1 && raw <= MAX_BACKTEST_LIMIT)
    ? Either.right(raw)
    : Either.left(new BadRequest({ message: `limit must be an integer from 1 to ${MAX_BACKTEST_LIMIT} (got ${raw})` }))

/** The fields that need no database, checked in the order the API words its 400s. */
const backtestParameters = (input: BacktestInput) =>
  Either.gen(function* () {
    return {
      q: yield* requireQ(input.q),
      from: yield* requiredDate("from", input.from),
      to: yield* requiredDate("to", input.to),
      every: yield* checkEvery(input.every),
      hold: yield* checkHold(input.hold),
      order: yield* validateOrder(input.order ?? DEFAULT_ORDER),
      dir: yield* validateDir(input.dir ?? DEFAULT_DIR),
      limit: yield* checkLimit(input.limit)
    }
  })

/** The last day the daily history holds a bar of any ticker: exits after it are not known yet. */
const dataEnd = (md: MarketReader): number => {
  let last = Number.NEGATIVE_INFINITY
  for (const s of md.series) if (s.length > 0 && s.days[s.length - 1]! > last) last = s.days[s.length - 1]!
  return last
}

/** One backtest at a time per process: a whole-market walk is seconds of CPU. */
const gate = Effect.unsafeMakeSemaphore(1)

export type BacktestAnswer = Schema.Schema.Type<typeof BacktestResponse>

export const backtest = (key: AuthenticatedKey, input: BacktestInput) =>
  Effect.gen(function* () {
    const p = yield* backtestParameters(input)
    const directory = yield* Tickers
    const benchmarkName = input.benchmark ?? DEFAULT_BENCHMARK
    const benchmark = directory.lookup(benchmarkName)
    if (benchmark === undefined) {
      return yield* new BadRequest({
        message: `benchmark: ${JSON.stringify(benchmarkName)} is not a tracked ticker (e.g. SPY)`
      })
    }
    const q = yield* compileFor(p.q, directory, key.account)
    const md = yield* marketData
    const now = yield* Clock.currentTimeMillis
    const today = Math.floor(now / DAY_MS)
    if (epochDay(p.from) > today) {
      return yield* new BadRequest({ message: `from ${p.from} is in the future (today is ${isoDate(today)})` })
    }
    const window = yield* historyWindow({
      plan: key.account.plan,
      maxDays: PLAN_LIMITS[key.account.plan].maxHistoryDays,
      now,
      coverageStartMs: HISTORY_START_DAY * DAY_MS,
      interval: "1d",
      from: p.from,
      to: p.to
    })
    const fromDay = Math.floor(window.fromMs / DAY_MS)
    const toDay = Math.min(Math.floor(window.toMs / DAY_MS), today)
    const universe =
      input.universe === undefined
        ? undefined
        : yield* lookupUniverse(key.account.id, input.universe, { from: fromDay, to: toDay })
    const scope = scopeSlots(md, universe)

    // the rebalance days whose exit the data holds
    const end = dataEnd(md)
    const scheduled = rebalanceDays(fromDay, toDay, p.every)
    const days = scheduled.filter((d) => exitDay(d, p.hold) <= end)
    const exits = days.map((d) => exitDay(d, p.hold))

    // the tickers walked: the universe's members on the rebalance days (or all), and those q names
    const walked = new Set<number>()
    if (universe === undefined) for (let slot = 0; slot < md.size; slot++) walked.add(slot)
    else for (const d of days) for (const slot of scope(d) ?? []) walked.add(slot)
    for (const t of q.tickers) {
      const slot = md.index.get(t)
      if (slot !== undefined) walked.add(slot)
    }
    const slots = [...walked].sort((a, b) => a - b)
    const benchmarkSlot = md.index.get(benchmark.ticker)!
    // before the window: the whole market's history since 2003 (503 while it is built), a stretch of
    // years at a time, each stretch's series reaching its last exit
    const tail = exitTail(days, exits)
    const kept = backtestColumns(q, p.order)
    const stretches = yield* walkStretches(md, [...slots, benchmarkSlot], fromDay, toDay, tail, kept)
    const periods: Array<BacktestPeriod> = []
    const finished = yield* gate.withPermits(1)(
      drive(
        backtestStretches(stretches, {
          slots,
          q,
          pick: { order: p.order, desc: p.dir === "desc", limit: p.limit },
          days,
          exits,
          scope,
          benchmark: benchmarkSlot
        }),
        (period) => periods.push(period),
        now + BACKTEST_BUDGET_MS
      )
    )
    if (!finished) {
      return yield* new BadRequest({
        message: `this backtest takes longer than ${BACKTEST_BUDGET_MS / 1000} s (${slots.length} tickers, ${days.length} rebalances${periods.length > 0 ? `; ${periods.length} done` : ""}): narrow the range, rebalance less often (every), or scope it with a universe`
      })
    }
    const rows = periods.map((x) => ({
      date: isoDate(x.day),
      exit_date: isoDate(x.exitDay),
      count: x.count,
      return: x.return,
      benchmark_return: x.benchmark_return
    }))
    return {
      as_of: new Date(now).toISOString(),
      query: {
        q: p.q,
        universe: input.universe ?? null,
        from: isoDate(fromDay),
        to: isoDate(toDay),
        every: p.every,
        hold: `${p.hold}d`,
        benchmark: benchmark.ticker,
        order: p.order,
        dir: p.dir,
        limit: p.limit ?? null
      },
      periods: rows,
      summary: summarize(rows),
      _meta: {
        data_end: isoDate(end),
        dropped_periods: scheduled.length - days.length
      }
    } satisfies BacktestAnswer
  })

/** `POST /v2/scan/backtest` */
export const runBacktest = (input: BacktestInput) => Effect.flatMap(CurrentKey, (key) => backtest(key, input))
