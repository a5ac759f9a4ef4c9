/**
 * The time window of a signal's history read: what `from`/`to` may ask for
 * under the plan's history window (`maxHistoryDays` of `PLAN_LIMITS`) and the
 * data's coverage at the interval, as the spec's 400s
 * (`history_window_exceeded` with `max_history_days` and
 * `earliest_allowed_from`; `bad_request` for `to` before `from`). Pure: the
 * caller gives the clock reading and the coverage.
 */
import { Either } from "effect"
import type { Plan } from "../../accounts/plans.js"
import { DAY_MS, isoDate } from "../../market/indicators/days.js"
import { parseDate } from "../common/params.js"
import { BadRequest, HistoryWindowExceeded } from "../errors.js"

/** An instant from `from`/`to`: a date means the start (from) or the end (to) of that UTC day. */
export const parseBound = (name: string, raw: string, end: boolean): Either.Either<number, BadRequest> =>
  Either.map(parseDate(name, raw), (date) => {
    if (raw.trim().length === 10) return Date.parse(`${date}T00:00:00Z`) + (end ? DAY_MS - 1 : 0)
    return Date.parse(raw.trim())
  })

export interface WindowRequest {
  readonly plan: Plan
  /** the plan's history window in days; null: all of it */
  readonly maxDays: number | null
  /** epoch ms now */
  readonly now: number
  /** epoch ms of the first data at the interval */
  readonly coverageStartMs: number
  /** the interval, for messages */
  readonly interval: string
  readonly from?: string | undefined
  readonly to?: string | undefined
}

/** The window `[fromMs, toMs]` (epoch ms) a history read covers, or the 400 that refuses it. */
export const historyWindow = (
  r: WindowRequest
): Either.Either<{ readonly fromMs: number; readonly toMs: number }, BadRequest | HistoryWindowExceeded> =>
  Either.gen(function* () {
    const today = Math.floor(r.now / DAY_MS)
    const planStartMs = r.maxDays === null ? Number.NEGATIVE_INFINITY : (today - r.maxDays) * DAY_MS
    const coverageStartDayMs = Math.floor(r.coverageStartMs / DAY_MS) * DAY_MS
    const windowStartMs = Math.max(planStartMs, coverageStartDayMs)
    const exceeded = (earliestMs: number, message: string) =>
      new HistoryWindowExceeded({
        message,
        details: { max_history_days: r.maxDays, earliest_allowed_from: isoDate(Math.floor(earliestMs / DAY_MS)) }
      })
    let fromMs = windowStartMs
    if (r.from !== undefined) {
      fromMs = yield* parseBound("from", r.from, false)
      if (fromMs < planStartMs) {
        return yield* Either.left(
          exceeded(planStartMs, `from ${r.from} is before the ${r.plan} plan's history window (${r.maxDays} days)`)
        )
      }
      if (fromMs < coverageStartDayMs) {
        return yield* Either.left(
          exceeded(r.coverageStartMs, `from ${r.from} is before the data available at ${r.interval}`)
        )
      }
    }
    const toMs = r.to !== undefined ? yield* parseBound("to", r.to, true) : r.now
    if (toMs < fromMs) {
      if (r.from === undefined && toMs >= 0) {
        return yield* Either.left(exceeded(windowStartMs, `to ${r.to} is before the history window`))
      }
      return yield* Either.left(new BadRequest({ message: "to is before from" }))
    }
    return { fromMs, toMs }
  })
