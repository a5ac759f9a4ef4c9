/**
 * The actors of this process and the slices they live in: which webhooks
 * have an actor (the active ones of the slices held), kept in step with the
 * store — changes made through any process (`sync`, rows with a higher
 * `version`), slices taken and given up (`own`), deletions (`forgetDeleted`),
 * actors restarted from their stored state (`reload`, `restartDue`).
 *
 * Not an Effect service: the alerts service (`Alerts.ts`) owns one and calls
 * it under its lock, one tick or change at a time.
 */
import { Effect, Metric } from "effect"
import type { CompiledQuery } from "../query/index.js"
import type { EvaluatorState } from "../store/evaluatorState.js"
import type { WebhookRecord } from "../store/webhooks.js"
import { actorsAlive, actorsRestarting, WebhookActor } from "./actor.js"
import { configOf, Interner, stateOf } from "./actorConfig.js"
import type { Pairs } from "./pairs.js"
import { SLICES, Slice } from "./slice.js"
import type { TickerIds } from "./tickerIds.js"

/** changed webhooks' keys read per query when the evaluator picks up changes (all of them at start) */
const SYNC_PAGE = 20_000
/** full webhook rows read per query (a start reads every held one) */
const ROWS_PAGE = 2_000

const slicesOwned = Metric.gauge("webhook_slices_owned", {
  description: "Webhook slices with at least one actor in this process"
})
const slicesHeld = Metric.gauge("webhook_slices_held", {
  description:
    "Webhook slices this process evaluates (1,024 when it holds every one; a runner: those the cluster placed on it)"
})

export class Roster {
  readonly actors = new Map<string, WebhookActor>()
  readonly slices = new Map<number, Slice>()
  /** actors waiting out a restart backoff */
  readonly restarting = new Set<WebhookActor>()
  private readonly interner = new Interner()
  /** the highest webhook version a sync has read, and where the next sync reads from */
  private version = 0
  private syncFrom = 0
  private loaded = false
  /**
   * The state writer (see `EvaluatorState.stateWriter`) as of which every actor's state is the stored
   * one: read before the first load, and this process after each of its commits.
   */
  known: { readonly holder: string; readonly seq: number } | undefined
  /** slices taken since the last tick: evaluated against the current tick without waiting for the next */
  taken = false

  constructor(
    private readonly store: EvaluatorState,
    readonly pairs: Pairs,
    readonly ids: TickerIds,
    /**
     * the slices this process evaluates: every one (the only evaluating process, on the embedded
     * store), or those the cluster gave it (`own`; a runner starts with none)
     */
    public owned: ReadonlySet<number> | "all"
  ) {}

  owns(slice: number): boolean {
    return this.owned === "all" || this.owned.has(slice)
  }

  /** the slices held, listed (undefined: every one) */
  heldList(): ReadonlyArray<number> | undefined {
    return this.owned === "all" ? undefined : [...this.owned]
  }

  sliceFor(n: number): Slice {
    let s = this.slices.get(n)
    if (s === undefined) {
      s = new Slice(n)
      this.slices.set(n, s)
    }
    return s
  }

  /** set at once (each change made through the API sets them: four `Metric.set` effects were a create's cost) */
  readonly gauges = Effect.sync(() => {
    actorsAlive.unsafeUpdate(this.actors.size, [])
    actorsRestarting.unsafeUpdate(this.restarting.size, [])
    slicesOwned.unsafeUpdate(this.slices.size, [])
    slicesHeld.unsafeUpdate(this.owned === "all" ? SLICES : this.owned.size, [])
  })

  /**
   * Puts an actor in its slice, in the group of its pair (none when its q does not compile), and
   * joins its `clear_q`'s pair (evaluated on the ticks it is due).
   */
  private attach(actor: WebhookActor, compiled: CompiledQuery | undefined) {
    this.sliceFor(actor.slice).add(actor, compiled === undefined ? undefined : this.pairs.join(compiled, actor.config))
    const clearQ = actor.config.firing.clearQ
    const clear = clearQ === null || compiled === undefined ? undefined : this.pairs.compile(clearQ)
    // over the whole market: a ticker inside leaves when `clear_q` holds for it, also once it left the
    // webhook's universe (in scope only, it could never leave)
    actor.clearPair =
      clear === undefined ? undefined : this.pairs.join(clear, { ...actor.config, q: clearQ!, universeId: null })
  }

  private detach(actor: WebhookActor) {
    const slice = this.sliceFor(actor.slice)
    const pair = slice.remove(actor)
    if (pair !== undefined) this.pairs.leave(pair, actor.config.cadence)
    if (actor.clearPair !== undefined) this.pairs.leave(actor.clearPair, actor.config.cadence)
    actor.clearPair = undefined
    if (slice.size === 0) this.slices.delete(slice.number)
  }

  /** the actor is no longer known to hold its pair's result (it diffs again on the next tick) */
  unsync(actor: WebhookActor) {
    this.sliceFor(actor.slice).unsync(actor)
  }

  stop(id: string) {
    const actor = this.actors.get(id)
    if (actor === undefined) return
    this.detach(actor)
    this.actors.delete(id)
    this.restarting.delete(actor)
  }

  /** the actor takes the stored state `w` (it is no longer known to hold its pair's result) */
  private reset(actor: WebhookActor, w: WebhookRecord) {
    this.unsync(actor)
    actor.reset(stateOf(w, this.ids))
    this.restarting.delete(actor)
  }

  /**
   * Starts, reconfigures or stops the actor of a webhook after a change of its row. A row
   * applied outside `sync` (a change made through this process, a slice taken) does not move
   * the sync's cursor: rows changed by others before it must still be read.
   */
  apply(w: WebhookRecord, cursor = true, compiledQ?: CompiledQuery) {
    return Effect.suspend(() => {
      if (cursor && w.version > this.version) this.version = w.version
      const current = this.actors.get(w.id)
      if (w.status !== "active" || !this.owns(w.slice)) {
        this.stop(w.id)
        return Effect.void
      }
      // the very row this actor was made from (read again by the next sync): nothing to do
      if (current !== undefined && current.version === w.version) return Effect.void
      // a compilation of the very text, made without custom signals (the create's own): as compiling it here
      const compiled =
        compiledQ !== undefined && compiledQ.text === w.q && compiledQ.signals.length === 0
          ? compiledQ
          : this.pairs.compile(w.q)
      if (current !== undefined) {
        current.version = w.version
        const rearmed = current.state === undefined || current.state.armedAt !== w.armedAt
        this.detach(current)
        current.reconfigure(configOf(w, this.interner))
        this.attach(current, compiled)
        if (rearmed) this.reset(current, w)
        // its options may have changed: it is stepped on the next tick under them
        else this.unsync(current)
        return Effect.void
      }
      this.interner.bound(4 * this.actors.size + 1_024)
      // the first life starts from the row just read: no query per actor
      const actor = new WebhookActor(w.id, w.slice, configOf(w, this.interner), stateOf(w, this.ids))
      actor.version = w.version
      this.actors.set(w.id, actor)
      this.attach(actor, compiled)
      return compiled !== undefined
        ? Effect.void
        : Effect.logWarning("webhook q does not compile; not evaluated").pipe(Effect.annotateLogs({ webhook_id: w.id }))
    })
  }

  /**
   * Picks up every webhook change since the sync before last (any process's). Versions come
   * from a sequence, so a transaction can commit a lower version after a higher one was read:
   * each sync reads again from the highest version the previous sync started from, so a change
   * committed up to one tick late is still seen (a row read twice is applied twice, harmlessly).
   */
  readonly sync = Effect.gen(this, function* () {
    if (!this.loaded) this.known = yield* this.store.stateWriter
    const seenBefore = this.version
    let cursor = this.loaded ? this.syncFrom : 0
    let any = false
    for (let page = 0; ; page++) {
      const changed = yield* this.store.changedSince(cursor, SYNC_PAGE, page === 0)
      this.loaded = true
      // the full rows of those this process evaluates and holds no actor of that version for
      const wanted: Array<string> = []
      for (const k of changed) {
        if (k.version > this.version) this.version = k.version
        if (k.status !== "active" || !this.owns(k.slice)) this.stop(k.id)
        else if (this.actors.get(k.id)?.version !== k.version) wanted.push(k.id)
      }
      for (let from = 0; from < wanted.length; from += ROWS_PAGE) {
        for (const w of yield* this.store.states(wanted.slice(from, from + ROWS_PAGE))) yield* this.apply(w)
      }
      if (changed.length > 0) cursor = changed[changed.length - 1]!.version
      any ||= changed.length > 0
      if (changed.length < SYNC_PAGE) break
    }
    this.syncFrom = seenBefore
    if (any) yield* this.gauges
  })

  /** Stops the actors of webhooks deleted through another process (a cheap check first). */
  readonly forgetDeleted = Effect.gen(this, function* () {
    const summary = yield* this.store.activeSummary(this.heldList())
    if (summary.version <= this.version && summary.active === this.actors.size) return
    const known = [...this.actors.keys()]
    const existing = yield* this.store.existing(known)
    for (const id of known) if (!existing.has(id)) this.stop(id)
  })

  /** The stored states of `wanted` taken by their actors; a webhook gone or no longer active loses its actor. */
  reload(wanted: ReadonlyArray<string>) {
    return Effect.gen(this, function* () {
      const found = new Set<string>()
      for (const w of yield* this.store.states(wanted)) {
        found.add(w.id)
        const actor = this.actors.get(w.id)
        if (actor === undefined) continue
        if (w.status !== "active") this.stop(w.id)
        else this.reset(actor, w)
      }
      for (const id of wanted) if (!found.has(id)) this.stop(id)
    })
  }

  /** Restarted actors whose backoff has passed take their stored state. */
  restartDue(now: number): Effect.Effect<void, unknown> {
    const due = [...this.restarting].filter((a) => a.retryAt <= now).map((a) => a.id)
    return due.length > 0 ? this.reload(due) : Effect.void
  }

  /**
   * The slices this process evaluates from now on ("all", or a set): the actors of slices it
   * gives up stop; the webhooks of slices it takes are read from the store with their stored
   * states (a slice that moved here carries on where its last runner committed).
   */
  own(slices: ReadonlySet<number> | "all") {
    return Effect.gen(this, function* () {
      const before = this.owned
      this.owned = slices
      for (const actor of [...this.actors.values()]) if (!this.owns(actor.slice)) this.stop(actor.id)
      if (slices === "all" && before !== "all") {
        // every slice: read them all again (the rows of slices not held were skipped)
        this.loaded = false
        yield* this.sync
      } else if (slices !== "all" && before === "all") {
        // the actors of the slices kept are loaded (a first load reads only theirs)
        yield* this.sync
      } else if (slices !== "all" && before !== "all") {
        const gained = [...slices].filter((n) => !before.has(n))
        for (const w of yield* this.store.sliceWebhooks(gained)) yield* this.apply(w, false)
        if (gained.length > 0) this.taken = true
      }
      yield* this.gauges
    })
  }
}
