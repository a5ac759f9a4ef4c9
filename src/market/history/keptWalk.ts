/**
 * The walk that fills `KeptRows`' columns, cut into runs of tickers that two
 * threads take from a shared counter: the service's thread and the walk
 * helper (`walkHelper.ts`, a worker thread reading the same series in shared
 * memory). Each ticker's kept bars are written at their own positions of the
 * shared columns, so the runs are independent and the columns come out the
 * same whoever walked which run; a thread takes the next run when it is done
 * with its last, so the two stay busy to the end whatever else either does
 * (the service's thread answers requests between slices).
 *
 * Claims, one `Int32` per run: unclaimed, walked by the helper, done by the
 * helper, failed by the helper, or the service's. A run the helper claimed but
 * did not finish (it failed or died) is walked again by the service's thread.
 */

import { configForAssetType, type DailyState, type IndicatorConfig } from "../indicators/index.js"
import { type ColumnKernel, columnKernel, KERNEL_START, kernelStartOf, START_BAR } from "../indicators/kernels.js"
import type { Column } from "../snapshot.js"
import type { BarSeries } from "./barSeries.js"
import type { WalkInputs, WalkMarket } from "./dailyWalk.js"
import { DailyWalk } from "./dailyWalk.js"
import { kernelStartOfRecipe, START_SIZE } from "./walkStart.js"

/** What a walk of kept bars reads and writes; every array the helper touches is shared memory. */
export interface KeptPlan {
  /** the walked tickers' slots in the walk's market (`w` is a position here) */
  readonly slots: ReadonlyArray<number>
  /** ticker `w`'s kept positions are `offset[w]` … `offset[w + 1] - 1` (`slots.length + 1` entries) */
  readonly offset: Int32Array
  /** position → the kept bar's index in its ticker's series */
  readonly barOf: Int32Array
  /** the last day walked */
  readonly toDay: number
  /** the kept columns' names, values (one per position) and validity */
  readonly names: ReadonlyArray<string>
  readonly values: ReadonlyArray<Float64Array>
  readonly valid: ReadonlyArray<Uint8Array>
}

/**
 * A walk of `plan`'s tickers over `market` writing each kept bar's columns at its position; the
 * result walks tickers `from` … `to - 1` (each once over the walk's life). Columns that all have a
 * column kernel (`indicators/kernels.ts`) and read no inputs are computed by it (`general`: never).
 */
export const keptWalker = (
  market: WalkMarket,
  plan: KeptPlan,
  inputs: WalkInputs,
  general = false
): ((from: number, to: number) => Generator<void, void>) => {
  const kernel = inputs === "none" && !general ? columnKernel(plan.names) : undefined
  if (kernel !== undefined) return kernelWalker(market, plan, kernel)
  const { slots, offset, barOf, values, valid } = plan
  const next = offset.slice(0, slots.length)
  const firstBar = new Map(slots.map((slot, w) => [slot, barOf[offset[w]!]!]))
  const walk = new DailyWalk(market, {
    slots,
    start: (slot) => firstBar.get(slot)!,
    fresh: false,
    toDay: plan.toDay,
    inputs,
    columns: plan.names,
    wanted: (w, j) => next[w]! < offset[w + 1]! && barOf[next[w]!] === j
  })
  const sources = plan.names.map((c) => walk.row.get(c) as Extract<Column, { kind: "numeric" | "boolean" }>)
  const visit = (w: number) => {
    const p = next[w]!++
    for (let c = 0; c < sources.length; c++) {
      const src = sources[c]!
      valid[c]![p] = src.valid[0]!
      values[c]![p] = src.values[0]!
    }
  }
  return (from: number, to: number): Generator<void, void> => walk.run(visit, from, to)
}

/** bars a kernel walks between two yields, about (~10 ns each) */
const KERNEL_SLICE_BARS = 16_384

/**
 * `keptWalker` by a column kernel: per ticker the state before its first kept bar (as the general walk
 * starts it), then its bars to its last kept bar in one loop. Reads each ticker's series object as it
 * was when the run started, as the general walk does.
 */
const kernelWalker = (market: WalkMarket, plan: KeptPlan, kernel: ColumnKernel) => {
  const { slots, offset, barOf, values, valid } = plan
  const pool = new Map<IndicatorConfig, DailyState>()
  const recipe = new Float64Array(START_SIZE)
  const start = new Float64Array(KERNEL_START)
  /** walks tickers `w` … (before `to`) for about `KERNEL_SLICE_BARS` bars; returns the next one */
  const slice = (w: number, to: number, series: ReadonlyArray<BarSeries>, from: number): number => {
    for (let work = 0; w < to && work < KERNEL_SLICE_BARS; w++) {
      const p0 = offset[w]!
      const p1 = offset[w + 1]!
      if (p0 === p1) continue
      const slot = slots[w]!
      const s = series[w - from]!
      const j0 = barOf[p0]!
      // off the start's recipe where the market gives one (no state rebuilt), else off the state
      const off =
        market.startAt?.(slot, j0, recipe, 0, kernel.families) === true && kernelStartOfRecipe(recipe, 0, s, start)
      if (!off) {
        const config = configForAssetType(market.tickers[slot]!.asset_type)
        const st = market.stateAt(slot, j0, pool.get(config), kernel.families)
        if (st.config === config) pool.set(config, st)
        kernelStartOf(st, j0, start)
      }
      kernel.run(start, s, barOf, p0, p1, values, valid)
      work += barOf[p1 - 1]! - start[START_BAR]! + 1
    }
    return w
  }
  // the work in a plain function, the generator only yields between slices (a generator's locals are
  // kept boxed across its yields)
  return function* (from: number, to: number): Generator<void, void> {
    const series: Array<BarSeries> = []
    for (let w = from; w < to; w++) series.push(market.series[slots[w]!]!)
    for (let w = from; w < to; yield) w = slice(w, to, series, from)
  }
}

/** bars (walked, kept or not) a run of tickers holds, about: a few milliseconds of walking */
export const RUN_BARS = 8_192

/**
 * The runs of `plan`'s tickers (run `r`: tickers `start[r]` … `start[r + 1] - 1`), each of about
 * `RUN_BARS` bars walked — from a ticker's first kept bar to its last.
 */
export const runsOf = (plan: Pick<KeptPlan, "slots" | "offset" | "barOf">, runBars = RUN_BARS): Int32Array => {
  const { slots, offset, barOf } = plan
  const starts: Array<number> = [0]
  let bars = 0
  for (let w = 0; w < slots.length; w++) {
    bars += barOf[offset[w + 1]! - 1]! - barOf[offset[w]!]! + 1
    if (bars >= runBars && w + 1 < slots.length) {
      starts.push(w + 1)
      bars = 0
    }
  }
  starts.push(slots.length)
  return Int32Array.from(starts)
}

/** a run nobody took yet */
export const UNCLAIMED = 0
/** a run the helper walks */
export const HELPER = 1
/** a run the helper finished */
export const HELPER_DONE = 2
/** a run the service's thread walks */
export const OWN = 3
/** a run the helper claimed and failed: the service's thread walks it again */
export const HELPER_FAILED = 4

/** The shared counter and claims of a walk's runs. */
export interface RunClaims {
  /** [0]: the next run to take */
  readonly counter: Int32Array
  /** one per run: UNCLAIMED, HELPER, HELPER_DONE, HELPER_FAILED or OWN */
  readonly claims: Int32Array
  /** the runs' first tickers (`runsOf`) */
  readonly starts: Int32Array
}

export const newClaims = (starts: Int32Array): RunClaims => ({
  counter: new Int32Array(new SharedArrayBuffer(4)),
  claims: new Int32Array(new SharedArrayBuffer(4 * Math.max(1, starts.length - 1))),
  starts
})

/**
 * Takes runs off the counter until none is left, marking each `by` (HELPER or OWN) and walking it with
 * `walkRun`; the helper marks each it finished HELPER_DONE (or HELPER_FAILED, then throws) and wakes a
 * waiter.
 */
export function* takeRuns(
  claims: RunClaims,
  by: typeof HELPER | typeof OWN,
  walkRun: (from: number, to: number) => Generator<void, void>
): Generator<void, void> {
  const runs = claims.starts.length - 1
  for (;;) {
    const r = Atomics.add(claims.counter, 0, 1)
    if (r >= runs) return
    Atomics.store(claims.claims, r, by)
    if (by === OWN) {
      yield* walkRun(claims.starts[r]!, claims.starts[r + 1]!)
      continue
    }
    try {
      yield* walkRun(claims.starts[r]!, claims.starts[r + 1]!)
      Atomics.store(claims.claims, r, HELPER_DONE)
    } catch (error) {
      Atomics.store(claims.claims, r, HELPER_FAILED)
      throw error
    } finally {
      Atomics.notify(claims.claims, r)
    }
  }
}

/** Stops the helper taking more runs (a walk given up): the counter past the last. */
export const closeRuns = (claims: RunClaims): void => {
  Atomics.store(claims.counter, 0, claims.starts.length)
}
