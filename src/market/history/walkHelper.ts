/**
 * The walk helper: one worker thread (`walkWorker.ts`), started on the first
 * walk large enough to share, that walks part of a history walk's tickers
 * beside the service's thread (`keptWalk.ts`) — a dry-run or a backtest of
 * the whole market walks millions of bars, and the machine has a second core.
 *
 * A walk is shared only when every walked ticker's start state is a recipe
 * the helper can follow (`MarketReader.startAt`) and its columns read no
 * inputs but the bars (fundamentals and news stay on the service's thread).
 * The helper takes runs of tickers as it gets to them: a walk posted while it
 * starts, or while it walks another, is walked by the service's thread alone
 * as far as the helper has not joined it. If the helper fails or dies, the
 * runs it claimed and did not finish are walked again here, and the next
 * shared walk starts a new helper (after three have died, none: walks go on
 * alone).
 *
 * Between its parts of walks, the helper also reads a long walk's next
 * stretch of years off the grid's bar file (`stretchRead.ts`): posted after
 * the shared walk of the stretch before, so it reads while this thread
 * evaluates and replays that stretch's days.
 */
import { extname } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import type { Worker } from "node:worker_threads"
import { startWorker } from "../../workerThread.js"
import type { MarketReader } from "../engine/MarketReader.js"
import {
  closeRuns,
  HELPER,
  HELPER_DONE,
  HELPER_FAILED,
  type KeptPlan,
  newClaims,
  OWN,
  type RunClaims,
  runsOf,
  takeRuns,
  UNCLAIMED
} from "./keptWalk.js"
import { type PackedSeries, packSeries } from "./packedSeries.js"
import { READ_DONE, READ_FAILED, READ_PENDING, type StretchRead } from "./stretchRead.js"
import { START_SIZE } from "./walkStart.js"

/** What the helper is posted for one walk. */
export interface HelperWalk extends Omit<KeptPlan, "slots">, RunClaims {
  readonly id: number
  /** the walked tickers' series, by position */
  readonly series: PackedSeries
  readonly assetTypes: ReadonlyArray<string>
  readonly isCrypto: Uint8Array
  /** each walked ticker's start (`START_SIZE` doubles each, `walkStart.ts`) */
  readonly recipes: Float64Array
  /** tests: the helper fails on its run after this many */
  readonly failAfter?: number | undefined
}

export type HelperAnswer =
  | { readonly id: number; readonly ok: true }
  | { readonly id: number; readonly ok: false; readonly message: string }
  | { readonly ready: true }

/** How a shared walk went: its runs, and how many of them the helper walked. */
export interface WalkShare {
  readonly runs: number
  readonly byHelper: number
}

/** Bars walked below which a walk is not shared (posting it costs a few milliseconds). */
export const SHARE_FROM_BARS = 200_000

/** How long the service's thread waits on one run the helper walks before it takes the helper for stuck (real time). */
const STUCK_MS = 30_000

const workerModule = new URL(`./walkWorker${extname(fileURLToPath(import.meta.url))}`, import.meta.url)

/** the answer to one walk: whether the helper failed it (the runs it claimed may be unfinished) */
interface Posted {
  failed: boolean
}

class Helper {
  private readonly worker: Worker
  private readonly posted = new Map<number, Posted>()
  private nextId = 1
  alive = true
  /** resolves true once the helper has loaded, false if it died first */
  readonly ready: Promise<boolean>
  private loaded: (ok: boolean) => void = () => {}

  constructor(private readonly onDeath: () => void) {
    this.ready = new Promise((resolve) => {
      this.loaded = resolve
    })
    this.worker = startWorker(workerModule, undefined)
    this.worker.on("message", (answer: HelperAnswer) => {
      if ("ready" in answer) {
        // loaded, a helper idles between walks: it keeps no process alive (until then it does, so that
        // whoever waits for it is not left behind by a process that exits meanwhile)
        this.worker.unref()
        return this.loaded(true)
      }
      const p = this.posted.get(answer.id)
      this.posted.delete(answer.id)
      if (p !== undefined && !answer.ok) p.failed = true
    })
    const die = () => {
      if (!this.alive) return
      this.alive = false
      this.loaded(false)
      for (const p of this.posted.values()) p.failed = true
      this.posted.clear()
      this.onDeath()
    }
    this.worker.on("error", die)
    this.worker.on("exit", die)
  }

  post(job: Omit<HelperWalk, "id">): Posted {
    const id = this.nextId++
    const p: Posted = { failed: false }
    this.posted.set(id, p)
    this.worker.postMessage({ ...job, id })
    return p
  }

  /** posts a stretch to read (its answer comes in its shared status, not as a message) */
  postRead(read: StretchRead): void {
    this.worker.postMessage(read)
  }

  stop(): void {
    void this.worker.terminate()
  }
}

let helper: Helper | undefined
let deaths = 0

/** Whether walks are shared (benchmarks turn it off to time one thread alone in the same run). */
export const walkSharing = { enabled: true }

const theHelper = (): Helper | undefined => {
  if (helper?.alive === true) return helper
  if (deaths >= 3) return undefined
  try {
    const started: Helper = new Helper(() => {
      deaths++
      if (helper === started) helper = undefined
    })
    helper = started
    return helper
  } catch {
    deaths++
    return undefined
  }
}

/**
 * Starts the helper unless it runs, and answers once it has loaded (false: it cannot run here). The
 * service starts it when its market is ready, so the first large walk is shared from its start.
 */
export const walkHelperReady = (): Promise<boolean> => theHelper()?.ready ?? Promise.resolve(false)

/** Stops the helper (tests; a process exits without it: the helper keeps none alive). */
export const stopWalkHelper = (): void => {
  helper?.stop()
  helper = undefined
}

/**
 * Reads posted and not yet handed to the helper: they go after the next shared walk's (the helper
 * reads the next stretch once it has done its part of this one, while this thread evaluates and
 * replays its days), or when awaited.
 */
const deferred: Array<StretchRead> = []

/** Whether a helper runs (or can be started) to read a walk's next stretch (`postStretchRead`). */
export const helperReads = (): boolean => walkSharing.enabled && theHelper() !== undefined

/**
 * Posts `read` (a walk's next stretch, `stretchRead.ts`) to the helper (`helperReads`): handed to it
 * after the next shared walk's part, or when awaited (`awaitStretchRead`).
 */
export const postStretchRead = (read: StretchRead): void => {
  deferred.push(read)
}

/** Hands the reads posted so far to the helper now (a walk it has no part in: it may read meanwhile). */
export const handOverReads = (): void => {
  const h = helper?.alive === true ? helper : undefined
  for (const read of deferred.splice(0)) {
    if (h === undefined) Atomics.store(read.status, 0, READ_FAILED)
    else h.postRead(read)
  }
}

/**
 * Waits for a posted read's answer: true once done, false when it failed or the helper is taken for
 * stuck (it died, or takes longer than `STUCK_MS`; a read is a fraction of a second).
 */
export const awaitStretchRead = (read: Pick<StretchRead, "status">): boolean => {
  handOverReads()
  const since = performance.now()
  for (;;) {
    const status = Atomics.load(read.status, 0)
    if (status !== READ_PENDING) return status === READ_DONE
    if (performance.now() - since > STUCK_MS) return false
    Atomics.wait(read.status, 0, READ_PENDING, 50)
  }
}

/**
 * Walks `plan`'s tickers over `md`, shared with the helper when it can be (see the module comment):
 * `walkRun` walks tickers `from` … `to - 1` here. Without a helper, or when a start is not a recipe, all
 * of them here.
 */
export function* sharedWalk(
  md: MarketReader,
  plan: KeptPlan,
  families: number,
  walkRun: (from: number, to: number) => Generator<void, void>,
  options: {
    readonly runBars?: number | undefined
    readonly failAfter?: number | undefined
    /** tests: this thread takes no run until the helper has taken one (or failed, or is stuck) */
    readonly helperFirst?: boolean | undefined
  } = {}
): Generator<void, WalkShare> {
  const n = plan.slots.length
  const alone = function* () {
    // the helper has no part in this walk: it may read the next stretch now
    handOverReads()
    yield* walkRun(0, n)
    return { runs: 1, byHelper: 0 }
  }
  const recipes = new Float64Array(new SharedArrayBuffer(8 * START_SIZE * n))
  for (let w = 0; w < n; w++) {
    if (!md.startAt(plan.slots[w]!, plan.barOf[plan.offset[w]!]!, recipes, w * START_SIZE, families)) {
      return yield* alone()
    }
  }
  const h = walkSharing.enabled ? theHelper() : undefined
  if (h === undefined) return yield* alone()
  const claims = newClaims(runsOf(plan, options.runBars))
  const packed = packSeries(plan.slots.map((slot) => md.series[slot]!))
  const assetTypes = plan.slots.map((slot) => md.tickers[slot]!.asset_type)
  const posted = h.post({
    ...claims,
    offset: plan.offset,
    barOf: plan.barOf,
    toDay: plan.toDay,
    names: plan.names,
    values: plan.values,
    valid: plan.valid,
    series: packed,
    assetTypes,
    isCrypto: Uint8Array.from(plan.slots, (slot) => md.isCrypto[slot]!),
    recipes,
    failAfter: options.failAfter
  })
  handOverReads()
  try {
    if (options.helperFirst === true) {
      const since = performance.now()
      while (Atomics.load(claims.counter, 0) === 0 && !posted.failed && performance.now() - since < STUCK_MS)
        Atomics.wait(claims.counter, 0, 0, 2)
    }
    yield* takeRuns(claims, OWN, walkRun)
    // the runs the helper still walks: wait (a run is a few milliseconds), or walk those it left
    const runs = claims.starts.length - 1
    let byHelper = 0
    for (let r = 0; r < runs; r++) {
      const since = performance.now()
      let claim = Atomics.load(claims.claims, r)
      // UNCLAIMED: the helper took it off the counter and is about to mark it
      for (; claim === HELPER || claim === UNCLAIMED; claim = Atomics.load(claims.claims, r)) {
        // died (no answer will come), or stuck: its runs are walked here
        if (posted.failed || performance.now() - since > STUCK_MS) break
        Atomics.wait(claims.claims, r, claim, 2)
        yield
      }
      if (claim === HELPER_DONE) byHelper++
      if (claim === HELPER_DONE || claim === OWN) continue
      if (claim !== HELPER_FAILED && !posted.failed) stopWalkHelper()
      yield* walkRun(claims.starts[r]!, claims.starts[r + 1]!)
    }
    return { runs, byHelper }
  } finally {
    // given up (a dry-run past its budget) or done: the helper takes no more runs of this walk
    closeRuns(claims)
  }
}
