/**
 * The light restore for history reads: a `DailyState` is its recursive
 * scalars (`recursiveScalars`, 25 doubles: EMAs, Wilder averages, OBV,
 * streaks, ...) plus what the bars themselves determine (rings and window
 * aggregates). Where the bars are kept anyway, a checkpoint is those 25
 * doubles and `restoreFromBars` rebuilds the rest in a few microseconds:
 *
 *   const sc = recursiveScalars(st)                      // after committing bars[0..t]
 *   const st2 = restoreFromBars(config, sc, t + 1, bars, t + 1)
 *   preview(st2, ...) / commit(st2, bars[t + 1]) ...     // exactly as st would
 *
 * The rebuilt state previews and continues bit-for-bit like the original when
 * the arrays hold at least min(count, 397) bars up to `endExclusive` (the
 * SMA-200 running sum replays from its last exact re-summation, up to
 * 2 x 199 - 1 closes back), or min(count, yearDays) bars and that sum
 * (`copyLongSum`); with fewer than 397 and no sum (but at least
 * min(count, yearDays)) it agrees to rounding (~1e-15 relative) and is
 * bit-for-bit again after at most 199 more commits.
 */
import type { IndicatorConfig } from "./config.js"
import { ALL_FAMILIES, DailyState, F, H, MA_PERIODS, refreshHot, SC_COUNT, STOCH_PERIOD } from "./state.js"

/** the moving average whose running sum a year of bars cannot replay (it re-sums every 199 pushes: 397 closes back) */
const LONG_MA = MA_PERIODS.indexOf(200)
/** doubles of `copyLongSum` */
export const LONG_SUM_SIZE = 2

/**
 * The SMA-200 running sum (its anchor and its sum) written into `out` at `at`: given back to
 * `restoreFromBars` (`longSum`), a restore from a year of bars continues bit for bit.
 */
export const copyLongSum = (st: DailyState, out: Float64Array, at: number): void => {
  const ma = st.ma[LONG_MA]
  out[at] = ma.k
  out[at + 1] = ma.s1
}

/** Per-day bar columns, oldest first (typed arrays or plain arrays of numbers). */
export interface BarArrays {
  /** epoch days */
  readonly days: ArrayLike<number>
  readonly open: ArrayLike<number>
  readonly high: ArrayLike<number>
  readonly low: ArrayLike<number>
  readonly close: ArrayLike<number>
  readonly volume: ArrayLike<number>
  /** what `open`, `high` and `low` hold per unit of price (a `BarSeries` may keep them scaled); 1 when absent */
  readonly ohlScale?: number
}

/** The recursive scalars of a state (a copy of `hot[0, SC_COUNT)`): with the bars, all of its state. */
export const recursiveScalars = (st: DailyState): Float64Array => st.hot.slice(0, SC_COUNT)

/** `recursiveScalars` written into `out` at `at`, without allocating (a checkpoint every few bars of a load). */
export const copyRecursiveScalars = (st: DailyState, out: Float64Array, at: number): void => {
  const hot = st.hot
  for (let m = 0; m < SC_COUNT; m++) out[at + m] = hot[m]
}

/** close x volume of the newest bars, for the dollar-volume window (2 x 30 - 1 values suffice). */
const dollarScratch = new Float64Array(64)

const sameConfig = (a: IndicatorConfig, b: IndicatorConfig): boolean =>
  a.yearDays === b.yearDays &&
  a.weekDays === b.weekDays &&
  a.monthDays === b.monthDays &&
  a.quarterDays === b.quarterDays &&
  a.halfYearDays === b.halfYearDays

/**
 * Rebuild the state after `count` commits from its recursive scalars and the
 * committed bars: `bars[0..endExclusive)` are committed bars in order, the
 * last of them the `count`-th commit (usually the arrays start at the first
 * commit and `count === endExclusive`; with `count > endExclusive` they hold
 * only the latest of them). Needs `endExclusive >= min(count, yearDays)` —
 * with `families`, `min(count, restoreNeeds(config, families))`; see the
 * module comment for when the result is bit-for-bit. Throws a
 * RangeError on inconsistent arguments (including `scalars` whose last day
 * is not `days[endExclusive - 1]`).
 *
 * `into`, if given, is a state of the same config that is overwritten and
 * returned instead of allocating a new one (about 10 KB, zeroed): for reading
 * many points of history one after another. With `families`, only those
 * parts of the state are rebuilt (a walk that advances only them: state.ts `F`).
 */
export const restoreFromBars = (
  config: IndicatorConfig,
  scalars: Float64Array,
  count: number,
  bars: BarArrays,
  endExclusive: number,
  into?: DailyState,
  /** the SMA-200 running sum after the `count`-th commit (`copyLongSum`): then a year of bars suffices */
  longSum?: ArrayLike<number>,
  families: number = ALL_FAMILIES
): DailyState => {
  const end = endExclusive
  if (scalars.length !== SC_COUNT) throw new RangeError(`restoreFromBars: expected ${SC_COUNT} recursive scalars`)
  if (!Number.isInteger(count) || !Number.isInteger(end) || end < 0 || count < end) {
    throw new RangeError(`restoreFromBars: bad count ${count} / endExclusive ${end}`)
  }
  const close = bars.close
  const high = bars.high
  const low = bars.low
  const volume = bars.volume
  if (Math.min(close.length, high.length, low.length, volume.length, bars.days.length) < end) {
    throw new RangeError("restoreFromBars: bar arrays shorter than endExclusive")
  }
  const need = Math.min(count, restoreNeeds(config, families))
  if (end < need) throw new RangeError(`restoreFromBars: needs the last ${need} committed bars`)
  if (count > 0 && scalars[H.lastDay] !== bars.days[end - 1]) {
    throw new RangeError(
      `restoreFromBars: scalars are of day ${scalars[H.lastDay]}, the last bar is of day ${bars.days[end - 1]}`
    )
  }
  if (into !== undefined && !sameConfig(into.config, config)) {
    throw new RangeError("restoreFromBars: `into` has a different config")
  }
  const st = into ?? new DailyState(config)
  const hot = st.hot
  hot.set(scalars)
  st.count = count

  // as many of the newest bars as given: the families' readers read no further back than `restoreNeeds`
  st.closes.fillLatest(close, end, count)
  const scale = bars.ohlScale ?? 1
  st.highs.fillLatest(high, end, count, scale)
  st.lows.fillLatest(low, end, count, scale)
  if ((families & F.volume) !== 0) restoreVolumes(st, volume, close, end, count)
  if ((families & F.volatility) !== 0) restoreReturns(st, close, end, count)
  if ((families & F.averages) !== 0) {
    for (let i = 0; i < st.ma.length; i++) st.ma[i].rebuild(close, end, count)
    if (longSum !== undefined) {
      st.ma[LONG_MA].k = longSum[0]
      st.ma[LONG_MA].s1 = longSum[1]
    }
  }
  if ((families & F.bollinger) !== 0) st.bollinger.rebuild(count)
  if ((families & F.stochastic) !== 0) {
    st.high13.rebuild(count)
    st.low13.rebuild(count)
  }
  if ((families & F.yearRange) !== 0) {
    st.highYear.rebuild(count)
    st.lowYear.rebuild(count)
  }
  if (count > 0) refreshHot(st, families)
  else hot.fill(Number.NaN, SC_COUNT)
  return st
}

/** the parts of the state that read a year of bars back: their restore needs that year */
const YEAR_FAMILIES = F.averages | F.volume | F.volatility | F.bollinger | F.yearRange | F.returns

/**
 * The committed bars (the newest ones) a restore of `families` needs, at most: a year when they read
 * the windows of up to a year (the moving averages, volumes, volatility, Bollinger bands, the 52-week
 * range, the returns), the stochastic's 13 for its extremes, otherwise the last one (the previous
 * close, high and low: RSI, ATR and DMI are recursive scalars).
 */
export const restoreNeeds = (config: IndicatorConfig, families: number = ALL_FAMILIES): number =>
  (families & YEAR_FAMILIES) !== 0 ? config.yearDays : (families & F.stochastic) !== 0 ? STOCH_PERIOD - 1 : 1

/** The volume and dollar-volume rings and windows of a restore. */
const restoreVolumes = (
  st: DailyState,
  volume: ArrayLike<number>,
  close: ArrayLike<number>,
  end: number,
  count: number
) => {
  st.volumes.fill(volume, end, count)
  const dollarCount = Math.min(end, 2 * st.dollarVolume.length - 1)
  for (let j = 0; j < dollarCount; j++) {
    const i = end - dollarCount + j
    dollarScratch[j] = close[i] * volume[i]
  }
  st.dollarVolumes.fill(dollarScratch, dollarCount, count)
  for (let i = 0; i < st.volume.length; i++) st.volume[i].rebuild(volume, end, count)
  st.dollarVolume.rebuild(dollarScratch, dollarCount, count)
}

/** The log-return ring and the volatility windows of a restore. */
const restoreReturns = (st: DailyState, close: ArrayLike<number>, end: number, count: number) => {
  // the log returns exactly as `commit` pushed them (from the second commit)
  const returns = st.logReturns
  const pushedReturns = Math.max(0, count - 1)
  const returnCount = Math.min(pushedReturns, returns.capacity)
  const rb = returns.buf
  const rm = returns.mask
  for (let b = 0; b < returnCount; b++) {
    const x = Math.log(close[end - 1 - b] / close[end - 2 - b])
    rb[(pushedReturns - 1 - b) & rm] = x - x === 0 ? x : 0
  }
  returns.count = pushedReturns
  for (let i = 0; i < st.volatility.length; i++) st.volatility[i].rebuild(pushedReturns)
}
