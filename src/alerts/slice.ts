/**
 * A slice: the webhooks whose id hashes to one slice number, and their actors.
 *
 * Slices are the unit the cluster moves between runners (issue 15): a stable
 * hash of the webhook id into `SLICES` numbers — 1,024, the count at which
 * the measured worst runner load over 3 runners was 1.04× an even split
 * (1.31× with 32). The database computes and stores each webhook's slice
 * (`webhooks.slice`, migration 0013), so every process reads the same one. Inside a slice the actors are grouped by their
 * (predicate, scope) pair (`pairs.ts`, shared by every slice of the runner),
 * so a tick on which a pair's matches did not move and whose actors are known
 * to hold them (`SliceGroup.syncedTo`) costs one comparison for the whole
 * group: no step, no diff, no write.
 */
import type { Cadence } from "../store/webhooks.js"
import type { FaultHook, Outcome, WebhookActor } from "./actor.js"
import { CADENCES } from "./cadence.js"
import { countCadence, type Pair } from "./pairs.js"
import { EMPTY } from "./tickerIds.js"

export const SLICES = 1_024

/** The actors of one slice that share a pair. */
interface SliceGroup {
  readonly pair: Pair
  readonly members: Array<WebhookActor>
  readonly cadenceCounts: Array<number>
  cadenceBits: number
  /** every member is known to hold this result (`WebhookActor.synced`): none needs a step */
  syncedTo: Int32Array | undefined
  /** members whose firing options are not the defaults: their state also moves with `clear_q` and time */
  special: number
}

/** What a tick's steps produced over the slices stepped. */
export class TickSteps {
  /** the changed outcomes (a slot is emptied when the commit takes it) */
  readonly outcomes: Array<Outcome | undefined> = []
  /** actors whose step failed, with the defect */
  readonly failed: Array<{ readonly actor: WebhookActor; readonly defect: unknown }> = []
  /** actors stepped (their `synced` is provisional until the commit) */
  readonly stepped: Array<WebhookActor> = []
  /** due webhooks (stepped or known to hold their pair's matches) */
  evaluated = 0
}

export class Slice {
  readonly actors = new Map<string, WebhookActor>()
  private readonly groups = new Map<Pair, SliceGroup>()
  /** each actor's group */
  private readonly groupOf = new Map<WebhookActor, SliceGroup>()

  constructor(readonly number: number) {}

  /** Adds an actor, in the group of its pair (none: its q does not compile, it is never stepped). */
  add(actor: WebhookActor, pair: Pair | undefined): void {
    this.actors.set(actor.id, actor)
    if (pair === undefined) return
    let g = this.groups.get(pair)
    if (g === undefined) {
      g = { pair, members: [], cadenceCounts: CADENCES.map(() => 0), cadenceBits: 0, syncedTo: undefined, special: 0 }
      this.groups.set(pair, g)
    }
    g.members.push(actor)
    if (!actor.config.plain) g.special++
    countCadence(g, actor.config.cadence, 1)
    g.syncedTo = undefined
    this.groupOf.set(actor, g)
  }

  /** Removes an actor; its pair (to leave), if it had one. */
  remove(actor: WebhookActor): Pair | undefined {
    this.actors.delete(actor.id)
    const g = this.groupOf.get(actor)
    if (g === undefined) return undefined
    this.groupOf.delete(actor)
    const i = g.members.indexOf(actor)
    if (i >= 0) {
      g.members[i] = g.members[g.members.length - 1]!
      g.members.pop()
    }
    if (!actor.config.plain) g.special--
    countCadence(g, actor.config.cadence, -1)
    if (g.members.length === 0) this.groups.delete(g.pair)
    return g.pair
  }

  /** the actor is no longer known to hold its pair's result: it is stepped on the next tick */
  unsync(actor: WebhookActor): void {
    actor.synced = undefined
    const g = this.groupOf.get(actor)
    if (g !== undefined) g.syncedTo = undefined
  }

  get size(): number {
    return this.actors.size
  }

  /**
   * Steps the due actors whose state may differ from their pair's matches (the pairs were
   * evaluated for this tick); restarting actors wait.
   */
  step(due: ReadonlySet<Cadence>, dueBits: number, fault: FaultHook | undefined, now: number, out: TickSteps): void {
    for (const g of this.groups.values()) {
      if ((g.cadenceBits & dueBits) === 0) continue
      const matched = g.pair.result
      if (matched === undefined) continue
      if (g.syncedTo === matched) {
        // every member holds these matches already (the common case: nothing moved)
        for (let i = 0; i < CADENCES.length; i++) if ((dueBits >> i) & 1) out.evaluated += g.cadenceCounts[i]!
        continue
      }
      let all = true
      for (const actor of g.members) {
        if (!due.has(actor.config.cadence)) {
          if (actor.synced !== matched) all = false
          continue
        }
        out.evaluated++
        if (actor.upToDate(matched, now)) continue
        if (actor.state === undefined) {
          all = false
          continue
        }
        const clear = actor.clearPair?.result
        const r = actor.step(
          { _tag: "Evaluate", matched, clear: actor.clearPair === undefined ? undefined : (clear ?? EMPTY) },
          fault,
          now
        )
        if ("failed" in r) {
          all = false
          out.failed.push({ actor, defect: r.failed })
          continue
        }
        // provisional: undone (`unsync`) when the change is not stored
        actor.synced = matched
        actor.syncedClear = clear
        out.stepped.push(actor)
        if (r.changed) out.outcomes.push(r)
      }
      if (all && g.special === 0) g.syncedTo = matched
    }
  }
}
