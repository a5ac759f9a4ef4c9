/**
 * The evaluator and the supervisor of the webhook actors.
 *
 * On every published snapshot: pick up webhook changes made through any
 * instance (rows with a higher `version`), decide which cadences are due,
 * evaluate each distinct (predicate, scope) pair once — the q language's
 * compiled evaluator into one reused buffer, over the whole snapshot or only
 * the rows of the universe — hand its matches to every due actor of the
 * pair whose state may differ from them, and commit the changed match states
 * together with their fires (the outbox) in one transaction. Actors adopt
 * the new state only after that commit.
 *
 * Cost per tick with 100,000 webhooks (docs/benchmarks.md): a pair none of
 * whose columns changed on its rows is not evaluated at all, one with few
 * changed rows is evaluated on those only (`incremental.ts`); a pair whose
 * matches did not change, and whose actors are known to hold exactly those
 * matches (`Handle.synced`, `Group.syncedTo`), costs nothing else — no
 * message, no diff, no write. Match sets are sorted ticker ids
 * (`tickerIds.ts`) shared by reference between a pair and its actors; the
 * store appends match-set deltas (`Webhooks.commitTick`).
 *
 * `evaluated` tells `POST /admin/refresh` when a snapshot has been evaluated
 * and its fires queued.
 */
import { randomBytes } from "node:crypto"
import {
  Cause,
  Clock,
  Deferred,
  Effect,
  Fiber,
  FiberRef,
  Metric,
  MetricBoundaries,
  Option,
  Runtime,
  Stream,
  SubscriptionRef
} from "effect"
import { newEventId } from "../delivery/signing.js"
import { DeliveryWake } from "../delivery/wake.js"
import { CATALOG } from "../market/catalog.js"
import { DAY_MS } from "../market/indicators/days.js"
import { Market } from "../market/Market.js"
import type { Snapshot } from "../market/snapshot.js"
import { type CompiledQuery, columnsOf, compileQuery, flat, type Predicate } from "../query/index.js"
import type { NewDelivery } from "../store/deliveries.js"
import { EvaluatorState, type MatchChange } from "../store/evaluatorState.js"
import { type Cadence, effectiveLastEvaluated, type WebhookRecord, Webhooks } from "../store/webhooks.js"
import {
  ActorInbox,
  type ActorState,
  actorRestarts,
  actorsAlive,
  type FaultHook,
  type Message,
  type Outcome,
  runActor,
  SharedQueueScheduler,
  Tick
} from "./actor.js"
import { CADENCES, isDue } from "./cadence.js"
import {
  ColumnChanges,
  columnIdsOf,
  dirtyRows,
  intersectRows,
  patchIds,
  restrictionRows,
  tickerRestriction
} from "./incremental.js"
import { FireRenderer } from "./payload.js"
import { EMPTY, sameIds, single, sortedDistinct, TickerIds } from "./tickerIds.js"

/** webhooks whose new states (and fires) are written per transaction, at most */
const COMMIT_CHUNK = 2_000
/** payload characters per transaction, about (one fire more may pass it) */
const COMMIT_BYTES = 4 * 2 ** 20
/** deltas stored on top of a full write of a match set before it is written in full again */
const MAX_DELTAS = 16
/** compiled predicates kept at least (see `compile` in `Alerts`) */
const MIN_COMPILED = 16_384
const COLUMNS = columnsOf(CATALOG)
/** webhook rows read per query when the evaluator picks up changes (all of them at start) */
const SYNC_PAGE = 2_000

const evaluationDuration = Metric.histogram(
  "webhook_evaluation_duration_seconds",
  MetricBoundaries.fromIterable([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]),
  "Time to evaluate every due webhook against one snapshot, store the changes and queue the fires"
)
const firesTotal = Metric.counter("webhook_fires_total", {
  description: "webhook.fired events queued by evaluations",
  incremental: true
})
const mailboxDepth = Metric.gauge("webhook_actor_mailbox_depth", {
  description: "Messages waiting in webhook actor mailboxes (sum), sampled at each evaluation"
})
const evaluationFailures = Metric.counter("webhook_evaluation_failures_total", {
  description: "Evaluation ticks that failed (their changes are retried on the next tick)",
  incremental: true
})

export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString("base64url")}`

let deliverySeq = 0
/**
 * A delivery id that sorts in creation order within a process (the time, then a counter), so the
 * fires of one tick list in a stable order even within one second.
 */
const newDeliveryId = (now: number) =>
  `dlv_${Math.max(0, now).toString(36).padStart(9, "0")}${(deliverySeq++ % 36 ** 5).toString(36).padStart(5, "0")}${randomBytes(6).toString("base64url")}`

/** The delivery target shown on records: never a secret. */
export const displayTarget = (w: Pick<WebhookRecord, "channel" | "targetUrl" | "deviceId">): string =>
  w.channel === "webhook"
    ? (w.targetUrl ?? "")
    : w.channel === "chat"
      ? "chat"
      : w.channel === "in_app"
        ? "in_app"
        : `push:${w.deviceId ?? ""}`

interface Handle {
  record: WebhookRecord
  readonly mailbox: ActorInbox<Message>
  /** the actor (supervised: it ends only when interrupted, or when its webhook is gone at a restart) */
  readonly fiber: Fiber.RuntimeFiber<void>
  /** its (predicate, scope) pair; undefined when `q` does not compile */
  group: Group | undefined
  /**
   * the pair's result the actor is known to hold (and the store to have): the
   * actor is skipped while the pair's result is this very array
   */
  synced: Int32Array | undefined
}

/** the universe a webhook watches: the whole market, a top list, or an account's own universe */
type Scope =
  | { readonly _tag: "All" }
  | { readonly _tag: "Top"; readonly size: 10 | 100 }
  | { readonly _tag: "Own"; readonly accountId: string; readonly universeId: string }

/** adds `delta` members of `cadence` to a group's counts and bits */
const countCadence = (g: Group, cadence: Cadence, delta: number) => {
  const i = CADENCES.indexOf(cadence)
  g.cadenceCounts[i]! += delta
  if (g.cadenceCounts[i]! > 0) g.cadenceBits |= 1 << i
  else g.cadenceBits &= ~(1 << i)
}

/** One distinct (predicate, scope) pair and the webhooks that share it. */
interface Group {
  readonly key: string
  readonly scopeKey: string
  /** a member's `q`: compiled again when the pair is evaluated and its compiled form was evicted */
  readonly q: string
  /** it reads other tickers' rows (`AAPL.price`): never patched */
  readonly crossTicker: boolean
  readonly scope: Scope
  readonly members: Set<Handle>
  /** members per cadence (by index in CADENCES) */
  readonly cadenceCounts: Array<number>
  /** bit i set when some member has cadence CADENCES[i]: a tick tests it against its due bits */
  cadenceBits: number
  /** every member is known to hold this result (`Handle.synced`): the group's actors need no message */
  syncedTo: Int32Array | undefined
  /** the ticker ids matching at the last evaluation (the same array while they do not change) */
  result: Int32Array | undefined
  /** the snapshot `result` was computed on, and the rows of the scope then (undefined: every row) */
  evaluatedOn: Snapshot | undefined
  rowsUsed: Int32Array | undefined
  /** the columns the predicate reads (ids, see `incremental.ts`) */
  readonly columnIds: Int32Array
  /** the tickers a `ticker = '…'` conjunct restricts the predicate to (see `incremental.ts`) */
  readonly restriction: ReadonlyArray<string> | undefined
  /** the rows it can match in the last snapshot index and scope: `restriction` ∩ scope */
  candidates: { index: ReadonlyMap<string, number>; scope: Int32Array | undefined; rows: Int32Array } | undefined
}

const scopeOf = (w: WebhookRecord): readonly [string, Scope] =>
  w.universeId === null
    ? ["", { _tag: "All" }]
    : w.universeId === "top_10" || w.universeId === "top_100"
      ? [w.universeId, { _tag: "Top", size: w.universeId === "top_10" ? 10 : 100 }]
      : [`${w.accountId}/${w.universeId}`, { _tag: "Own", accountId: w.accountId, universeId: w.universeId }]

/** ascending rows of `tickers` in a snapshot (those it has) */
const rowsOf = (index: ReadonlyMap<string, number>, tickers: ReadonlyArray<string>): Int32Array => {
  const rows: Array<number> = []
  for (const t of tickers) {
    const r = index.get(t)
    if (r !== undefined) rows.push(r)
  }
  return sortedDistinct(Int32Array.from(rows))
}

const NO_TICKERS: ReadonlyArray<string> = []
const NO_ORIGIN = { type: "query", ref: null, condition: null } as const

/**
 * One copy of the strings and field lists that many webhooks share (account and universe ids,
 * `q`, cadence, channel, status, target, fields): every row read from the store brings its own copies.
 * Cleared when it outgrows the webhooks it serves, so deleted webhooks' values do not pile up
 * (records keep the copies they have).
 */
class Interner {
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

/**
 * A record as a handle keeps it (100,000 of them): the match set lives in the actor (as ticker
 * ids), the secrets and the origin are not needed to evaluate and queue fires, and shared values
 * are single copies (`Interner`).
 */
const slim = (w: WebhookRecord, interner: Interner): WebhookRecord => ({
  ...w,
  accountId: interner.of(w.accountId),
  q: interner.of(w.q),
  universeId: interner.of(w.universeId),
  cadence: interner.of(w.cadence),
  channel: interner.of(w.channel),
  status: interner.of(w.status),
  targetUrl: interner.of(w.targetUrl),
  disabledReason: null,
  fields: interner.list(w.fields),
  lastMatchSet: NO_TICKERS,
  signingSecret: null,
  previousSecret: null,
  chatUrl: null,
  origin: NO_ORIGIN
})

/** the same rows (both every row, or equal lists) */
const sameRows = (a: Int32Array | undefined, b: Int32Array | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && sameIds(a, b))

export interface EvaluationResult {
  readonly asOf: number
  readonly ok: boolean
  readonly evaluated: number
  readonly fires: number
  /** another instance holds the evaluator lease and evaluated this refresh */
  readonly skipped?: boolean
  /** why the evaluation failed (ok false) */
  readonly error?: string
  /** wall time of each phase (ms) and counts, for metrics and the benchmark */
  readonly phases?: {
    readonly sync: number
    readonly evaluate: number
    readonly diff: number
    readonly persist: number
    /** the part of `persist` spent in the store's transaction (the rest: building the fires) */
    readonly commit: number
    readonly messaged: number
    readonly changed: number
    /** (predicate, scope) pairs due: skipped (no column they read changed on their rows), patched, evaluated in full */
    readonly pairs: { readonly skipped: number; readonly patched: number; readonly full: number }
  }
}

export class Alerts extends Effect.Service<Alerts>()("vigil/Alerts", {
  scoped: Effect.gen(function* () {
    const market = yield* Market
    const webhooks = yield* Webhooks
    const stateStore = yield* EvaluatorState
    const wake = yield* DeliveryWake
    /**
     * The runtime the actors are forked from (this service's context and logger, and a scheduler
     * with one queue for all actors: `SharedQueueScheduler`). Each actor fiber is kept on its
     * handle, not in a `FiberMap`: ~370 bytes less per actor (docs/benchmarks.md).
     */
    const runtime = Runtime.setFiberRef(
      yield* Effect.runtime<never>(),
      FiberRef.currentScheduler,
      new SharedQueueScheduler()
    )
    const handles = new Map<string, Handle>()
    // the actors end with the service
    yield* Effect.addFinalizer(() => Fiber.interruptAll([...handles.values()].map((h) => h.fiber)))
    const groups = new Map<string, Group>()
    const compiledByText = new Map<string, Predicate | undefined>()
    const interner = new Interner()
    const ids = new TickerIds()
    // the directory first, ascending: id order is ticker order
    for (const t of [...market.directory.all].map((m) => m.ticker).sort()) ids.idOf(t)
    let version = 0
    let loaded = false
    let fault: FaultHook | undefined
    let lastForget = 0
    /** every actor's state is the stored one (false after a tick another instance evaluated) */
    let inSync = true
    const lastCadence = new Map<Cadence, number>()
    const evaluated = yield* SubscriptionRef.make<EvaluationResult>({ asOf: 0, ok: true, evaluated: 0, fires: 0 })
    const lock = yield* Effect.makeSemaphore(1)
    /** the evaluation buffer, reused every tick */
    let buffer = new Int32Array(0)
    /** the snapshot of the last evaluation: the pairs evaluated on it are patched from it (`incremental.ts`) */
    let lastSnapshot: Snapshot | undefined
    /** digests of own universes (null: none by that id) as of `version` of the universes' change counter */
    const digests = { version: -1, known: new Map<string, string | null>() }
    /** own universes: the digest of the list last read, and its rows in the snapshot index they were made for */
    const ownUniverses = new Map<
      string,
      { digest: string; tickers: ReadonlyArray<string>; index: ReadonlyMap<string, number>; rows: Int32Array }
    >()
    const topRows = new Map<
      10 | 100,
      { ranked: ReadonlyArray<string>; index: ReadonlyMap<string, number>; rows: Int32Array }
    >()

    /** Compiles a `q` (not cached): to group a webhook by its predicate's key, columns and tickers. */
    const compile = (q: string): CompiledQuery | undefined => {
      const r = compileQuery(q, {
        columns: COLUMNS,
        tickers: (s) => market.directory.lookup(s)?.ticker,
        signals: undefined,
        mode: "query"
      })
      return r._tag === "Right" ? r.right : undefined
    }

    /**
     * The row selection of a `q` (`Predicate`: its plan alone, ~3 KB), through a cache of the most
     * recently used ones. Most pairs are skipped on most ticks (`incremental.ts`), so only about as
     * many as a tick evaluates are kept (`compiledCap`, at least MIN_COMPILED): with 100,000
     * webhooks that is ~350 MB less; a pair evicted is compiled again when it next needs evaluating.
     */
    const predicate = (q: string): Predicate | undefined => {
      if (compiledByText.has(q)) {
        const hit = compiledByText.get(q)
        compiledByText.delete(q)
        compiledByText.set(q, hit)
        return hit
      }
      const p = compile(q)?.predicate
      compiledByText.set(q, p)
      while (compiledByText.size > compiledCap) compiledByText.delete(compiledByText.keys().next().value!)
      return p
    }
    let compiledCap = MIN_COMPILED

    const stateOf = (w: WebhookRecord): ActorState => ({
      armedAt: w.armedAt,
      stateSeq: w.stateSeq,
      lastSet: ids.sortedIds(w.lastMatchSet),
      deltas: w.matchDeltas
    })

    const faultHook: FaultHook = (id, m) => fault?.(id, m)

    const loadState = (id: string): Effect.Effect<ActorState | undefined> =>
      webhooks.getById(id).pipe(
        Effect.map((w) => (w === undefined || w.status !== "active" ? undefined : stateOf(w))),
        Effect.retry({ times: 5 }),
        Effect.orDie
      )

    /** Puts a webhook in the group of its (predicate, scope) pair; none when its q does not compile. */
    const attach = (h: Handle, compiled: CompiledQuery | undefined) => {
      if (compiled === undefined) return
      const [scopeKey, scope] = scopeOf(h.record)
      const key = flat(`${compiled.key}\u0000${scopeKey}`)
      let group = groups.get(key)
      if (group === undefined) {
        group = {
          key,
          scopeKey,
          q: h.record.q,
          crossTicker: compiled.tickers.length > 0,
          scope,
          members: new Set(),
          cadenceCounts: CADENCES.map(() => 0),
          cadenceBits: 0,
          syncedTo: undefined,
          result: undefined,
          evaluatedOn: undefined,
          rowsUsed: undefined,
          columnIds: columnIdsOf(compiled.columns),
          restriction: tickerRestriction(compiled.ir),
          candidates: undefined
        }
        groups.set(key, group)
      }
      group.members.add(h)
      countCadence(group, h.record.cadence, 1)
      group.syncedTo = undefined
      h.group = group
    }

    /** the actor is no longer known to hold its pair's result: it is messaged on the next tick */
    const unsync = (h: Handle) => {
      h.synced = undefined
      if (h.group !== undefined) h.group.syncedTo = undefined
    }

    const detach = (h: Handle) => {
      const group = h.group
      if (group === undefined) return
      group.members.delete(h)
      countCadence(group, h.record.cadence, -1)
      if (group.members.size === 0) groups.delete(group.key)
      h.group = undefined
    }

    const stop = (id: string) =>
      Effect.gen(function* () {
        const h = handles.get(id)
        if (h !== undefined) detach(h)
        handles.delete(id)
        if (h !== undefined) yield* Fiber.interrupt(h.fiber)
        yield* Metric.set(actorsAlive, handles.size)
      })

    /**
     * The state writer (see `EvaluatorState.stateWriter`) as of which every actor's state is the stored
     * one: read before the first load, and this instance after each of its commits.
     */
    let known: { readonly holder: string; readonly seq: number } | undefined

    /** the actor takes the stored state `w` (it is no longer known to hold its pair's result) */
    const reset = (h: Handle, w: WebhookRecord) => {
      unsync(h)
      h.mailbox.offer({
        _tag: "Reset",
        armedAt: w.armedAt,
        stateSeq: w.stateSeq,
        matchSet: ids.sortedIds(w.lastMatchSet),
        deltas: w.matchDeltas
      })
    }

    /** Starts, reconfigures or stops the actor of a webhook after a change of its row. */
    const apply = (w: WebhookRecord) =>
      Effect.gen(function* () {
        if (w.version > version) version = w.version
        const current = handles.get(w.id)
        if (w.status !== "active") {
          if (current !== undefined) yield* stop(w.id)
          return
        }
        if (current !== undefined) {
          const rearmed = current.record.armedAt !== w.armedAt
          detach(current)
          current.record = slim(w, interner)
          attach(current, compile(w.q))
          if (rearmed) reset(current, w)
          return
        }
        const mailbox = new ActorInbox<Message>()
        const compiled = compile(w.q)
        if (compiled === undefined) {
          yield* Effect.logWarning("webhook q does not compile; not evaluated").pipe(
            Effect.annotateLogs({ webhook_id: w.id })
          )
        }
        interner.bound(4 * handles.size + 1_024)
        // the first life starts from the row just read: no query per actor. No closure is made per
        // actor: one would keep this whole row (secrets included) alive as long as the actor
        const fiber = Runtime.runFork(runtime)(runActor(w.id, mailbox, stateOf(w), loadState, faultHook))
        const h: Handle = { record: slim(w, interner), mailbox, fiber, group: undefined, synced: undefined }
        handles.set(w.id, h)
        attach(h, compiled)
      })

    /** Picks up every webhook change since the last sync (any instance's), and forgets deleted webhooks. */
    const sync = Effect.gen(function* () {
      if (!loaded) known = yield* stateStore.stateWriter
      let any = false
      for (let page = 0; ; page++) {
        const changed = yield* stateStore.changedSince(loaded ? version : 0, SYNC_PAGE, page === 0)
        loaded = true
        for (const w of changed) yield* apply(w)
        any ||= changed.length > 0
        if (changed.length < SYNC_PAGE) break
      }
      if (any) yield* Metric.set(actorsAlive, handles.size)
    })

    /** Stops the actors of webhooks deleted through another instance (a cheap check first). */
    const forgetDeleted = Effect.gen(function* () {
      const summary = yield* stateStore.activeSummary
      if (summary.version <= version && summary.active === handles.size) return
      const known = [...handles.keys()]
      const existing = yield* stateStore.existing(known)
      for (const id of known) if (!existing.has(id)) yield* stop(id)
    })

    /** Every actor takes its stored state (after ticks this instance did not evaluate). */
    const reloadStates = Effect.gen(function* () {
      const stored = yield* stateStore.states([...handles.keys()])
      for (const w of stored) {
        const h = handles.get(w.id)
        if (h === undefined || w.status !== "active") continue
        reset(h, w)
      }
      inSync = true
    })

    /**
     * The rows each scope in use covers in this snapshot: undefined for the
     * whole market, an empty array for a universe that does not exist.
     */
    const scopeRows = (snapshot: Snapshot, due: ReadonlyArray<Group>) =>
      Effect.gen(function* () {
        const out = new Map<string, Int32Array | undefined>()
        const own = new Map<string, readonly [string, string]>()
        for (const g of due) if (g.scope._tag === "Own") own.set(g.scopeKey, [g.scope.accountId, g.scope.universeId])
        if (own.size > 0) {
          const keys = [...own.values()]
          // the digests are asked again only after some universe changed (a counter bumped in the
          // changing transaction), and for universes not asked about since
          const version = yield* stateStore.universesVersion
          if (version !== digests.version) {
            digests.known.clear()
            digests.version = version
          }
          const unknown = keys.filter(([a, u]) => !digests.known.has(`${a}/${u}`))
          if (unknown.length > 0) {
            const found = new Map<string, string>()
            for (const d of yield* stateStore.universeDigests(unknown)) found.set(`${d.account_id}/${d.id}`, d.digest)
            for (const [a, u] of unknown) digests.known.set(`${a}/${u}`, found.get(`${a}/${u}`) ?? null)
          }
          const stale = keys.filter(([a, u]) => {
            const key = `${a}/${u}`
            const digest = digests.known.get(key)
            return digest != null && ownUniverses.get(key)?.digest !== digest
          })
          for (const u of yield* stateStore.universeLists(stale)) {
            ownUniverses.set(`${u.account_id}/${u.id}`, {
              digest: u.digest,
              tickers: u.tickers,
              index: snapshot.index,
              rows: rowsOf(snapshot.index, u.tickers)
            })
          }
          for (const key of own.keys()) {
            const u = ownUniverses.get(key)
            if (u === undefined || digests.known.get(key) == null) {
              // deleted (or never existed): matches nothing until it exists again
              ownUniverses.delete(key)
              out.set(key, EMPTY)
              continue
            }
            if (u.index !== snapshot.index) {
              u.index = snapshot.index
              u.rows = rowsOf(snapshot.index, u.tickers)
            }
            out.set(key, u.rows)
          }
        }
        if (due.some((g) => g.scope._tag === "Top")) {
          const md = Option.getOrUndefined(yield* Effect.option(market.data))
          const ranked = md?.membershipOn(Math.floor(snapshot.asOf / DAY_MS))?.ranked ?? []
          for (const size of [10, 100] as const) {
            let cached = topRows.get(size)
            if (cached === undefined || cached.ranked !== ranked || cached.index !== snapshot.index) {
              cached = { ranked, index: snapshot.index, rows: rowsOf(snapshot.index, ranked.slice(0, size)) }
              topRows.set(size, cached)
            }
            out.set(`top_${size}`, cached.rows)
          }
        }
        return out
      })

    /** the rows a pair can match: its ticker restriction within its scope, else the scope (undefined: all) */
    const candidatesOf = (g: Group, snapshot: Snapshot, rows: Int32Array | undefined): Int32Array | undefined => {
      if (g.restriction === undefined) return rows
      const c = g.candidates
      if (c !== undefined && c.index === snapshot.index && c.scope === rows) return c.rows
      const own = restrictionRows(snapshot, g.restriction)
      const cand = rows === undefined ? own : intersectRows(own, rows)
      g.candidates = { index: snapshot.index, scope: rows, rows: cand }
      return cand
    }

    /** Evaluates a pair in full: its matches as sorted ticker ids. */
    const evaluateFull = (
      g: Group,
      snapshot: Snapshot,
      rowIds: { readonly ids: Int32Array; readonly monotonic: boolean },
      rows: Int32Array | undefined
    ): Int32Array => {
      if (rows !== undefined && rows.length === 0) return EMPTY
      const p = predicate(g.q)
      if (p === undefined) return EMPTY
      const n = p.evaluateInto(snapshot, buffer, rows)
      if (n <= 1) return n === 0 ? EMPTY : single(rowIds.ids[buffer[0]!]!)
      const next = new Int32Array(n)
      for (let i = 0; i < n; i++) next[i] = rowIds.ids[buffer[i]!]!
      if (!rowIds.monotonic) next.sort()
      return next
    }

    /**
     * Evaluates a pair: its matches as sorted ticker ids, the previous array when they did not
     * change. With the column changes since the snapshot it was last evaluated on (`changes`), only
     * the rows it covers where a column it reads changed are evaluated (none: skipped).
     */
    const evaluateGroup = (
      g: Group,
      snapshot: Snapshot,
      rowIds: { readonly ids: Int32Array; readonly monotonic: boolean },
      rows: Int32Array | undefined,
      changes: ColumnChanges | undefined,
      counts: { skipped: number; patched: number; full: number }
    ): Int32Array => {
      const previous = g.result
      let next: Int32Array | undefined
      if (
        previous !== undefined &&
        changes !== undefined &&
        g.evaluatedOn === lastSnapshot &&
        !g.crossTicker &&
        sameRows(g.rowsUsed, rows)
      ) {
        const candidates = candidatesOf(g, snapshot, rows)
        const limit = Math.max(16, (candidates?.length ?? snapshot.size) >> 2)
        const dirty = dirtyRows(changes, g.columnIds, candidates, limit)
        if (dirty !== undefined && dirty.length === 0) {
          counts.skipped++
          next = previous
        } else if (dirty !== undefined) {
          counts.patched++
          const p = predicate(g.q)
          const n = p === undefined ? 0 : p.evaluateInto(snapshot, buffer, dirty)
          next = patchIds(previous, dirty, buffer, n, rowIds.ids, rowIds.monotonic)
        }
      }
      if (next === undefined) {
        counts.full++
        // only the rows it can match: a ticker-scoped pair reads one row, not the market (and its
        // candidates are then ready for the next tick's patch)
        next = evaluateFull(g, snapshot, rowIds, g.crossTicker ? rows : candidatesOf(g, snapshot, rows))
      }
      g.evaluatedOn = snapshot
      g.rowsUsed = rows
      return previous !== undefined && sameIds(previous, next) ? previous : next
    }

    const evaluateSnapshot = (snapshot: Snapshot) =>
      Effect.gen(function* () {
        const started = performance.now()
        yield* sync
        // another instance wrote match states since the actors' states were known to be the stored
        // ones (it evaluated a tick too): every actor takes its stored state first
        const writer = yield* stateStore.stateWriter
        if (!inSync || writer?.holder !== known?.holder || writer?.seq !== known?.seq) {
          yield* reloadStates
          known = writer
        }
        const now = yield* Clock.currentTimeMillis
        // webhooks deleted through another instance lose their actors within a minute
        if (now - lastForget >= 60_000) {
          yield* forgetDeleted
          lastForget = now
        }
        const due = new Set<Cadence>()
        let dueBits = 0
        for (let i = 0; i < CADENCES.length; i++) {
          const c = CADENCES[i]!
          if (!lastCadence.has(c)) lastCadence.set(c, now)
          if (isDue(c, lastCadence.get(c), now)) {
            due.add(c)
            dueBits |= 1 << i
          }
        }
        const t1 = performance.now()

        // each distinct (predicate, scope) pair with a due webhook, once (one bit test per pair:
        // with 85,000 pairs a per-pair Map lookup and Set iteration cost ~100 ms a tick)
        const dueGroups: Array<Group> = []
        for (const g of groups.values()) if ((g.cadenceBits & dueBits) !== 0) dueGroups.push(g)
        const scopes = yield* scopeRows(snapshot, dueGroups)
        if (buffer.length < snapshot.size) buffer = new Int32Array(snapshot.size)
        const rowIds = ids.ofSnapshot(snapshot)
        const columnChanges = lastSnapshot === undefined ? undefined : ColumnChanges.between(lastSnapshot, snapshot)
        const pairs = { skipped: 0, patched: 0, full: 0 }
        for (const g of dueGroups)
          g.result = evaluateGroup(g, snapshot, rowIds, scopes.get(g.scopeKey), columnChanges, pairs)
        lastSnapshot = snapshot
        // keep about as many compiled predicates as a tick evaluates (a live market may need them all)
        compiledCap = Math.max(MIN_COMPILED, Math.ceil(1.25 * (pairs.patched + pairs.full)))
        while (compiledByText.size > compiledCap) compiledByText.delete(compiledByText.keys().next().value!)
        const t2 = performance.now()

        // the actors whose state may differ from their pair's matches
        const done = yield* Deferred.make<void>()
        const tick = new Tick(done)
        const sent: Array<Handle> = []
        let evaluatedCount = 0
        let depth = 0
        for (const g of dueGroups) {
          const matched = g.result!
          if (g.syncedTo === matched) {
            // every member holds these matches already (the common case: nothing moved)
            for (let i = 0; i < CADENCES.length; i++) if ((dueBits >> i) & 1) evaluatedCount += g.cadenceCounts[i]!
            continue
          }
          let all = true
          for (const h of g.members) {
            if (!due.has(h.record.cadence)) {
              if (h.synced !== matched) all = false
              continue
            }
            evaluatedCount++
            if (h.synced === matched) continue
            h.synced = matched // provisional: undone below (`unsync`) when the actor's change is not stored
            sent.push(h)
            tick.pending++
            h.mailbox.offer({ _tag: "Evaluate", tick, matched })
          }
          if (all) g.syncedTo = matched
        }
        for (const h of handles.values()) depth += h.mailbox.size
        yield* Metric.set(mailboxDepth, depth)
        if (tick.pending > 0) yield* Deferred.await(done)
        const t3 = performance.now()

        const persisted = Effect.gen(function* () {
          for (const id of tick.failed) {
            const h = handles.get(id)
            if (h !== undefined) unsync(h)
          }
          // the fires, then the new states with them, in transactions of at most COMMIT_CHUNK webhooks
          // and about COMMIT_BYTES of payloads (a webhook's state and its fire always in the same
          // one), so a huge tick (every webhook's first evaluation: ~300 MB of payloads with 100,000
          // webhooks) never holds more than one transaction's payloads and their encoding at once
          let changed = 0
          let fires = 0
          let commitMs = 0
          const renderer = new FireRenderer(snapshot, now)
          const outcomes = tick.outcomes
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
            /** the delta count each written state will have */
            const deltasAfter = new Map<string, number>()
            let bytes = 0
            while (next < outcomes.length && chunk.length < COMMIT_CHUNK && bytes < COMMIT_BYTES) {
              const o = outcomes[next]!
              // taken: the tick no longer holds it (its arrays go with this transaction)
              outcomes[next++] = undefined
              const h = handles.get(o.id)
              if (h === undefined) continue
              chunk.push(o)
              const fired = o.added.length > 0
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
                fired
              })
              deltasAfter.set(o.id, full ? 0 : o.deltas + 1)
              if (!fired) continue
              const w = h.record
              const payload = renderer.render({
                webhookId: w.id,
                name: w.name,
                q: w.q,
                added: ids.namesOf(o.added),
                fields: w.fields
              })
              bytes += payload.length
              deliveries.push({
                id: newDeliveryId(now),
                webhookId: w.id,
                accountId: w.accountId,
                eventId: newEventId(),
                channel: w.channel,
                targetUrl: displayTarget(w),
                test: false,
                payload,
                dueAt: now
              })
            }
            const built = performance.now()
            const expectedSeq = (known?.seq ?? 0) + 1
            const { written, writerSeq: seq } = yield* stateStore.commitTick(
              now,
              [...due],
              changes,
              deliveries,
              instanceId
            )
            commitMs += performance.now() - built
            if (seq !== undefined) {
              // another instance committed states during this tick: reload them all on the next one
              if (seq !== expectedSeq) inSync = false
              known = { holder: instanceId, seq }
            }
            const lost: Array<string> = []
            for (const o of chunk) {
              const h = handles.get(o.id)
              if (h === undefined) continue
              if (written.has(o.id)) {
                h.mailbox.offer({
                  _tag: "Adopt",
                  armedAt: o.armedAt,
                  stateSeq: o.stateSeq,
                  matchSet: o.matchSet,
                  deltas: deltasAfter.get(o.id) ?? 0
                })
              } else {
                unsync(h)
                lost.push(o.id)
              }
            }
            // states written meanwhile (another instance, an enable): the actors take the stored state
            for (const w of yield* stateStore.states(lost)) {
              const h = handles.get(w.id)
              if (h === undefined || w.status !== "active") continue
              reset(h, w)
            }
            changed += changes.length
            fires += deliveries.filter((d) => written.has(d.webhookId)).length
          } while (next < outcomes.length)
          for (const c of due) lastCadence.set(c, now)
          return { changes: changed, fires, commitMs }
        }).pipe(
          // nothing stored: every actor messaged this tick diffs again on the next one
          Effect.onError(() =>
            Effect.sync(() => {
              for (const h of sent) unsync(h)
            })
          )
        )
        const { changes, fires, commitMs } = yield* persisted
        yield* Metric.incrementBy(firesTotal, fires)
        yield* Metric.update(evaluationDuration, (performance.now() - started) / 1000)
        if (fires > 0) yield* wake.wake
        if (tick.failed.length > 0) {
          yield* Effect.logWarning("webhook actors failed during evaluation").pipe(
            Effect.annotateLogs({ failed: tick.failed.length })
          )
        }
        const t4 = performance.now()
        return {
          asOf: snapshot.asOf,
          ok: true,
          evaluated: evaluatedCount,
          fires,
          phases: {
            sync: t1 - started,
            evaluate: t2 - t1,
            diff: t3 - t2,
            persist: t4 - t3,
            commit: commitMs,
            messaged: sent.length,
            changed: changes,
            pairs
          }
        } satisfies EvaluationResult
      })

    /** Evaluates one snapshot (serialized); a failure is logged and reported, its changes retried next tick. */
    const evaluate = (snapshot: Snapshot) =>
      lock.withPermits(1)(
        evaluateSnapshot(snapshot).pipe(
          Effect.catchAllCause((cause) =>
            Effect.logError("webhook evaluation failed", cause).pipe(
              Effect.zipRight(Metric.increment(evaluationFailures)),
              Effect.as({
                asOf: snapshot.asOf,
                ok: false,
                evaluated: 0,
                fires: 0,
                error: Cause.pretty(cause)
              } satisfies EvaluationResult)
            )
          ),
          Effect.tap((r) => SubscriptionRef.set(evaluated, r))
        )
      )

    // start: the ticks recorded by earlier runs, then every published snapshot in turn
    /**
     * Several instances: on its own refreshes only the holder of the
     * `evaluator` lease evaluates (renewed every tick, taken over when it
     * lapses); the others skip and resynchronize their actors from the store
     * before they next evaluate. Optimistic writes (`state_seq`) keep each
     * transition fired once even when two instances evaluate at once.
     */
    const instanceId = newId("inst")
    const leaseMs = Math.max(3 * market.refreshInterval, 15_000)
    const holdsLease = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      return yield* stateStore.acquireLease("evaluator", instanceId, now, now + leaseMs)
    }).pipe(Effect.orElseSucceed(() => false))

    const onSnapshot = (snapshot: Snapshot) =>
      Effect.gen(function* () {
        if (yield* holdsLease) return yield* evaluate(snapshot)
        inSync = false
        const skipped: EvaluationResult = { asOf: snapshot.asOf, ok: true, evaluated: 0, fires: 0, skipped: true }
        yield* SubscriptionRef.set(evaluated, skipped)
        return skipped
      })

    const start = Effect.gen(function* () {
      const ticks = yield* webhooks.ticks.pipe(Effect.orElseSucceed(() => new Map<Cadence, number>()))
      for (const [c, at] of ticks) lastCadence.set(c, at)
      yield* market.changes.pipe(Stream.mapEffect(onSnapshot), Stream.runDrain)
    })
    yield* Effect.forkScoped(
      start.pipe(Effect.catchAllCause((cause) => Effect.logError("webhook evaluator stopped", cause)))
    )

    return {
      evaluate,
      /** waits until a snapshot at or after `asOf` has been evaluated; its result */
      awaitEvaluated: (asOf: number) =>
        evaluated.changes.pipe(
          Stream.filter((r) => r.asOf >= asOf),
          Stream.runHead,
          Effect.map(Option.getOrThrow)
        ),
      /** applies a webhook row changed through this instance now (others pick changes up on the next tick) */
      changed: (w: WebhookRecord) =>
        lock.withPermits(1)(
          // an API change starts or stops an actor outside `sync`: keep the gauge true
          Effect.zipRight(
            apply(w),
            Effect.suspend(() => Metric.set(actorsAlive, handles.size))
          )
        ),
      /** picks up every webhook change from the store now */
      resync: lock.withPermits(1)(sync),
      /** forgets a deleted webhook */
      deleted: (id: string) => lock.withPermits(1)(stop(id)),
      /** `last_evaluated_at` of a record as the API shows it */
      lastEvaluated: (w: WebhookRecord) => Effect.map(webhooks.ticks, (ticks) => effectiveLastEvaluated(w, ticks)),
      /** when each due cadence was last evaluated in this process */
      lastCadenceAt: (c: Cadence) => lastCadence.get(c),
      actorCount: Effect.sync(() => handles.size),
      restarts: Metric.value(actorRestarts),
      /** test hook: throw from an actor while it handles a message */
      setFault: (hook: FaultHook | undefined) =>
        Effect.sync(() => {
          fault = hook
        })
    } as const
  })
}) {}
