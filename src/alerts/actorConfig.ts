/**
 * What an actor keeps of its webhook's row (`ActorConfig`), with one copy of
 * the values many webhooks share.
 */
import type { WebhookRecord } from "../store/webhooks.js"
import type { ActorConfig, ActorState } from "./actor.js"
import { decodeMemory, type Memory } from "./firing/machine.js"
import { DEFAULT_FIRING, isPlain } from "./firing/options.js"
import { displayTarget } from "./ids.js"
import type { TickerIds } from "./tickerIds.js"

/**
 * One copy of the strings and field lists that many webhooks share (account and universe ids,
 * `q`, cadence, channel, target, fields): every row read from the store brings its own copies.
 * Cleared when it outgrows the webhooks it serves, so deleted webhooks' values do not pile up
 * (configs keep the copies they have).
 */
export class Interner {
  private strings = new Map<string, string>()
  private lists = new Map<string, ReadonlyArray<string>>()
  of<S extends string | null>(s: S): S {
    if (s === null) return s
    const hit = this.strings.get(s)
    if (hit !== undefined) return hit as S
    this.strings.set(s, s)
    return s
  }
  list(xs: ReadonlyArray<string>): ReadonlyArray<string> {
    const key = xs.join("\u0000")
    const hit = this.lists.get(key)
    if (hit !== undefined) return hit
    const list = xs.map((x) => this.of(x))
    this.lists.set(key, list)
    return list
  }
  /** forgets every value when it holds more than `bound` */
  bound(bound: number) {
    if (this.strings.size + this.lists.size > bound) {
      this.strings.clear()
      this.lists.clear()
    }
  }
}

export const configOf = (w: WebhookRecord, interner: Interner): ActorConfig => ({
  accountId: interner.of(w.accountId),
  name: w.name,
  q: interner.of(w.q),
  universeId: interner.of(w.universeId),
  cadence: interner.of(w.cadence),
  channel: interner.of(w.channel),
  target: interner.of(displayTarget(w)),
  fields: interner.list(w.fields),
  firing: isPlain(w.firing) ? PLAIN : w.firing,
  plain: isPlain(w.firing),
  snoozedUntil: w.snoozedUntil
})

/** one copy of the default options for every webhook that has them */
const PLAIN = DEFAULT_FIRING

/** the stored match state of a row, as an actor holds it */
export const stateOf = (w: WebhookRecord, ids: TickerIds): ActorState => ({
  armedAt: w.armedAt,
  stateSeq: w.stateSeq,
  lastSet: ids.sortedIds(w.lastMatchSet),
  deltas: w.matchDeltas,
  eventSeq: w.eventSeq,
  memory: w.memory === "" ? NO_MEMORY : decodeMemory(w.memory, (name) => ids.idOf(name))
})

const NO_MEMORY: ReadonlyMap<number, Memory> = new Map()
