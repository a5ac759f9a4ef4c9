/**
 * The committed per-ticker indicator state over completed daily bars.
 *
 * Hot/cold split: `preview` runs for every ticker on every refresh, so it
 * reads only `hot`, one contiguous Float64Array (56 doubles, 7 cache lines)
 * holding the recursive indicator values at the last committed day (the
 * first `SC_COUNT`, which with the bars are all the state there is: see
 * `restoreFromBars`) and the window aggregates it needs (committed-window
 * means, extremes, the closes the returns divide by). `commit` advances the
 * cold structures (bar rings and sliding windows) and then refreshes `hot`.
 * NaN in `hot` means "not defined yet" (window not full, too little history).
 *
 * Windows are stored as their committed part: an n-session indicator that
 * includes today keeps the last n - 1 completed values, so `preview` adds
 * today's partial bar in O(1) and `commit` slides the window in O(1).
 *
 * Memory: three rings of `yearDays` doubles (allocated to the next power
 * of two) plus rings of 51 volumes, 31 dollar volumes and 60 log returns, and
 * 2 x 97 doubles of Bollinger/volatility window suffixes, in one buffer per
 * state (the hot blocks are pooled, see `allocateHot`): measured with the
 * objects, about 14 KB per equity ticker (about 186 MB for 13,047 tickers).
 */
import { type IndicatorConfig, validateConfig } from "./config.js"
import { pow2AtLeast, Ring, WindowMoments, WindowSum } from "./window.js"
import { WindowExtreme } from "./windowExtreme.js"

/** A daily bar: a completed day for `commit`, or the open day so far for `preview`. */
export interface DailyBar {
  /** epoch day (UTC days since 1970-01-01) of the session */
  readonly day: number
  readonly open: number
  readonly high: number
  /** for `preview`, the lowest price so far */
  readonly low: number
  /** for `preview`, the last traded price */
  readonly close: number
  readonly volume: number
  /** session VWAP when the feed provides it; otherwise the typical price (h + l + c) / 3 is used */
  readonly vwap?: number | undefined
}

/** Moving-average periods: the five SMA/EMA columns, then the MACD fast and slow EMAs. */
export const MA_PERIODS = [10, 20, 50, 100, 200, 12, 26] as const
/** Completed-session averages of volume (these windows exclude today). */
export const VOLUME_PERIODS = [10, 20, 30, 50] as const
/** Log-return counts of the volatility columns. */
export const VOLATILITY_PERIODS = [20, 60] as const
export const DOLLAR_VOLUME_PERIOD = 30
export const BOLLINGER_PERIOD = 20
export const STOCH_PERIOD = 14
export const WILDER_PERIOD = 14
export const RETURN_COUNT = 5
/** Ring capacities: the outgoing value of each window must still be retained. */
const VOLUME_RING = Math.max(...VOLUME_PERIODS) + 1
const DOLLAR_RING = DOLLAR_VOLUME_PERIOD + 1
const RETURN_RING = Math.max(...VOLATILITY_PERIODS)

/**
 * Indexes into `DailyState.hot`. The first `SC_COUNT` entries are the
 * recursive scalars (`sc`): what cannot be recomputed from a bounded tail of
 * bars (EMAs, Wilder averages, OBV, streaks, ...). The rest are derived from
 * the rings and windows after every commit. Each Wilder-type average holds
 * the running sum of its seed values until its first day (`avgGain` holds
 * the sum of the gains of days 1..13 before day 14, `macdSignal` the sum of
 * the MACD values before the first signal, `adx` the sum of the DX values
 * before the first ADX).
 */
export const H = {
  lastDay: 0,
  lastYear: 1,
  prevYearClose: 2,
  /** 3..9: EMA at the last committed day, per MA_PERIODS index */
  ema: 3,
  macd: 10,
  macdSignal: 11,
  avgGain: 12,
  avgLoss: 13,
  atr: 14,
  plusDm: 15,
  minusDm: 16,
  adx: 17,
  obv: 18,
  upStreak: 19,
  downStreak: 20,
  stochK1: 21,
  stochK2: 22,
  sma50: 23,
  sma200: 24,
  // derived from the rings and windows
  prevClose: 25,
  prevHigh: 26,
  prevLow: 27,
  /** 28..34: mean of the committed part (period - 1 closes) of each moving average */
  maMean: 28,
  /** 35..38: mean volume of the last `period` completed sessions, per VOLUME_PERIODS index */
  volumeMean: 35,
  dollarVolumeMean: 39,
  /**
   * the committed part (19 closes) of the Bollinger window as deviations from
   * a close in it (`bbShift`, so a near-flat window at any price level keeps
   * its precision): their mean and M2
   */
  bbShift: 40,
  bbMean: 41,
  bbM2: 42,
  /** 43..44 and 45..46: mean and M2 of the committed log returns, per VOLATILITY_PERIODS index */
  volatilityMean: 43,
  volatilityM2: 45,
  /** extremes of the committed parts: 13 highs/lows (stochastic), yearDays - 1 highs/lows (52 weeks) */
  high13: 47,
  low13: 48,
  highYear: 49,
  lowYear: 50,
  /** 51..55: the close that week/month/quarter/half/year returns divide by */
  returnBase: 51
} as const
/**
 * The parts of a state a commit or a preview may leave out (`families`): a
 * walk that reads only some columns (a backtest of `rsi_14 < 30`) advances
 * only the parts those columns read (`familiesOf` in families.ts). The rest
 * is always advanced: the count, the last day and year, the close, high and
 * low rings and what is derived from them alone (previous close, high and
 * low; the returns' bases), OBV and the streaks. A part left out is stale
 * from then on: such a state is private to its walk (never checkpointed,
 * shared or committed in full again).
 */
export const F = {
  /** the moving averages' windows, EMAs, MACD and signal, SMA-50/200 */
  averages: 1,
  /** the volume and dollar-volume rings and windows */
  volume: 2,
  /** the Bollinger window */
  bollinger: 4,
  /** the log-return ring and the volatility windows */
  volatility: 8,
  /** RSI's Wilder averages of gains and losses */
  rsi: 16,
  /** the stochastic's 13-day extremes and %K history */
  stochastic: 32,
  /** the 52-week extremes */
  yearRange: 64,
  // parts of a preview only (what is always advanced suffices for them)
  /** the day's columns against the previous close: changes, gaps, VWAP, streaks, OBV */
  session: 128,
  /** the columns of the inputs: fundamentals, vendor fields, the earnings calendar, news */
  inputs: 256,
  /** ATR's and DMI's Wilder averages and ADX (a part of the state, listed here to keep the bits) */
  directional: 512,
  /** the trailing returns' columns, week to year and year to date (a preview's part) */
  returns: 1024
} as const
/** Every part: a state as `commit` keeps it, a row with every column. */
export const ALL_FAMILIES = 2047

/** The recursive scalars are `hot[0, SC_COUNT)`. */
export const SC_COUNT = 25
export const HOT_COUNT = 56

const ZERO_AT_START = [
  H.macdSignal,
  H.avgGain,
  H.avgLoss,
  H.atr,
  H.plusDm,
  H.minusDm,
  H.adx,
  H.obv,
  H.upStreak,
  H.downStreak
]

/** Doubles rounded up to whole 64-byte cache lines. */
const lines = (n: number): number => (n + 7) & ~7

/** Consecutive cache-line-aligned views of one Float64Array (one allocation per state). */
class Slab {
  private readonly memory: Float64Array
  private at = 0

  constructor(doubles: number) {
    this.memory = new Float64Array(doubles)
  }

  take(n: number): Float64Array {
    const view = new Float64Array(this.memory.buffer, this.at * 8, n)
    this.at += lines(n)
    return view
  }
}

/**
 * Hot blocks come from shared chunks, so the blocks of states created one
 * after another are adjacent: a refresh reads them in order as one stream
 * (prefetched) instead of 7 scattered cache lines per ticker, which is most
 * of a refresh's cost at 13k tickers. A chunk (229 KB) is freed when all of
 * its 512 states are.
 */
const HOT_STRIDE = lines(HOT_COUNT)
const HOT_CHUNK = 512
let hotChunk = new Float64Array(0)
let hotNext = HOT_CHUNK
const allocateHot = (): Float64Array => {
  if (hotNext === HOT_CHUNK) {
    hotChunk = new Float64Array(HOT_STRIDE * HOT_CHUNK)
    hotNext = 0
  }
  return new Float64Array(hotChunk.buffer, 8 * HOT_STRIDE * hotNext++, HOT_COUNT)
}

/** A state's slab apart from the three `yearDays` rings. */
const SLAB_FIXED =
  pow2AtLeast(VOLUME_RING) +
  pow2AtLeast(DOLLAR_RING) +
  pow2AtLeast(RETURN_RING) +
  lines(2 * (BOLLINGER_PERIOD - 1)) +
  VOLATILITY_PERIODS.reduce((sum, p) => sum + lines(2 * (p - 1)), 0)

export class DailyState {
  /** completed bars committed so far */
  count = 0
  /** everything `preview` reads; see `H` (the recursive scalars first) */
  readonly hot: Float64Array
  /** the `preview`-time return lookbacks, in `H.returnBase` order */
  readonly returnDays: ReadonlyArray<number>

  readonly closes: Ring
  readonly highs: Ring
  readonly lows: Ring
  readonly volumes: Ring
  /** close x volume of the committed days (not checkpointed: rebuilt from closes and volumes) */
  readonly dollarVolumes: Ring
  /** daily log returns of the committed days (from the second) */
  readonly logReturns: Ring

  /** committed parts (period - 1 closes) of the moving averages, per MA_PERIODS index */
  readonly ma: ReadonlyArray<WindowSum>
  /** the last `period` completed volumes, per VOLUME_PERIODS index */
  readonly volume: ReadonlyArray<WindowSum>
  readonly dollarVolume: WindowSum
  /** committed part (19 closes) of the Bollinger window */
  readonly bollinger: WindowMoments
  /** committed parts (period - 1 log returns), per VOLATILITY_PERIODS index */
  readonly volatility: ReadonlyArray<WindowMoments>
  readonly high13: WindowExtreme
  readonly low13: WindowExtreme
  /** committed parts (yearDays - 1 bars) of the 52-week window */
  readonly highYear: WindowExtreme
  readonly lowYear: WindowExtreme

  constructor(readonly config: IndicatorConfig) {
    validateConfig(config)
    const y = config.yearDays
    this.returnDays = [config.weekDays, config.monthDays, config.quarterDays, config.halfYearDays, y]
    // one allocation for the rings and window suffixes; no closures here (under tsx every closure
    // created costs a `__name` call, which once made up most of the cost of a state)
    const yearSize = pow2AtLeast(y)
    const slab = new Slab(SLAB_FIXED + 3 * yearSize)
    this.hot = allocateHot().fill(Number.NaN)
    for (let i = 0; i < ZERO_AT_START.length; i++) this.hot[ZERO_AT_START[i]] = 0
    this.closes = new Ring(y, slab.take(yearSize))
    this.highs = new Ring(y, slab.take(yearSize))
    this.lows = new Ring(y, slab.take(yearSize))
    this.volumes = new Ring(VOLUME_RING, slab.take(pow2AtLeast(VOLUME_RING)))
    this.dollarVolumes = new Ring(DOLLAR_RING, slab.take(pow2AtLeast(DOLLAR_RING)))
    this.logReturns = new Ring(RETURN_RING, slab.take(pow2AtLeast(RETURN_RING)))
    const ma = new Array<WindowSum>(MA_PERIODS.length)
    for (let i = 0; i < ma.length; i++) ma[i] = new WindowSum(this.closes, MA_PERIODS[i] - 1)
    this.ma = ma
    const volume = new Array<WindowSum>(VOLUME_PERIODS.length)
    for (let i = 0; i < volume.length; i++) volume[i] = new WindowSum(this.volumes, VOLUME_PERIODS[i])
    this.volume = volume
    this.dollarVolume = new WindowSum(this.dollarVolumes, DOLLAR_VOLUME_PERIOD)
    const bb = BOLLINGER_PERIOD - 1
    this.bollinger = new WindowMoments(this.closes, bb, slab.take(2 * bb))
    const volatility = new Array<WindowMoments>(VOLATILITY_PERIODS.length)
    for (let i = 0; i < volatility.length; i++) {
      const length = VOLATILITY_PERIODS[i] - 1
      volatility[i] = new WindowMoments(this.logReturns, length, slab.take(2 * length))
    }
    this.volatility = volatility
    this.high13 = new WindowExtreme(this.highs, STOCH_PERIOD - 1, 1)
    this.low13 = new WindowExtreme(this.lows, STOCH_PERIOD - 1, -1)
    this.highYear = new WindowExtreme(this.highs, y - 1, 1)
    this.lowYear = new WindowExtreme(this.lows, y - 1, -1)
  }

  /** Every sliding window, in a fixed order (for checkpoints). */
  windows(): ReadonlyArray<WindowSum | WindowMoments | WindowExtreme> {
    return [
      ...this.ma,
      ...this.volume,
      this.dollarVolume,
      this.bollinger,
      ...this.volatility,
      this.high13,
      this.low13,
      this.highYear,
      this.lowYear
    ]
  }
}

const NaN_ = Number.NaN

/**
 * Append a completed bar to the rings and slide every window (the cold part
 * of `commit`; the recursive scalars are the caller's). `logReturn` is
 * ignored on the first bar. Does not touch `count` or `hot`.
 */
export const pushBar = (
  st: DailyState,
  close: number,
  high: number,
  low: number,
  volume: number,
  logReturn: number,
  families: number = ALL_FAMILIES
) => {
  const first = st.count === 0
  st.closes.push(close)
  st.highs.push(high)
  st.lows.push(low)
  if ((families & F.volatility) !== 0 && !first) {
    st.logReturns.push(logReturn)
    const v = st.volatility
    for (let i = 0; i < v.length; i++) v[i].push()
  }
  if ((families & F.volume) !== 0) {
    st.volumes.push(volume)
    st.dollarVolumes.push(close * volume)
    const vol = st.volume
    for (let i = 0; i < vol.length; i++) vol[i].push()
    st.dollarVolume.push()
  }
  if ((families & F.averages) !== 0) {
    const ma = st.ma
    for (let i = 0; i < ma.length; i++) ma[i].push()
  }
  if ((families & F.bollinger) !== 0) st.bollinger.push()
  if ((families & F.stochastic) !== 0) {
    st.high13.push()
    st.low13.push()
  }
  if ((families & F.yearRange) !== 0) {
    st.highYear.push()
    st.lowYear.push()
  }
}

/**
 * Copy into `hot` the part of it `commit` reads (the previous close, high and
 * low, the moving averages' committed means, the stochastic's extremes): all
 * a run of commits needs between two bars. `refreshHot` copies the rest.
 */
export const refreshCommitInputs = (st: DailyState, families: number = ALL_FAMILIES): void => {
  const hot = st.hot
  const closes = st.closes
  hot[H.prevClose] = closes.buf[(closes.count - 1) & closes.mask]
  hot[H.prevHigh] = st.highs.at(0)
  hot[H.prevLow] = st.lows.at(0)
  if ((families & F.averages) !== 0) {
    const ma = st.ma
    for (let i = 0; i < ma.length; i++) hot[H.maMean + i] = ma[i].full ? ma[i].mean() : NaN_
  }
  if ((families & F.stochastic) !== 0) {
    hot[H.high13] = st.high13.full ? st.high13.value : NaN_
    hot[H.low13] = st.low13.full ? st.low13.value : NaN_
  }
}

/** Copy what `preview` needs from the cold structures into `hot` (after a commit). */
export const refreshHot = (st: DailyState, families: number = ALL_FAMILIES): void => {
  refreshCommitInputs(st, families)
  const hot = st.hot
  const closes = st.closes
  const cb = closes.buf
  const cm = closes.mask
  const head = closes.count - 1
  if ((families & F.volume) !== 0) {
    const vol = st.volume
    for (let i = 0; i < vol.length; i++) hot[H.volumeMean + i] = vol[i].full ? vol[i].mean() : NaN_
    hot[H.dollarVolumeMean] = st.dollarVolume.full ? st.dollarVolume.mean() : NaN_
  }
  if ((families & F.bollinger) !== 0) {
    const bb = st.bollinger
    hot[H.bbShift] = bb.full ? bb.shift : NaN_
    hot[H.bbMean] = bb.full ? bb.deviationMean : NaN_
    hot[H.bbM2] = bb.full ? bb.m2 : NaN_
  }
  if ((families & F.volatility) !== 0) {
    const v = st.volatility
    for (let i = 0; i < v.length; i++) {
      const w = v[i]
      hot[H.volatilityMean + i] = w.full ? w.mean : NaN_
      hot[H.volatilityM2 + i] = w.full ? w.m2 : NaN_
    }
  }
  if ((families & F.yearRange) !== 0) {
    hot[H.highYear] = st.highYear.full ? st.highYear.value : NaN_
    hot[H.lowYear] = st.lowYear.full ? st.lowYear.value : NaN_
  }
  if ((families & F.returns) !== 0) {
    const days = st.returnDays
    for (let i = 0; i < RETURN_COUNT; i++) {
      const d = days[i]
      hot[H.returnBase + i] = st.count >= d ? cb[(head - (d - 1)) & cm] : NaN_
    }
  }
}

/** A fresh state with no history. */
export const makeState = (config: IndicatorConfig): DailyState => new DailyState(config)
