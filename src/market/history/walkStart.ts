/**
 * Where a walk starts a ticker, as a recipe: the state before bar `j` of its
 * series is a restore (`restoreFromBars`: recursive scalars, a bar count, the
 * bars before a point, and the SMA-200 sum where a grid kept it) or a fresh
 * state, then the bars from that point up to `j` committed. A recipe is
 * doubles in a `Float64Array`, so a worker thread reading the same series
 * (`walkWorker.ts`) rebuilds the same state bit for bit; the market's own
 * `stateAt` follows the same recipes (`followStart`), so both threads take one
 * path.
 *
 * Layout of a recipe (`START_SIZE` doubles from `at`): kind, count, end
 * (the bar the restore stops before), whether a long sum is given and its two
 * doubles, whether the bars up to `j` are committed deferred (a grid's restore)
 * or one by one (a checkpoint's), then the `SC_COUNT` recursive scalars.
 */
import {
  type BarArrays,
  commit,
  commitDeferred,
  configForAssetType,
  type DailyState,
  finishCommits,
  makeState,
  restoreFromBars,
  SC_COUNT
} from "../indicators/index.js"
import { kernelStartOfScalars } from "../indicators/kernels.js"
import { type BarSeries, barInto, newBar } from "./barSeries.js"

/** doubles of one recipe */
export const START_SIZE = 8 + SC_COUNT

const KIND = 0
const COUNT = 1
const END = 2
const HAS_LONG = 3
const LONG = 4
const DEFERRED = 6
const SCALARS = 8

/** a fresh state, then the bars from 0 (or `end`) committed */
const FRESH = 0
/** a restore off recursive scalars and the bars before `end` */
const RESTORE = 1

/** Writes a recipe of a fresh state whose bars from `end` on are committed (`deferred`: in one deferred run). */
export const freshStart = (out: Float64Array, at: number, end: number, deferred: boolean): void => {
  out.fill(0, at, at + START_SIZE)
  out[at + KIND] = FRESH
  out[at + END] = end
  out[at + DEFERRED] = deferred ? 1 : 0
}

/**
 * Writes a recipe of a restore from `scalars` after `count` commits over the bars before `end`
 * (with the SMA-200 running sum `longSum` where kept), then the bars from `end` on committed.
 */
export const restoredStart = (
  out: Float64Array,
  at: number,
  scalars: ArrayLike<number>,
  count: number,
  end: number,
  longSum: ArrayLike<number> | undefined,
  deferred: boolean
): void => {
  out[at + KIND] = RESTORE
  out[at + COUNT] = count
  out[at + END] = end
  out[at + HAS_LONG] = longSum === undefined ? 0 : 1
  out[at + LONG] = longSum?.[0] ?? 0
  out[at + LONG + 1] = longSum?.[1] ?? 0
  out[at + DEFERRED] = deferred ? 1 : 0
  out[at + 7] = 0
  for (let m = 0; m < SC_COUNT; m++) out[at + SCALARS + m] = scalars[m]!
}

/** the bar a recipe's restore stops before (its commits start there) */
export const startEnd = (recipe: Float64Array, at: number): number => recipe[at + END]!

/**
 * A column kernel's start off a recipe (`indicators/kernels.ts` `KERNEL_START`, into `out`): a restore's
 * bar, count and RSI's scalars as the restore sets them, and the close before its bar (the last close the
 * restore's rings hold); a fresh start's bar, no bar committed and RSI's sums at 0 (its previous close is
 * read by nothing before a bar is committed). False for a restore without a bar before it (none is made):
 * the kernel then starts from the state the recipe gives.
 */
export const kernelStartOfRecipe = (
  recipe: Float64Array,
  at: number,
  series: BarSeries,
  out: Float64Array
): boolean => {
  const end = recipe[at + END]!
  if (end > series.length) return false
  if (recipe[at + KIND] === FRESH) {
    kernelStartOfScalars(end, 0, Number.NaN, undefined, out)
    return true
  }
  const count = recipe[at + COUNT]!
  if (count < 1 || end < 1) return false
  kernelStartOfScalars(end, count, series.close[end - 1]!, recipe.subarray(at + SCALARS, at + SCALARS + SC_COUNT), out)
  return true
}

const bar = newBar()

/**
 * The state a recipe restores, before its commits (before bar `end` of `bars`: a ticker of `assetType`), in
 * `into` where given (a state of that config; a fresh start allocates its own): only the parts `families` names.
 */
export const restoreStart = (
  recipe: Float64Array,
  at: number,
  assetType: string,
  bars: BarArrays,
  into: DailyState | undefined,
  families: number | undefined
): DailyState => {
  const config = configForAssetType(assetType)
  if (recipe[at + KIND] === FRESH) return makeState(config)
  return restoreFromBars(
    config,
    recipe.subarray(at + SCALARS, at + SCALARS + SC_COUNT),
    recipe[at + COUNT]!,
    bars,
    recipe[at + END]!,
    into,
    recipe[at + HAS_LONG] === 1 ? recipe.subarray(at + LONG, at + LONG + 2) : undefined,
    families
  )
}

/** The state a recipe gives before bar `j` of `series`: restored (`restoreStart`), then the bars up to `j` committed. */
export const followStart = (
  recipe: Float64Array,
  at: number,
  assetType: string,
  series: BarSeries,
  j: number,
  into: DailyState | undefined,
  families: number
): DailyState => {
  const end = recipe[at + END]!
  const st = restoreStart(recipe, at, assetType, series, into, families)
  if (recipe[at + DEFERRED] === 1) {
    for (let b = end; b < j; b++) commitDeferred(st, barInto(series, b, bar), families)
    if (j > end) finishCommits(st, families)
  } else {
    for (let b = end; b < j; b++) commit(st, barInto(series, b, bar), families)
  }
  return st
}
