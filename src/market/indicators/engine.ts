/**
 * The per-ticker daily cycle:
 *
 * - `preview(state, bar, inputs, sink, row)` computes every column for the
 *   still-open day from its partial bar (open, high and low so far, last
 *   price, volume so far) on top of the committed state, and writes them into
 *   row `row` of the snapshot columns bound in `sink`. The state is not
 *   touched, nothing is allocated; O(1) per ticker.
 * - `commit(state, bar)` appends a completed day: O(1) per day (a window
 *   extreme leaving the window costs a rescan of that window). It advances
 *   only the state (recursive scalars, rings, window aggregates) and computes
 *   no output column; its recursive values are the same expressions, in the
 *   same order and with the same null rules, as the ones `preview` writes for
 *   that bar, so the state after a commit is the one the previewed row implies.
 *
 * - `previewAll(states, bars, inputs, sink)` is `preview` for every row of
 *   a snapshot (row i from states[i], bars[i], inputs[i]). The live refresh
 *   previews row by row instead (`market/engine/liveRow.ts`), rewriting one bar
 *   and one set of inputs rather than holding arrays of them.
 *
 * The row of a completed day is the preview of its final bar on the state
 * before it, so live rows and rebuilt historical rows come from the same code.
 */
import {
  computeAverages as averages,
  MACD_FAST,
  MACD_FIRST,
  MACD_SIGNAL_PERIOD,
  MACD_SLOW,
  SIGNAL_FIRST
} from "./averages.js"
import { yearOfDay as civilYear } from "./days.js"
import { computeFundamentals as fundamentals, NO_INPUTS, type TickerInputs } from "./fundamentals.js"
import { ADX_FIRST, computeOscillators as oscillators } from "./oscillators.js"
import { computeRange as range } from "./range.js"
import { type Scratch, scratch } from "./scratch.js"
import { computeSession as session } from "./session.js"
import { type RowSink, scratchValues, writeRow as write } from "./sink.js"
import {
  ALL_FAMILIES,
  type DailyBar,
  type DailyState,
  F as FAMILIES,
  H as HOT,
  MA_PERIODS as MA_WINDOWS,
  pushBar as push,
  refreshHot as refresh,
  refreshCommitInputs as refreshInputs,
  WILDER_PERIOD
} from "./state.js"

// Module-level aliases of the functions called per ticker: under vitest every
// use of an imported binding is a getter call.
const computeSession = session
const computeAverages = averages
const computeOscillators = oscillators
const computeRange = range
const computeFundamentals = fundamentals
const writeRow = write
const shared = scratch
const yearOfDay = civilYear
const pushBar = push
const refreshHot = refresh
const refreshCommitInputs = refreshInputs
const H = HOT
const F = FAMILIES
const ALL = ALL_FAMILIES
const MA_PERIODS = MA_WINDOWS
const N = WILDER_PERIOD
const SMA_50_INDEX = MA_PERIODS.indexOf(50)
const SMA_200_INDEX = MA_PERIODS.indexOf(200)
const SIGNAL_ALPHA = 2 / (MACD_SIGNAL_PERIOD + 1)

/** Fill the scratch row with every column for `bar` as the day after the committed state. */
export const computeDay = (
  st: DailyState,
  bar: DailyBar,
  inputs: TickerInputs,
  r: Scratch = shared,
  families: number = ALL
): void => {
  r.clear()
  computeSession(st, bar, r, families)
  if ((families & F.averages) !== 0) computeAverages(st, bar, r, families)
  if ((families & (F.rsi | F.directional | F.stochastic)) !== 0) computeOscillators(st, bar, r, families)
  computeRange(st, bar, r, families)
  if ((families & F.inputs) !== 0) computeFundamentals(inputs, bar.day, r)
}

/** Write the row of the open day (or of a completed day not yet committed) into `sink` at `row`. */
export const preview = (
  st: DailyState,
  bar: DailyBar,
  inputs: TickerInputs,
  sink: RowSink,
  row: number,
  families: number = ALL
): void => {
  computeDay(st, bar, inputs, shared, families)
  writeRow(sink, row, shared)
}

/**
 * One refresh: `preview` every row `i` that has both a state and a bar
 * (rows without are left as they are, i.e. null in fresh columns).
 */
export const previewAll = (
  states: ReadonlyArray<DailyState | undefined>,
  bars: ReadonlyArray<DailyBar | undefined>,
  inputs: ReadonlyArray<TickerInputs | undefined>,
  sink: RowSink
): void => {
  const r = shared
  for (let i = 0; i < states.length; i++) {
    const st = states[i]
    const bar = bars[i]
    if (st === undefined || bar === undefined) continue
    computeDay(st, bar, inputs[i] ?? NO_INPUTS, r)
    writeRow(sink, i, r)
  }
}

const validBar = (bar: DailyBar): boolean =>
  bar.open > 0 &&
  bar.high > 0 &&
  bar.low > 0 &&
  bar.close > 0 &&
  bar.volume >= 0 &&
  Number.isFinite(bar.open + bar.high + bar.low + bar.close + bar.volume) &&
  Number.isInteger(bar.day)

/** What `Scratch.get` returns for a value stored with `put`: NaN for null (NaN, infinities). */
const orNaN = (x: number): number => (x - x === 0 ? x : Number.NaN)
/** What `Scratch.v` holds for a value stored with `put`: 0 for null. */
const orZero = (x: number): number => (x - x === 0 ? x : 0)

/**
 * Append a completed day. Throws a RangeError (state unchanged) for a
 * non-increasing day or a malformed bar.
 *
 * Mirrors, expression for expression, what `computeDay` derives for the bar
 * and adopts from it: the session values (OBV, streaks, log return), the
 * EMAs, MACD and signal, the Wilder averages and ADX, %K and the year, then
 * slides the rings and windows and refreshes `hot`.
 */
export const commit = (st: DailyState, bar: DailyBar, families: number = ALL): void => {
  advance(st, bar, families)
  refreshHot(st, families)
}

/**
 * `commit` for a run of bars: refreshes only the part of `hot` the next
 * commit reads (`refreshCommitInputs`) and leaves the rest of it stale, so a
 * run of commits skips most of `refreshHot`. After the run's last bar, call
 * `finishCommits(st)`: the state is then the one `commit` leaves, bit for bit
 * (the rest of `hot` is a pure function of the rings and windows). Until
 * then only the recursive scalars (`recursiveScalars`) may be read from it.
 */
export const commitDeferred = (st: DailyState, bar: DailyBar, families: number = ALL): void => {
  advance(st, bar, families)
  refreshCommitInputs(st, families)
}

/** Completes a run of `commitDeferred`: `hot` as `commit` leaves it (untouched when nothing was committed). */
export const finishCommits = (st: DailyState, families: number = ALL): void => {
  if (st.count > 0) refreshHot(st, families)
}

/** Everything `commit` does but the refresh of `hot`'s derived part. */
const advance = (st: DailyState, bar: DailyBar, families: number): void => {
  if (!validBar(bar)) throw new RangeError(`malformed daily bar: ${JSON.stringify(bar)}`)
  const hot = st.hot
  const n = st.count
  if (n > 0 && !(bar.day > hot[H.lastDay])) {
    throw new RangeError(`bar day ${bar.day} is not after the last committed day ${hot[H.lastDay]}`)
  }
  const day = bar.day
  const h = bar.high
  const l = bar.low
  const c = bar.close
  const v = bar.volume
  const pc = hot[H.prevClose]

  // session (session.ts): OBV, streaks, the log return
  let logReturn = 0
  if (n > 0) {
    hot[H.obv] = orZero(hot[H.obv] + (c > pc ? v : c < pc ? -v : 0))
    hot[H.upStreak] = orZero(c > pc ? hot[H.upStreak] + 1 : 0)
    hot[H.downStreak] = orZero(c < pc ? hot[H.downStreak] + 1 : 0)
    if ((families & F.volatility) !== 0) logReturn = orZero(Math.log(c / pc))
  }
  if ((families & F.averages) !== 0) advanceAverages(hot, n, c)
  if ((families & F.rsi) !== 0 && n >= 1) advanceRsi(hot, n, c, pc)
  if ((families & F.directional) !== 0 && n >= 1) advanceDirectional(hot, n, h, l, pc)
  if ((families & F.stochastic) !== 0) advanceStochastic(hot, h, l, c)

  // range (range.ts): the close the year-to-date return divides by
  const year = yearOfDay(day)
  if (n > 0 && year > hot[H.lastYear]) hot[H.prevYearClose] = pc
  hot[H.lastYear] = year

  pushBar(st, c, h, l, v, logReturn, families)
  st.count = n + 1
  hot[H.lastDay] = day
}

/** The averages' part of `advance`: the EMAs from the committed-window means, MACD, signal, SMA-50/200. */
const advanceAverages = (hot: Float64Array, n: number, c: number): void => {
  let emaFast = 0
  let emaSlow = 0
  for (let i = 0; i < MA_PERIODS.length; i++) {
    const m = hot[H.maMean + i]
    let ema = Number.NaN
    let sma = Number.NaN
    if (!Number.isNaN(m)) {
      const p = MA_PERIODS[i]
      sma = m + (c - m) / p
      const alpha = 2 / (p + 1)
      ema = orNaN(n === p - 1 ? sma : alpha * c + (1 - alpha) * hot[H.ema + i])
    }
    hot[H.ema + i] = ema
    if (i === MACD_FAST) emaFast = ema
    else if (i === MACD_SLOW) emaSlow = ema
    if (i === SMA_50_INDEX) hot[H.sma50] = orNaN(sma)
    else if (i === SMA_200_INDEX) hot[H.sma200] = orNaN(sma)
  }
  if (n >= MACD_FIRST) {
    const macd = orZero(emaFast) - orZero(emaSlow)
    hot[H.macd] = orNaN(macd)
    if (n >= SIGNAL_FIRST) {
      const previous = hot[H.macdSignal]
      hot[H.macdSignal] = orNaN(
        n === SIGNAL_FIRST
          ? (previous + macd) / MACD_SIGNAL_PERIOD
          : SIGNAL_ALPHA * macd + (1 - SIGNAL_ALPHA) * previous
      )
    } else {
      hot[H.macdSignal] += orZero(macd)
    }
  } else {
    hot[H.macd] = Number.NaN
  }
}

/** RSI's part of `advance` (oscillators.ts; from the second bar): the gains' and losses' seed sums until day N, then their Wilder averages. */
const advanceRsi = (hot: Float64Array, n: number, c: number, pc: number): void => {
  const change = c - pc
  const gain = Math.max(change, 0)
  const loss = Math.max(-change, 0)
  if (n < N) {
    hot[H.avgGain] += orZero(gain)
    hot[H.avgLoss] += orZero(loss)
  } else {
    const seeding = n === N
    const avgGain = seeding ? (hot[H.avgGain] + gain) / N : (hot[H.avgGain] * (N - 1) + gain) / N
    const avgLoss = seeding ? (hot[H.avgLoss] + loss) / N : (hot[H.avgLoss] * (N - 1) + loss) / N
    hot[H.avgGain] = orZero(avgGain)
    hot[H.avgLoss] = orZero(avgLoss)
  }
}

/** ATR's and DMI's part of `advance` (from the second bar): true range and directional moves, their Wilder averages, ADX. */
const advanceDirectional = (hot: Float64Array, n: number, h: number, l: number, pc: number): void => {
  const tr = Math.max(h, pc) - Math.min(l, pc)
  const up = h - hot[H.prevHigh]
  const down = hot[H.prevLow] - l
  const pdm = up > down && up > 0 ? up : 0
  const mdm = down > up && down > 0 ? down : 0
  if (n < N) {
    hot[H.atr] += orZero(tr)
    hot[H.plusDm] += orZero(pdm)
    hot[H.minusDm] += orZero(mdm)
  } else {
    const seeding = n === N
    const atr = seeding ? (hot[H.atr] + tr) / N : (hot[H.atr] * (N - 1) + tr) / N
    const pdmAvg = seeding ? (hot[H.plusDm] + pdm) / N : (hot[H.plusDm] * (N - 1) + pdm) / N
    const mdmAvg = seeding ? (hot[H.minusDm] + mdm) / N : (hot[H.minusDm] * (N - 1) + mdm) / N
    hot[H.atr] = orZero(atr)
    hot[H.plusDm] = orZero(pdmAvg)
    hot[H.minusDm] = orZero(mdmAvg)
    const pdi = atr > 0 ? (100 * pdmAvg) / atr : 0
    const mdi = atr > 0 ? (100 * mdmAvg) / atr : 0
    const dx = pdi + mdi > 0 ? (100 * Math.abs(pdi - mdi)) / (pdi + mdi) : 0
    if (n < ADX_FIRST) hot[H.adx] += orZero(dx)
    else hot[H.adx] = orNaN(n === ADX_FIRST ? (hot[H.adx] + dx) / N : (hot[H.adx] * (N - 1) + dx) / N)
  }
}

/** The stochastic's part of `advance`: today's %K from the committed 13-day extremes, the last two kept. */
const advanceStochastic = (hot: Float64Array, h: number, l: number, c: number): void => {
  const high13 = hot[H.high13]
  let k = Number.NaN
  if (!Number.isNaN(high13)) {
    const hh = Math.max(high13, h)
    const ll = Math.min(hot[H.low13], l)
    k = orNaN((100 * (c - ll)) / (hh - ll))
  }
  hot[H.stochK2] = hot[H.stochK1]
  hot[H.stochK1] = k
}

/** Commit every bar in order. */
export const commitAll = (st: DailyState, bars: Iterable<DailyBar>): DailyState => {
  for (const bar of bars) commit(st, bar)
  return st
}

/** The row of `bar` as plain values by column name, without touching the state (allocates; tests and single reads). */
export const previewValues = (
  st: DailyState,
  bar: DailyBar,
  inputs: TickerInputs = NO_INPUTS
): Record<string, number | boolean | null> => {
  computeDay(st, bar, inputs, shared)
  return scratchValues(shared)
}
