/**
 * Column kernels: some daily columns of a run of one ticker's bars computed
 * straight off its closes, in one loop carrying the few recursive values the
 * columns read in locals.
 *
 * The general walk (`history/dailyWalk.ts`) previews each kept bar into the
 * scratch row and commits every bar through the state: its rings, windows and
 * the refresh of `hot`, ~150–400 ns a bar even when one family is advanced. A
 * walk whose kept columns all have a kernel (a dry-run or backtest of
 * `rsi_14 < 30` keeps `rsi_14` and `price`) runs the kernel instead
 * (`history/keptWalk.ts`), ~10 ns a bar.
 *
 * A kernel's values are the engine's bit for bit: the same expressions in the
 * same order as the preview writes them (`session.ts`, `oscillators.ts`) and
 * as the commit advances the state (`engine.ts` `advanceRsi`), with the
 * scratch row's null rule (a null is value 0, validity 0; a flag reads the
 * value a null left, 0). `test/market/columnKernels.test.ts` checks them against
 * the general walk over random histories.
 */
import { THRESHOLDS } from "../catalog.js"
import type { BarSeries } from "../history/barSeries.js"
import { rsiOf as rsiOfAverages } from "./oscillators.js"
import { type DailyState, F, H as HOT, WILDER_PERIOD } from "./state.js"

// module-level aliases of the imports read per bar (under vitest an imported binding is a getter call)
const H = HOT
const N = WILDER_PERIOD
const rsiOf = rsiOfAverages
const OVERBOUGHT = THRESHOLDS.rsiOverbought
const OVERSOLD = THRESHOLDS.rsiOversold
const GAP = THRESHOLDS.gapPct

/** what a kept column is, to a kernel */
const PRICE = 0
const DAY_OPEN = 1
const DAY_HIGH = 2
const DAY_LOW = 3
const VOLUME_TODAY = 4
const DOLLAR_VOLUME = 5
const CHANGE_FROM_OPEN = 6
// from the second bar (a previous close)
const PREV_CLOSE = 7
const DAY_CHANGE = 8
const DAY_CHANGE_PCT = 9
const GAP_PCT = 10
const GAP_UP = 11
const GAP_DOWN = 12
// from bar N (RSI's Wilder averages)
const RSI = 13
const RSI_OVERBOUGHT = 14
const RSI_OVERSOLD = 15

const KERNEL_COLUMNS: ReadonlyMap<string, number> = new Map([
  ["price", PRICE],
  ["day_open", DAY_OPEN],
  ["day_high", DAY_HIGH],
  ["day_low", DAY_LOW],
  ["volume_today", VOLUME_TODAY],
  ["dollar_volume", DOLLAR_VOLUME],
  ["change_from_open_pct", CHANGE_FROM_OPEN],
  ["prev_close", PREV_CLOSE],
  ["day_change", DAY_CHANGE],
  ["day_change_pct", DAY_CHANGE_PCT],
  ["gap_pct", GAP_PCT],
  ["gap_up", GAP_UP],
  ["gap_down", GAP_DOWN],
  ["rsi_14", RSI],
  ["rsi_overbought", RSI_OVERBOUGHT],
  ["rsi_oversold", RSI_OVERSOLD]
])

/** the columns a kernel computes */
export const KERNEL_COLUMN_NAMES: ReadonlyArray<string> = [...KERNEL_COLUMNS.keys()]

/** the kernel's columns read off the closes alone (no open, high, low or volume) */
const OF_CLOSES: ReadonlySet<number> = new Set([
  PRICE,
  PREV_CLOSE,
  DAY_CHANGE,
  DAY_CHANGE_PCT,
  RSI,
  RSI_OVERBOUGHT,
  RSI_OVERSOLD
])

/**
 * Whether a walk keeping `columns` reads its bars' days and closes alone: every column has a kernel that
 * reads no open, high, low or volume, and the kernel starts off recipes (`history/walkStart.ts`), not off
 * states rebuilt from bars. Such a walk's series before the window may be read without the rest
 * (`engine/deepWalk.ts`, "closes").
 */
export const closesSuffice = (columns: ReadonlyArray<string>): boolean =>
  columns.every((c) => OF_CLOSES.has(KERNEL_COLUMNS.get(c) ?? -1))

/**
 * Where a kernel starts a ticker (`KERNEL_START` doubles): the first bar it walks, and the state before
 * it — the bars committed, the last close and RSI's two averages (or their seed sums). From a state
 * (`kernelStartOf`), or straight off a walk's start recipe (`history/walkStart.ts`): the scalars a
 * restore sets and the close before its first bar, without rebuilding the rest of the state.
 */
export const KERNEL_START = 5
export const START_BAR = 0
const START_COUNT = 1
const START_PREV_CLOSE = 2
const START_AVG_GAIN = 3
const START_AVG_LOSS = 4

/** The start of a kernel at bar `j` on `st`, the state holding the bars before it, into `out`. */
export const kernelStartOf = (st: DailyState, j: number, out: Float64Array): Float64Array =>
  kernelStartOfScalars(j, st.count, st.hot[H.prevClose]!, st.hot, out)

/**
 * The start of a kernel at bar `j` on a state restored from its recursive `scalars` (`hot[0, SC_COUNT)`)
 * after `count` bars (more than none) whose last close is `prevClose`, into `out`; with `count` 0, a
 * fresh state's (RSI's sums at 0; no close is read before a bar is committed).
 */
export const kernelStartOfScalars = (
  j: number,
  count: number,
  prevClose: number,
  scalars: ArrayLike<number> | undefined,
  out: Float64Array
): Float64Array => {
  out[START_BAR] = j
  out[START_COUNT] = count
  out[START_PREV_CLOSE] = prevClose
  out[START_AVG_GAIN] = scalars === undefined ? 0 : scalars[H.avgGain]!
  out[START_AVG_LOSS] = scalars === undefined ? 0 : scalars[H.avgLoss]!
  return out
}

/**
 * A kernel for some kept columns: `run` writes, for the kept positions `p0 … p1 - 1` of one ticker
 * (position `p` is bar `barOf[p]` of `series`, ascending), each column's value and validity at its
 * position, walking the ticker's bars from `start`'s bar (at or before `barOf[p0]`) on the state it
 * describes (`KERNEL_START`).
 */
export interface ColumnKernel {
  /** the parts of a start state the kernel reads */
  readonly families: number
  readonly run: KernelRun
}

type KernelRun = (
  start: Float64Array,
  series: BarSeries,
  barOf: Int32Array,
  p0: number,
  p1: number,
  values: ReadonlyArray<Float64Array>,
  valid: ReadonlyArray<Uint8Array>
) => void

/** The kernel computing `columns` (in that order), or undefined when one of them has none. */
export const columnKernel = (columns: ReadonlyArray<string>): ColumnKernel | undefined => {
  const codes = new Int32Array(columns.length)
  let families = 0
  for (let c = 0; c < columns.length; c++) {
    const code = KERNEL_COLUMNS.get(columns[c]!)
    if (code === undefined) return undefined
    codes[c] = code
    if (code >= RSI) families |= F.rsi
  }
  return { families, run: kernelRun(codes, families) }
}

/** RSI at each kept bar of a run (index: position - p0; NaN: null), grown as needed */
let rsiAt = new Float64Array(1024)

/**
 * The kept columns of one ticker's kept bars: RSI's first (one pass over every bar, `rsiPass`), then
 * each column at each kept position from its bar, the previous close and RSI there.
 */
const kernelRun =
  (codes: Int32Array, families: number): KernelRun =>
  (start, series, barOf, p0, p1, values, valid) => {
    if (rsiAt.length < p1 - p0) rsiAt = new Float64Array(2 * (p1 - p0))
    const rsi = rsiAt
    const close = series.close
    // every close a commit would refuse throws (RSI's pass reads them all; else the kept ones here)
    if ((families & F.rsi) !== 0) rsiPass(start, close, barOf, p0, p1, rsi)
    else checkCloses(close, barOf, p0, p1)
    for (let k = 0; k < codes.length; k++)
      keptColumn(codes[k]!, start, series, barOf, p0, p1, rsi, values[k]!, valid[k]!)
  }

/**
 * Column `code` at each kept position of a run (`rsi[p - p0]`: RSI there, NaN for null): the preview's
 * value of the bar on a state of `n` bars (the start's and those after its bar) whose last close is `pc`
 * (`session.ts`, `oscillators.ts`); a
 * flag of a null RSI reads the 0 its null left. All in one function: a double handed to a call that is
 * not inlined is boxed, ~30 bytes of garbage a value.
 */
const keptColumn = (
  code: number,
  start: Float64Array,
  s: BarSeries,
  barOf: Int32Array,
  p0: number,
  p1: number,
  rsi: Float64Array,
  out: Float64Array,
  ok: Uint8Array
): void => {
  const close = s.close
  const j0 = start[START_BAR]!
  const count = start[START_COUNT]!
  const first = start[START_PREV_CLOSE]!
  const scale = s.ohlScale
  for (let p = p0; p < p1; p++) {
    const j = barOf[p]!
    const c = close[j]!
    const n = count + (j - j0)
    const pc = j > j0 ? close[j - 1]! : first
    let x = Number.NaN
    switch (code) {
      case PRICE:
        x = c
        break
      case DAY_OPEN:
        x = s.open[j]! / scale
        break
      case DAY_HIGH:
        x = s.high[j]! / scale
        break
      case DAY_LOW:
        x = s.low[j]! / scale
        break
      case VOLUME_TODAY:
        x = s.volume[j]!
        break
      case DOLLAR_VOLUME:
        x = c * s.volume[j]!
        break
      case CHANGE_FROM_OPEN:
        x = c / (s.open[j]! / scale) - 1
        break
      case PREV_CLOSE:
        if (n > 0) x = pc
        break
      case DAY_CHANGE:
        if (n > 0) x = c - pc
        break
      case DAY_CHANGE_PCT:
        if (n > 0) x = c / pc - 1
        break
      case GAP_PCT:
        if (n > 0) x = s.open[j]! / scale / pc - 1
        break
      case GAP_UP:
      case GAP_DOWN: {
        const gap = s.open[j]! / scale / pc - 1
        if (n > 0 && gap - gap === 0) x = code === GAP_UP ? +(gap >= GAP) : +(gap <= -GAP)
        break
      }
      default:
        if (n >= N) {
          const r = rsi[p - p0]!
          const v = r - r === 0 ? r : 0
          x = code === RSI ? r : code === RSI_OVERBOUGHT ? +(v > OVERBOUGHT) : +(v < OVERSOLD)
        }
    }
    if (x - x === 0) {
      out[p] = x
      ok[p] = 1
    } else {
      out[p] = 0
      ok[p] = 0
    }
  }
}

/** A RangeError for a kept close a commit would refuse (not a positive finite price). */
const checkCloses = (close: Float64Array, barOf: Int32Array, p0: number, p1: number): void => {
  for (let p = p0; p < p1; p++) {
    const c = close[barOf[p]!]!
    if (!(c > 0 && c < Number.POSITIVE_INFINITY)) malformed(c, barOf[p]!)
  }
}

const malformed = (c: number, j: number): never => {
  throw new RangeError(`malformed daily bar: close ${c} at bar ${j}`)
}

/**
 * RSI at each kept bar of a run (`rsi[p - p0]`, NaN for null), in one pass over its bars from the
 * start's bar: per bar, the preview's RSI when the bar is kept (`oscillators.ts`: from the state's
 * count `N` on, off Wilder's average of the day's gain on the committed one, or on day `N` the seed
 * sum's), then the commit's advance (`engine.ts` `advanceRsi`, from the second bar: the seed sums until
 * day `N`, then the averages, a null kept as 0) — the preview's average is the commit's, computed once.
 * The bars up to day `N` go through a loop with the count's checks, the rest through one without
 * (~15 ns a bar: the two divisions of the averages are most of it).
 */
const rsiPass = (
  start: Float64Array,
  close: Float64Array,
  barOf: Int32Array,
  p0: number,
  p1: number,
  rsi: Float64Array
): void => {
  let n = start[START_COUNT]!
  let pc = start[START_PREV_CLOSE]!
  let ag = start[START_AVG_GAIN]!
  let al = start[START_AVG_LOSS]!
  const last = barOf[p1 - 1]!
  let p = p0
  let next = barOf[p0]!
  let j = start[START_BAR]!
  // until the first average (day N) inclusive: RSI null before it
  for (; j <= last && n <= N; j++, n++) {
    const c = close[j]!
    if (!(c > 0 && c < Number.POSITIVE_INFINITY)) malformed(c, j)
    const change = c - pc
    const gain = Math.max(change, 0)
    const loss = Math.max(-change, 0)
    let x = Number.NaN
    if (n === N) {
      const g = (ag + gain) / N
      const l = (al + loss) / N
      x = rsiOf(g, l)
      ag = g - g === 0 ? g : 0
      al = l - l === 0 ? l : 0
    } else if (n >= 1) {
      ag += gain - gain === 0 ? gain : 0
      al += loss - loss === 0 ? loss : 0
    }
    if (j === next) {
      rsi[p++ - p0] = x
      next = p < p1 ? barOf[p]! : -1
    }
    pc = c
  }
  // Wilder's averages from the day after
  for (; j <= last; j++) {
    const c = close[j]!
    if (!(c > 0 && c < Number.POSITIVE_INFINITY)) malformed(c, j)
    const change = c - pc
    const g = (ag * (N - 1) + Math.max(change, 0)) / N
    const l = (al * (N - 1) + Math.max(-change, 0)) / N
    if (j === next) {
      rsi[p++ - p0] = rsiOf(g, l)
      next = p < p1 ? barOf[p]! : -1
    }
    ag = g - g === 0 ? g : 0
    al = l - l === 0 ? l : 0
    pc = c
  }
}
