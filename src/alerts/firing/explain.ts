/**
 * Where a ticker stands on a webhook, in a sentence a person reads: its
 * state (idle, pending, inside, cooling) from the stored state of the last
 * evaluation, and why — the condition's decisive comparison, the pending or
 * cooldown times, the universe, a snooze (`GET /v2/webhooks/{id}/explain`).
 */
import { because, type ExplainNode } from "../../query/explain.js"
import type { FiringOptions } from "../../store/webhooks.js"
import { type Memory, phaseOf, type TickerPhase, tickerState } from "./machine.js"
import { formatDuration } from "./options.js"

export interface TickerFacts {
  readonly firing: FiringOptions
  /** the ticker is in the webhook's stored set (inside) */
  readonly inside: boolean
  readonly memory: Memory | undefined
  readonly now: number
  readonly snoozedUntil: number | null
  /** the ticker is in the webhook's scope (its universe, or the whole market) */
  readonly inScope: boolean
  readonly universeId: string | null
  /** `q` at the ticker */
  readonly tree: ExplainNode
  /** `clear_q` at the ticker, when the webhook has one */
  readonly clearTree: ExplainNode | undefined
}

const iso = (ms: number) => new Date(ms).toISOString()

export const explainTicker = (f: TickerFacts): { readonly state: TickerPhase; readonly reason: string } => {
  const o = f.firing
  const s = tickerState(f.inside, f.memory)
  const state = phaseOf(o, s, f.now)
  const m = s.memory
  const matches = f.inScope && f.tree.result === true
  let reason: string
  switch (state) {
    case "idle":
      reason = !f.inScope
        ? `outside the universe ${f.universeId}`
        : matches
          ? o.pendingMs > 0
            ? `matches now (${because(f.tree)}); pending from the next evaluation for ${formatDuration(o.pendingMs)}`
            : `matches now (${because(f.tree)}); enters at the next evaluation`
          : because(f.tree)
      break
    case "pending":
      reason = `matching since ${iso(m.pendingSince!)}, pending until ${iso(m.pendingSince! + o.pendingMs)}`
      break
    case "inside": {
      const since = m.firedAt !== null ? `inside since it fired at ${iso(m.firedAt)}` : "inside"
      const leaves =
        f.clearTree !== undefined
          ? `leaves when clear_q holds: ${because(f.clearTree)}`
          : matches
            ? `q holds: ${because(f.tree)}`
            : `q no longer holds (${f.inScope ? because(f.tree) : `outside the universe ${f.universeId}`}): leaves at the next evaluation`
      reason = `${since}; ${leaves}`
      break
    }
    case "cooling":
      reason = `fired at ${iso(m.firedAt!)}, cooling until ${iso(m.firedAt! + o.cooldownMs)}${f.inside ? "; re-entered meanwhile (absorbed, not sent)" : ""}`
      break
  }
  if (f.snoozedUntil !== null && f.now < f.snoozedUntil) {
    reason = `snoozed until ${iso(f.snoozedUntil)} (events go to the feed, not delivered); ${reason}`
  }
  return { state, reason }
}
