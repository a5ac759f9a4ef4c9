/**
 * What one attempt's result means for its delivery (pure).
 *
 * - `classify`: a 2xx is `delivered`; 410 Gone is `gone` (the caller disables the webhook at
 *   once, no retry); anything else — 3xx (redirects are never followed), 4xx, 5xx, and no
 *   response at all (timeout, refused target, connection error) — is `retry`.
 * - `nextAttemptDelayMs`: with a schedule of k delays a delivery gets k + 1 POSTs. After the
 *   n-th failed POST (n ≥ 1) the next one waits `schedule[n-1]`; after the (k+1)-th the
 *   schedule is exhausted (null → `permanent_failure`). With the default 30s,2m,10m,1h,6h
 *   that is 6 POSTs and 5 delays.
 * - Retry-After rule: a receiver's `Retry-After` (seconds) can only lengthen the wait, never
 *   shorten it, and never beyond the schedule's longest delay:
 *   `delay = min(max(retryAfter·1000, schedule[n-1]), max(schedule))`.
 *   It never reduces the number of POSTs either. `retryAfterHint` picks the hint only from
 *   the statuses that define it for this purpose (429 and 503).
 */
import type { Duration } from "effect"
import { Duration as D } from "effect"
import type { PostResult } from "./transport.js"

export type DeliveryOutcome = "delivered" | "retry" | "gone"

export const classify = (result: PostResult): DeliveryOutcome => {
  const s = result.status
  if (s === null) return "retry"
  if (s >= 200 && s < 300) return "delivered"
  if (s === 410) return "gone"
  return "retry"
}

/** The Retry-After to honour: only on 429 Too Many Requests and 503 Service Unavailable. */
export const retryAfterHint = (result: PostResult): number | null =>
  result.status === 429 || result.status === 503 ? result.retryAfterSeconds : null

/** A configured schedule (`WEBHOOK_RETRY_SCHEDULE`) in milliseconds. */
export const scheduleMillis = (schedule: ReadonlyArray<Duration.Duration>): ReadonlyArray<number> =>
  schedule.map((d) => D.toMillis(d))

/** POSTs a delivery gets at most: one more than the schedule has delays. */
export const maxAttempts = (schedule: ReadonlyArray<number>): number => schedule.length + 1

/**
 * The wait before the next POST after `failedAttempts` failed ones, or null when the
 * schedule is exhausted. `failedAttempts` below 1 counts as 1.
 */
export const nextAttemptDelayMs = (
  schedule: ReadonlyArray<number>,
  failedAttempts: number,
  retryAfterSeconds: number | null
): number | null => {
  const n = Math.max(1, Math.floor(failedAttempts))
  if (n > schedule.length) return null
  const scheduled = schedule[n - 1]!
  if (retryAfterSeconds === null || !Number.isFinite(retryAfterSeconds) || retryAfterSeconds < 0) return scheduled
  const longest = Math.max(...schedule)
  return Math.min(Math.max(retryAfterSeconds * 1000, scheduled), longest)
}
