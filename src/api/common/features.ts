/**
 * Plan gates: whether an account's plan has a feature of `PLAN_LIMITS`, as the
 * 403 the spec names for it.
 */
import { Either } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { type Feature, hasFeature, type Plan, plansWith } from "../../accounts/plans.js"
import { Forbidden } from "../errors.js"

/**
 * 403 with `code` unless the account's plan (of a key, or the plan itself) has `feature` in
 * `PLAN_LIMITS` (accounts/plans.ts): the one place a plan tier gates an endpoint.
 */
export const requireFeature = (
  of: AuthenticatedKey | Plan,
  feature: Feature,
  code: string,
  what: string
): Either.Either<void, Forbidden> => {
  const plan = typeof of === "string" ? of : of.account.plan
  if (hasFeature(plan, feature)) return Either.void
  const plans = plansWith(feature)
  return Either.left(
    new Forbidden({
      code,
      message: `${what} needs the ${plans.join(", ")} plan${plans.length > 1 ? "s" : ""}; this account is on ${plan}`
    })
  )
}
