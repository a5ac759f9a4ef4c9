/**
 * Plans and what they allow. One table for rate limits, history windows and
 * resource caps, read by the auth middleware, the rate limiter and the
 * endpoints that gate on plan.
 */
import { Schema } from "effect"

export const PLANS = ["none", "free", "hobby", "pro", "scale", "enterprise"] as const
export type Plan = (typeof PLANS)[number]
export const Plan = Schema.Literal(...PLANS)

export interface PlanLimits {
  /** general requests per rolling minute, per key */
  readonly ratePerMinute: number
  /** signal history and ticker history endpoints, per rolling minute */
  readonly historyRatePerMinute: number
  /** history window of the history endpoints, in days (null = all available) */
  readonly maxHistoryDays: number | null
  /** webhooks: 0 = not on this plan, null = unlimited */
  readonly webhooks: number | null
  /** custom signals: 0 = not on this plan, null = unlimited */
  readonly customSignals: number | null
  /** news older than the recent window (the archive) */
  readonly newsArchive: boolean
}

/** Enterprise's default general limit until an operator sets the account's own. */
export const ENTERPRISE_DEFAULT_RATE = 60_000

export const PLAN_LIMITS: Readonly<Record<Plan, PlanLimits>> = {
  none: {
    ratePerMinute: 0,
    historyRatePerMinute: 0,
    maxHistoryDays: 0,
    webhooks: 0,
    customSignals: 0,
    newsArchive: false
  },
  free: {
    ratePerMinute: 60,
    historyRatePerMinute: 30,
    maxHistoryDays: 0,
    webhooks: 0,
    customSignals: 0,
    newsArchive: false
  },
  hobby: {
    ratePerMinute: 600,
    historyRatePerMinute: 60,
    maxHistoryDays: 0,
    webhooks: 10,
    customSignals: 0,
    newsArchive: false
  },
  pro: {
    ratePerMinute: 6_000,
    historyRatePerMinute: 2_000,
    maxHistoryDays: 5 * 365,
    webhooks: 100,
    customSignals: 10,
    newsArchive: true
  },
  scale: {
    ratePerMinute: 60_000,
    historyRatePerMinute: 10_000,
    maxHistoryDays: null,
    webhooks: null,
    customSignals: null,
    newsArchive: true
  },
  enterprise: {
    ratePerMinute: ENTERPRISE_DEFAULT_RATE,
    historyRatePerMinute: 10_000,
    maxHistoryDays: null,
    webhooks: null,
    customSignals: null,
    newsArchive: true
  }
}

/** What a plan may use at all (a cap, where it has one, is counted elsewhere). */
export type Feature = "customSignals" | "newsArchive" | "webhooks"

/** Whether `plan` has `feature`: a cap other than 0, or a flag set, in `PLAN_LIMITS`. */
export const hasFeature = (plan: Plan, feature: Feature): boolean => {
  const value = PLAN_LIMITS[plan][feature]
  return typeof value === "boolean" ? value : value !== 0
}

/** The plans that have `feature`, in plan order. */
export const plansWith = (feature: Feature): ReadonlyArray<Plan> => PLANS.filter((p) => hasFeature(p, feature))

/** The general per-minute limit of an account: its plan's, or for enterprise the per-account value when set. */
export const rateLimitFor = (plan: Plan, accountRate: number | null): number =>
  plan === "enterprise" && accountRate !== null ? accountRate : PLAN_LIMITS[plan].ratePerMinute
