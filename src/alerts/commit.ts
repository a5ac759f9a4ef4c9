/**
 * A tick's commit: the changed match states and the fires they cause,
 * stored together (the outbox), each state write guarded by the webhook's
 * state sequence, so a transition is stored — and fired — at most once
 * whoever else evaluates the same tick.
 *
 * The outcomes of every slice a runner stepped are committed in
 * transactions of at most `COMMIT_CHUNK` webhooks and about `COMMIT_BYTES`
 * of payloads (a webhook's state and its fire always in the same one): each
 * write carries its own guard, so grouping slices costs no safety, and a
 * tick on which most webhooks change (a first evaluation: ~300 MB of
 * payloads with 100,000 webhooks) never holds more than one transaction's
 * payloads at once. The tick is recorded for the slices evaluated with the
 * last transaction: a runner that dies between two leaves its slices behind
 * that tick, and their next holder evaluates it again — the states already
 * written are the ones it loads, so nothing fires twice.
 */
import { Effect, Option } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { newEventId } from "../delivery/signing.js"
import type { Snapshot } from "../market/snapshot.js"
import type { NewDelivery } from "../store/deliveries.js"
import type { EvaluatorState, MatchChange, NewEvent, SliceTick } from "../store/evaluatorState.js"
import type { Cadence } from "../store/webhooks.js"
import type { Outcome, WebhookActor } from "./actor.js"
import { encodeMemory } from "./firing/machine.js"
import { newDeliveryId } from "./ids.js"
import { FireRenderer } from "./payload.js"
import type { TickerIds } from "./tickerIds.js"

/** webhooks whose new states (and fires) are written per transaction, at most */
const COMMIT_CHUNK = 2_000
/** payload characters per transaction, about (one fire more may pass it) */
const COMMIT_BYTES = 4 * 2 ** 20
/** deltas stored on top of a full write of a match set before it is written in full again */
const MAX_DELTAS = 16

export interface CommitInput {
  readonly store: EvaluatorState
  readonly ids: TickerIds
  readonly actorOf: (id: string) => WebhookActor | undefined
  readonly snapshot: Snapshot
  readonly now: number
  /** the cadences this tick evaluated (their tick time is recorded with the first transaction) */
  readonly due: ReadonlyArray<Cadence>
  /**
   * the state writer (see `EvaluatorState.stateWriter`) of a process holding every slice;
   * undefined for a runner (its slices are its own: no counter row for runners to contend on)
   */
  readonly writer: string | undefined
  /** the stored tick evaluated: it fences every transaction, and the last records it for the slices */
  readonly sliceTick?: Omit<SliceTick, "record"> | undefined
}

/** One stored transaction's result, for the actors. */
export interface Committed {
  readonly outcomes: ReadonlyArray<Outcome>
  /** the webhooks whose state was written */
  readonly written: ReadonlySet<string>
  /** the delta count each written state has now */
  readonly deltasAfter: ReadonlyMap<string, number>
  /** the state writer's counter after this transaction (undefined: it wrote no state) */
  readonly writerSeq: number | undefined
}

/**
 * Commits the changed outcomes (`outcomes` slots are emptied as they are taken), calling
 * `stored` after each transaction; the states changed and the fires queued.
 */
export const commitOutcomes = <E, R>(
  input: CommitInput,
  outcomes: Array<Outcome | undefined>,
  stored: (c: Committed) => Effect.Effect<void, E, R>
) =>
  Effect.gen(function* () {
    const { ids, now } = input
    let changed = 0
    let fires = 0
    let commitMs = 0
    // DASHBOARD_URL: each fired row links to its chart (read where it is configured: the service)
    const dashboard = Option.flatMap(yield* Effect.serviceOption(AppConfig), (c) => c.dashboardUrl)
    const renderer = new FireRenderer(input.snapshot, now, Option.getOrUndefined(Option.map(dashboard, (u) => u.href)))
    let next = 0
    do {
      /** a set in full, comma-separated: once per distinct array (members of a pair share theirs) */
      const joined = new Map<Int32Array, string>()
      const joinedNames = (set: Int32Array) => {
        let text = joined.get(set)
        if (text === undefined) {
          text = ids.namesOf(set).join(",")
          joined.set(set, text)
        }
        return text
      }
      const chunk: Array<Outcome> = []
      const changes: Array<MatchChange> = []
      const deliveries: Array<NewDelivery> = []
      const events: Array<NewEvent> = []
      const deltasAfter = new Map<string, number>()
      let bytes = 0
      while (next < outcomes.length && chunk.length < COMMIT_CHUNK && bytes < COMMIT_BYTES) {
        const o = outcomes[next]!
        // taken: the tick no longer holds it (its arrays go with this transaction)
        outcomes[next++] = undefined
        const actor = input.actorOf(o.id)
        if (actor === undefined) continue
        chunk.push(o)
        const fired = o.events.some((e) => e.type === "webhook.fired")
        // a few changed tickers go into the stored delta; the whole set is written again after
        // MAX_DELTAS deltas, or when the change is as big as the set (a first evaluation)
        const full = o.deltas >= MAX_DELTAS || 2 * (o.added.length + o.removed.length) >= o.matchSet.length + 8
        const matchSet = () => joinedNames(o.matchSet)
        changes.push({
          id: o.id,
          armedAt: o.armedAt,
          stateSeq: o.stateSeq,
          write: full
            ? { _tag: "Full", matchSet: matchSet() }
            : { _tag: "Delta", added: ids.namesOf(o.added), removed: ids.namesOf(o.removed), matchSet },
          fired,
          eventSeq: o.eventSeq,
          memory: o.memory === undefined ? "" : encodeMemory(o.memory, (id) => ids.nameOf(id))
        })
        deltasAfter.set(o.id, full ? 0 : o.deltas + 1)
        const w = actor.config
        for (const e of o.events) {
          const payload = renderer.render({
            webhookId: o.id,
            name: w.name,
            q: w.q,
            added: ids.namesOf(e.tickers),
            fields: w.fields,
            place: {
              type: e.type,
              sequence: e.sequence,
              dataAsOf: input.snapshot.asOf,
              repeated: e.repeated.length === 0 ? undefined : new Set(ids.namesOf(e.repeated))
            }
          })
          bytes += payload.length
          // the body is stored once: with the delivery that sends it, else (suppressed) with the event
          const deliveryId = e.suppressed ? null : newDeliveryId(now)
          events.push({
            webhookId: o.id,
            sequence: e.sequence,
            type: e.type,
            dataAsOf: input.snapshot.asOf,
            suppressed: e.suppressed,
            deliveryId,
            body: payload
          })
          if (deliveryId === null) continue
          deliveries.push({
            id: deliveryId,
            webhookId: o.id,
            accountId: w.accountId,
            event: e.type,
            eventId: newEventId(),
            channel: w.channel,
            targetUrl: w.target,
            test: false,
            payload,
            dueAt: now
          })
        }
      }
      const built = performance.now()
      const last = next >= outcomes.length
      const { written, writerSeq } = yield* input.store.commitTick(
        now,
        input.due,
        changes,
        deliveries,
        input.writer,
        input.sliceTick === undefined ? undefined : { ...input.sliceTick, record: last },
        events
      )
      commitMs += performance.now() - built
      yield* stored({ outcomes: chunk, written, deltasAfter, writerSeq })
      changed += changes.length
      fires += deliveries.filter((d) => d.event === "webhook.fired" && written.has(d.webhookId)).length
    } while (next < outcomes.length)
    return { changes: changed, fires, commitMs }
  })
