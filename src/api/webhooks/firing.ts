/**
 * The rules of a subscription's firing options (issue 16) — `fire_on`,
 * `pending_for`, `clear_q`, `cooldown`, `repeat_interval` — for a new webhook
 * (`newFiring`, every subscribe and create endpoint) and for an edit
 * (`firingEdit`, PATCH): one validator per field, so both refuse the same
 * values with the same messages. `clear_q` is a condition like `q`: compiled
 * for the account and frozen (`freeze`).
 */
import { Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { DEFAULT_FIRING, durationMs, FIRE_ON, formatDuration } from "../../alerts/firing/options.js"
import { DAY_MS } from "../../market/indicators/days.js"
import type { FireOn, FiringOptions, WebhookRecord } from "../../store/webhooks.js"
import { BadRequest } from "../errors.js"
import { freeze } from "./conditions.js"

/** The firing fields of a subscribe, create or update request. */
export interface FiringInput {
  readonly fire_on?: string | undefined
  readonly pending_for?: string | undefined
  readonly clear_q?: string | null | undefined
  readonly cooldown?: string | undefined
  readonly repeat_interval?: string | null | undefined
}

/** the longest `pending_for` */
export const MAX_PENDING_MS = DAY_MS
/** the longest `cooldown` and `repeat_interval` */
export const MAX_INTERVAL_MS = 30 * DAY_MS

const checkFireOn = (raw: string): Effect.Effect<FireOn, BadRequest> => {
  const v = raw.trim().toLowerCase()
  return FIRE_ON.includes(v as FireOn)
    ? Effect.succeed(v as FireOn)
    : Effect.fail(new BadRequest({ message: `fire_on must be enter, exit or both (got ${JSON.stringify(raw)})` }))
}

/** A duration `<n>s|m|h|d` within [min, max] ms. */
const checkDuration = (parameter: string, raw: string, min: number, max: number): Effect.Effect<number, BadRequest> => {
  const ms = durationMs(raw)
  if (ms === undefined) {
    return Effect.fail(
      new BadRequest({
        message: `${parameter} must be a duration <n>s, <n>m, <n>h or <n>d, e.g. "15m" (got ${JSON.stringify(raw)})`
      })
    )
  }
  if (ms < min || ms > max) {
    return Effect.fail(
      new BadRequest({
        message: `${parameter} must be between ${formatDuration(min)} and ${formatDuration(max)} (got ${JSON.stringify(raw)})`
      })
    )
  }
  return Effect.succeed(ms)
}

const checkClearQ = (key: AuthenticatedKey, raw: string | null) => {
  if (raw === null) return Effect.succeed(null)
  if (raw.trim() === "") {
    return Effect.fail(
      new BadRequest({ message: "clear_q must not be empty (null for none: tickers leave when q turns false)" })
    )
  }
  return freeze(key, raw, "clear_q")
}

/** The options a request sets on top of `base` (the defaults for a new webhook, the current ones for an edit). */
const apply = (key: AuthenticatedKey, base: FiringOptions, input: FiringInput) =>
  Effect.gen(function* () {
    return {
      fireOn: input.fire_on === undefined ? base.fireOn : yield* checkFireOn(input.fire_on),
      pendingMs:
        input.pending_for === undefined
          ? base.pendingMs
          : yield* checkDuration("pending_for", input.pending_for, 0, MAX_PENDING_MS),
      clearQ: input.clear_q === undefined ? base.clearQ : yield* checkClearQ(key, input.clear_q),
      cooldownMs:
        input.cooldown === undefined
          ? base.cooldownMs
          : yield* checkDuration("cooldown", input.cooldown, 0, MAX_INTERVAL_MS),
      repeatMs:
        input.repeat_interval === undefined
          ? base.repeatMs
          : input.repeat_interval === null
            ? null
            : yield* checkDuration("repeat_interval", input.repeat_interval, 1_000, MAX_INTERVAL_MS)
    } satisfies FiringOptions
  })

/** A new webhook's firing options, validated (the defaults for fields not given). */
export const newFiring = (key: AuthenticatedKey, input: FiringInput) => apply(key, DEFAULT_FIRING, input)

const FIRING_FIELDS = ["fire_on", "pending_for", "clear_q", "cooldown", "repeat_interval"] as const

/** What a PATCH of webhook `w` makes of its firing options (undefined: it sets none of them). */
export const firingEdit = (key: AuthenticatedKey, w: WebhookRecord, input: FiringInput) =>
  FIRING_FIELDS.some((f) => input[f] !== undefined)
    ? apply(key, w.firing, input)
    : Effect.succeed<FiringOptions | undefined>(undefined)

/** The firing options as a webhook record shows them. */
export const firingDoc = (o: FiringOptions) => ({
  fire_on: o.fireOn,
  pending_for: formatDuration(o.pendingMs),
  clear_q: o.clearQ,
  cooldown: formatDuration(o.cooldownMs),
  repeat_interval: o.repeatMs === null ? null : formatDuration(o.repeatMs)
})
