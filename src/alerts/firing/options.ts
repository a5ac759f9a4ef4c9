/**
 * A subscription's firing options (issue 16): when a ticker's entry or exit
 * is an event, how long it must match first, what takes it out again, how
 * soon it may fire again and how often a ticker that stays is sent again.
 *
 * | field | meaning | default |
 * |---|---|---|
 * | `fire_on` | `enter` (`webhook.fired`), `exit` (`webhook.cleared`) or `both` | `enter` |
 * | `pending_for` | a ticker enters once it has matched on every evaluation for this long | `0s` (at once) |
 * | `clear_q` | once inside, a ticker leaves only when this holds (hysteresis) | null (`q` turns false) |
 * | `cooldown` | after a ticker fired, a re-entry within this is absorbed | `0s` |
 * | `repeat_interval` | a ticker that stays inside is sent again this often | null (never) |
 *
 * Durations are `<n>s|m|h|d` (`durationMs`). A webhook with the defaults
 * behaves exactly as before the options existed.
 */

import type { FireOn, FiringOptions } from "../../store/webhooks.js"

export const FIRE_ON: ReadonlyArray<FireOn> = ["enter", "exit", "both"]

export const DEFAULT_FIRING: FiringOptions = {
  fireOn: "enter",
  pendingMs: 0,
  clearQ: null,
  cooldownMs: 0,
  repeatMs: null
}

/** the options need per-ticker memory beyond the set of tickers inside (pending, cooldown, repeat) */
export const needsMemory = (o: FiringOptions): boolean => o.pendingMs > 0 || o.cooldownMs > 0 || o.repeatMs !== null

/** the options are the defaults (the evaluator's plain diff of match sets is the whole state machine) */
export const isPlain = (o: FiringOptions): boolean => o.fireOn === "enter" && o.clearQ === null && !needsMemory(o)

export const firesOnEnter = (o: FiringOptions): boolean => o.fireOn !== "exit"
export const firesOnExit = (o: FiringOptions): boolean => o.fireOn !== "enter"

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const
const DURATION = /^(\d{1,9})([smhd])$/

/** `<n>s|m|h|d` in ms; undefined when the text is not a duration */
export const durationMs = (text: string): number | undefined => {
  const m = DURATION.exec(text.trim())
  if (m === null) return undefined
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]
}

/** A duration as the API shows it: the largest unit that divides it (`"90s"`, `"15m"`, `"1d"`). */
export const formatDuration = (ms: number): string => {
  for (const unit of ["d", "h", "m"] as const) {
    if (ms > 0 && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`
  }
  return `${Math.round(ms / 1000)}s`
}
