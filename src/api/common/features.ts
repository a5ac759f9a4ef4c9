/**
 * Plan gates: whether an account's plan has a feature of `PLAN_LIMITS`, as the
 * 403 the spec names for it.
 */
import { Either } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { type Feature, hasFeature, type Plan, plansWith } from "../../accounts/plans.js"
import { CustomSignalsTierRequired, NewsArchiveTierRequired, WebhookTierRequired } from "../errors.js"

/** The 403 the spec names for each plan feature. */
const FEATURE_ERRORS = {
  customSignals: CustomSignalsTierRequired,
  newsArchive: NewsArchiveTierRequired,
  webhooks: WebhookTierRequired
} as const satisfies Record<Feature, unknown>

/** The 403 of a feature outside the plan. */
export type FeatureRequired<F extends Feature> = InstanceType<(typeof FEATURE_ERRORS)[F]>

/**
 * The feature's 403 (`FEATURE_ERRORS`) unless the account's plan (of a key, or the plan itself) has `feature` in
 * `PLAN_LIMITS` (accounts/plans.ts): the one place a plan tier gates an endpoint.
 */
export const requireFeature = <F extends Feature>(
  of: AuthenticatedKey | Plan,
  feature: F,
  what: string
): Either.Either<void, FeatureRequired<F>> => {
  const plan = typeof of === "string" ? of : of.account.plan
  if (hasFeature(plan, feature)) return Either.void
  const plans = plansWith(feature)
  return Either.left(
    new FEATURE_ERRORS[feature]({
      message: `${what} needs the ${plans.join(", ")} plan${plans.length > 1 ? "s" : ""}; this account is on ${plan}`
    }) as FeatureRequired<F>
  )
}
