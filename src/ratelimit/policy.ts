/**
 * Which limit and which rate-limit key apply to a request. The numbers come
 * from `src/accounts/plans.ts`; this module only names the scopes.
 *
 * - general: every authenticated endpoint, per API key, the plan's (or the
 *   enterprise account's own) per-minute limit;
 * - history: the signal history and ticker history endpoints, per API key,
 *   their own stricter limit, instead of the general one (the spec states it
 *   "instead"), on a separate key so the two never share a count;
 * - sandbox: the unauthenticated sandbox mirror, per client IP.
 * - signIn: the dashboard's sign-in attempts, per client IP (beside the per-email lockout).
 */
import { PLAN_LIMITS, type Plan, rateLimitFor } from "../accounts/plans.js"

export type RateLimitScope = "general" | "history"

/**
 * Per client IP per minute on the sandbox mirror. The spec states the sandbox
 * is IP-rate-limited but gives no figure; this is the Free plan's general
 * figure until product sets one.
 */
export const SANDBOX_RATE_PER_MINUTE = 60

/** dashboard sign-in attempts per rolling minute per client IP */
export const SIGN_IN_PER_MINUTE = 20

export const limitFor = (scope: RateLimitScope, plan: Plan, accountRate: number | null): number =>
  scope === "history" ? PLAN_LIMITS[plan].historyRatePerMinute : rateLimitFor(plan, accountRate)

/** Rate-limit keys (stored as `vigil:rl:<key>` in Redis). */
export const rateLimitKey = {
  apiKey: (scope: RateLimitScope, keyId: string): string => `${scope === "history" ? "hist" : "key"}:${keyId}`,
  sandbox: (clientIp: string): string => `ip:${clientIp}`,
  signIn: (clientIp: string): string => `signin:${clientIp}`
} as const
