/**
 * The refresh tick: one fiber cluster-wide (a cluster `Singleton`, started by
 * the runner that holds its shard) decides each tick and stores it
 * (`ticks`): its `as_of` (this fiber's Clock), the cadences due on it, the
 * last import it includes, the last refresh request it answers. Every
 * process that follows ticks refreshes its market to it (`FollowTicks`), and
 * every runner evaluates its slices against that snapshot, recording the
 * tick per slice with its states — so a tick's identity is in the store:
 * a singleton that moves carries on from the last stored tick, a slice that
 * moves from its last committed one.
 *
 * A tick is issued every REFRESH_INTERVAL, and at once when a refresh is
 * asked for (`POST /admin/refresh` through any process) — once every slice
 * has committed the previous tick, or when none has for
 * `TICK_WAIT_FOR_SLICES_MS` (`SliceWait`): a slice handed between runners
 * misses no tick, a dead runner's slices do not hold the others back. Ticks are not
 * cluster messages: a message costs ~0.25 ms of CPU and each of 1,024
 * slices would need one (docs/scaling.md); runners read the tick row.
 */
import { Clock, Duration, Effect, Metric, Schedule } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { TICK_POLL_MS } from "../market/followTicks.js"
import { type Tick, Ticks } from "../store/ticks.js"
import { type Cadence, Webhooks } from "../store/webhooks.js"
import { CADENCES, isDue } from "./cadence.js"
import { SLICES } from "./slice.js"

/**
 * how long a due tick waits for every slice to have committed the previous one (ms), counted from
 * the previous tick's issue or the last slice seen committing it since, whichever is later: slices
 * between two runners (a graceful handover: ~2 s, then their new holders catch up one after
 * another) miss no tick; a runner that died (its slices unheld until its locks expire, ~6 s) does not
 * stop the others' ticks for longer than this once they have committed
 */
export const TICK_WAIT_FOR_SLICES_MS = 4_000

/** the longest a due tick waits for the slices, however they progress (ms) */
export const TICK_WAIT_MAX_MS = 12_000

/**
 * Whether a due tick still waits for the slices behind on the previous one (`latest`): while some
 * are, and one has committed it within `TICK_WAIT_FOR_SLICES_MS` (the tick's issue counts as the
 * first progress), for at most `TICK_WAIT_MAX_MS` after it was issued. Called with the slices behind
 * each time the singleton looks (every `TICK_POLL_MS` while a tick is due).
 */
export class SliceWait {
  private seq = Number.NaN
  private behind = Number.POSITIVE_INFINITY
  private progressAt = 0

  waits(latest: Pick<Tick, "seq" | "asOf">, behind: number, now: number): boolean {
    if (latest.seq !== this.seq) {
      this.seq = latest.seq
      this.behind = behind
      this.progressAt = latest.asOf
    } else if (behind < this.behind) {
      this.behind = behind
      this.progressAt = now
    }
    return behind > 0 && now - this.progressAt < TICK_WAIT_FOR_SLICES_MS && now - latest.asOf < TICK_WAIT_MAX_MS
  }
}

/** how often the retention job runs (ms) */
const PRUNE_EVERY_MS = 3_600_000

export const ticksIssued = Metric.counter("refresh_ticks_issued_total", {
  description: "Refresh ticks issued by the tick singleton (in the process that runs it)",
  incremental: true
})
export const singletonHere = Metric.gauge("refresh_tick_singleton", {
  description: "1 in the process that runs the refresh-tick singleton, 0 elsewhere"
})

/** The cadences due on a tick at `now`, given when each was last due (a cadence never due waits for its next instant). */
export const dueAt = (last: Map<Cadence, number>, now: number): ReadonlyArray<Cadence> =>
  CADENCES.filter((c) => {
    if (!last.has(c)) last.set(c, now)
    return isDue(c, last.get(c), now)
  })

/** The singleton's loop (runs until interrupted: its runner stops or gives its shard up). */
export const tickDriver = Effect.gen(function* () {
  const ticks = yield* Ticks
  const webhooks = yield* Webhooks
  const interval = Duration.toMillis((yield* AppConfig).refreshInterval)
  // when each cadence was last due: the stored ticks, or what earlier versions recorded. Read until
  // it succeeds: a singleton that failed here would die (the cluster runs it again only on its
  // next shard move), leaving no tick issued while this runner holds its shard
  const start = Effect.gen(function* () {
    const last = new Map<Cadence, number>(yield* webhooks.ticks)
    for (const [c, at] of yield* ticks.lastDue) if (at > (last.get(c) ?? Number.NEGATIVE_INFINITY)) last.set(c, at)
    return { last, latest: yield* ticks.latest }
  }).pipe(
    Effect.tapErrorCause((cause) => Effect.logWarning("refresh tick singleton: start not read; retrying", cause)),
    Effect.retry(Schedule.exponential(Duration.millis(200)).pipe(Schedule.union(Schedule.spaced(Duration.seconds(5)))))
  )
  const started = yield* start
  const last = started.last
  let latest: Tick | undefined = started.latest
  let pruned = 0
  const wait = new SliceWait()
  yield* Metric.set(singletonHere, 1)
  yield* Effect.logInfo("refresh tick singleton started").pipe(Effect.annotateLogs({ after_tick: latest?.seq ?? 0 }))

  const step = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const requested = yield* ticks.refreshRequested
    const dueNow = latest === undefined || now - latest.asOf >= interval || requested > latest.request
    // the previous tick committed by every slice first (bounded): no slice skips a tick it could evaluate
    const waiting =
      dueNow &&
      latest !== undefined &&
      now - latest.asOf < TICK_WAIT_MAX_MS &&
      wait.waits(latest, (yield* ticks.slicesBehind(latest.seq, SLICES)).length, now)
    if (dueNow && !waiting && now > (latest?.asOf ?? Number.NEGATIVE_INFINITY)) {
      const next = new Map(last)
      const due = dueAt(next, now)
      const issued = yield* ticks.issue(
        { asOf: now, due, imports: yield* ticks.importsVersion, request: requested },
        now
      )
      if (issued !== undefined) {
        for (const c of due) next.set(c, now)
        for (const [c, at] of next) last.set(c, at)
        yield* Metric.increment(ticksIssued)
      }
      latest = issued ?? (yield* ticks.latest)
    }
    if (now - pruned >= PRUNE_EVERY_MS) {
      pruned = now
      const gone = yield* ticks.prune(now)
      if (gone.ticks + gone.messages > 0) yield* Effect.logInfo("pruned ticks").pipe(Effect.annotateLogs(gone))
    }
  }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("refresh tick not issued", cause)))

  yield* Effect.repeat(step, Schedule.spaced(Duration.millis(TICK_POLL_MS))).pipe(
    Effect.ensuring(Metric.set(singletonHere, 0))
  )
})
