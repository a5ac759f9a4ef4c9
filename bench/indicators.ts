/**
 * Speed of the incremental indicator engine (src/market/indicators): commit,
 * preview, a full 13,047-ticker refresh and the light restore from bars.
 *
 * The bars are seeded random walks (geometric, 0.8-4% daily volatility,
 * occasional earnings jumps, intraday ranges, lognormal volumes with spikes,
 * prices in cents): 2,000 tickers x 512 sessions. Every figure is the median
 * (and the minimum) of several repetitions, printed next to a baseline run in
 * the same process (a plain loop over the same typed arrays doing a fixed,
 * comparable amount of arithmetic) and the ratio, so a slower or busier
 * machine shows in both columns.
 *
 *   npm run bench:indicators      (node --import tsx bench/indicators.ts)
 */
import { performance } from "node:perf_hooks"
import {
  allocateColumns,
  type BarArrays,
  bindColumns,
  commit,
  type DailyBar,
  type DailyState,
  EQUITY_DAILY,
  epochDay,
  makeState,
  NO_INPUTS,
  preview,
  previewAll,
  recursiveScalars,
  restoreFromBars,
  type TickerInputs
} from "../src/market/indicators/index.js"

const TICKERS = 2_000
const DAYS = 512
const REFRESH_TICKERS = 13_047
const REPS = 7

// ---------------------------------------------------------------- the bars

/** mulberry32 */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
}
const rand = prng(20260526)
const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand())
const cents = (x: number) => Math.max(0.01, Math.round(x * 100) / 100)

interface Series extends BarArrays {
  readonly days: Int32Array
  readonly open: Float64Array
  readonly high: Float64Array
  readonly low: Float64Array
  readonly close: Float64Array
  readonly volume: Float64Array
}

const weekdays = (from: number, n: number): Int32Array => {
  const out = new Int32Array(n)
  for (let d = from, i = 0; i < n; d++) if ((d + 3) % 7 < 5) out[i++] = d
  return out
}
const DAY_LIST = weekdays(epochDay("2024-01-01"), DAYS)

const randomWalk = (): Series => {
  const s: Series = {
    days: DAY_LIST,
    open: new Float64Array(DAYS),
    high: new Float64Array(DAYS),
    low: new Float64Array(DAYS),
    close: new Float64Array(DAYS),
    volume: new Float64Array(DAYS)
  }
  const sigma = 0.008 + rand() * 0.032
  const drift = (rand() - 0.45) * 0.002
  const avgVolume = 10 ** (4 + rand() * 3)
  let prev = 5 * Math.exp(rand() * 4.6)
  for (let t = 0; t < DAYS; t++) {
    const jump = rand() < 1 / 60 ? gauss() * 0.08 : 0
    const open = cents(prev * Math.exp(gauss() * sigma * 0.3 + jump))
    const close = cents(open * Math.exp(drift + gauss() * sigma))
    s.open[t] = open
    s.close[t] = close
    s.high[t] = cents(Math.max(open, close) * Math.exp(Math.abs(gauss()) * sigma * 0.4))
    s.low[t] = cents(Math.min(open, close) * Math.exp(-Math.abs(gauss()) * sigma * 0.4))
    s.volume[t] = Math.round(avgVolume * Math.exp(0.5 * gauss() + (jump !== 0 ? 1.5 : 0)))
    prev = close
  }
  return s
}
const series: ReadonlyArray<Series> = Array.from({ length: TICKERS }, randomWalk)

/** One mutable bar, filled from the arrays before each call (as a feed reading columns would). */
const bar = { day: 0, open: 0, high: 0, low: 0, close: 0, volume: 0 }
const load = (s: Series, t: number): DailyBar => {
  bar.day = s.days[t]
  bar.open = s.open[t]
  bar.high = s.high[t]
  bar.low = s.low[t]
  bar.close = s.close[t]
  bar.volume = s.volume[t]
  return bar
}

// ---------------------------------------------------------------- measuring

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** Median and minimum over `reps` runs of `f`, in ms per run. */
const measure = (reps: number, f: () => void): { median: number; min: number } => {
  const times: Array<number> = []
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now()
    f()
    times.push(performance.now() - t0)
  }
  return { median: median(times), min: Math.min(...times) }
}

let sink = 0
const report = (label: string, unit: "us" | "ms", per: number, m: ReturnType<typeof measure>, base: typeof m) => {
  const scale = unit === "us" ? 1000 / per : 1 / per
  const fmt = (x: number) => (x * scale).toFixed(unit === "us" ? 3 : 1).padStart(8)
  console.log(
    `${label.padEnd(40)} ${fmt(m.median)} ${unit} (min ${fmt(m.min).trim()})   baseline ${fmt(base.median)} ${unit}   ratio ${(m.median / base.median).toFixed(1)}`
  )
}

// ---------------------------------------------------------------- commit

const COMMITTED = DAYS - 1
let states: Array<DailyState> = []
const commitAll = () => {
  states = new Array<DailyState>(TICKERS)
  for (let i = 0; i < TICKERS; i++) {
    const st = makeState(EQUITY_DAILY)
    const s = series[i]
    for (let t = 0; t < COMMITTED; t++) commit(st, load(s, t))
    states[i] = st
  }
}
/** Baseline: per bar, the same fill plus 128 additions over the close array (a naive 128-day window sum). */
const commitBaseline = () => {
  let acc = 0
  for (let i = 0; i < TICKERS; i++) {
    const s = series[i]
    const c = s.close
    for (let t = 0; t < COMMITTED; t++) {
      const b = load(s, t)
      let w = b.close
      for (let k = 1; k < 128; k++) w += c[(t - k) & 511]
      acc += w
    }
  }
  sink += acc
}
commitAll()
commitBaseline()
const commitTime = measure(REPS, commitAll)
const commitBase = measure(REPS, commitBaseline)

// ---------------------------------------------------------------- preview

const PREVIEW_ROUNDS = 20
const lastBars: Array<DailyBar> = series.map((s) => ({ ...load(s, COMMITTED) }))
const previewColumns = allocateColumns(TICKERS)
const previewSink = bindColumns(previewColumns)
const previewRounds = () => {
  for (let r = 0; r < PREVIEW_ROUNDS; r++) {
    for (let i = 0; i < TICKERS; i++) preview(states[i], lastBars[i], NO_INPUTS, previewSink, i)
  }
}
const OUTPUT_COLUMNS = previewColumns.size
/** Baseline: per row, one addition and one store into each of the ~130 columns of a same-sized buffer. */
const writeBuffer = new Float64Array(OUTPUT_COLUMNS * REFRESH_TICKERS)
const writeBaseline = (rows: number, bars: ReadonlyArray<DailyBar>) => {
  for (let i = 0; i < rows; i++) {
    const x = bars[i].close
    for (let j = 0; j < OUTPUT_COLUMNS; j++) writeBuffer[j * rows + i] = x + j
  }
}
const previewBaseline = () => {
  for (let r = 0; r < PREVIEW_ROUNDS; r++) writeBaseline(TICKERS, lastBars)
}
previewRounds()
previewBaseline()
const previewTime = measure(REPS, previewRounds)
const previewBase = measure(REPS, previewBaseline)

// ---------------------------------------------------------------- restoreFromBars

const scalars = states.map(recursiveScalars)
let restored: Array<DailyState> = []
const restoreAll = () => {
  restored = new Array<DailyState>(TICKERS)
  for (let i = 0; i < TICKERS; i++)
    restored[i] = restoreFromBars(EQUITY_DAILY, scalars[i], COMMITTED, series[i], COMMITTED)
}
/** Baseline: copy the last 252 closes, highs and lows and 51 volumes into rings, plus 400 additions (the SMA-200 replay). */
const ringCopy = new Float64Array(4 * 256)
const restoreBaseline = () => {
  let acc = 0
  for (let i = 0; i < TICKERS; i++) {
    const s = series[i]
    for (let b = 0; b < 252; b++) {
      const t = COMMITTED - 1 - b
      ringCopy[b] = s.close[t]
      ringCopy[256 + b] = s.high[t]
      ringCopy[512 + b] = s.low[t]
    }
    for (let b = 0; b < 51; b++) ringCopy[768 + b] = s.volume[COMMITTED - 1 - b]
    for (let b = 0; b < 400; b++) acc += s.close[COMMITTED - 1 - b]
  }
  sink += acc
}
/** Into one reused state (a history reader restoring, previewing and moving on): no allocation. */
const reused = makeState(EQUITY_DAILY)
const restoreInto = () => {
  for (let i = 0; i < TICKERS; i++) restoreFromBars(EQUITY_DAILY, scalars[i], COMMITTED, series[i], COMMITTED, reused)
}
restoreAll()
restoreInto()
restoreBaseline()
const restoreTime = measure(REPS, restoreAll)
const restoreIntoTime = measure(REPS, restoreInto)
const restoreBase = measure(REPS, restoreBaseline)

// the restored states must preview exactly like the committed ones
const a = allocateColumns(TICKERS)
const b = allocateColumns(TICKERS)
previewAll(states, lastBars, [], bindColumns(a))
previewAll(restored, lastBars, [], bindColumns(b))
let same = true
for (const [name, column] of a) {
  const other = b.get(name)!
  for (let i = 0; i < TICKERS; i++) {
    if (column.values[i] !== other.values[i] || column.valid[i] !== other.valid[i]) same = false
  }
}

// ---------------------------------------------------------------- a full refresh

const refreshStates: Array<DailyState> = Array.from({ length: REFRESH_TICKERS }, (_, i) =>
  restoreFromBars(EQUITY_DAILY, scalars[i % TICKERS], COMMITTED, series[i % TICKERS], COMMITTED)
)
const today = refreshStates.map((_, i) => lastBars[i % TICKERS])
// the refresh loop reuses one mutable partial bar per ticker, as a feed would
const partial = today.map((x) => ({ ...x }))
const inputs: Array<TickerInputs> = refreshStates.map((_, i) => ({
  ...NO_INPUTS,
  sharesOutstanding: 1e6 * (1 + (i % 5000)),
  eps: (i % 7) - 2,
  earningsDay: DAY_LIST[COMMITTED] + (i % 10)
}))
const refreshSink = bindColumns(allocateColumns(REFRESH_TICKERS))
let tick = 0
const nextTick = () => {
  tick++
  for (let i = 0; i < REFRESH_TICKERS; i++) {
    const p = partial[i]
    p.close = today[i].close * (1 + ((tick + i) % 11) / 1000)
    p.high = Math.max(p.high, p.close)
    p.low = Math.min(p.low, p.close)
    p.volume = today[i].volume * (0.5 + (tick % 20) / 40)
  }
}
const refresh = () => {
  nextTick()
  previewAll(refreshStates, partial, inputs, refreshSink)
}
/** Baseline: the same partial-bar updates, then one addition and store per column and row. */
const refreshBaseline = () => {
  nextTick()
  writeBaseline(REFRESH_TICKERS, partial)
}
for (let w = 0; w < 5; w++) refresh()
const refreshTime = measure(15, refresh)
const refreshBase = measure(15, refreshBaseline)

// ---------------------------------------------------------------- report

console.log(
  `${TICKERS} random-walk tickers x ${DAYS} sessions; ${OUTPUT_COLUMNS} output columns; median of ${REPS} runs (15 for the refresh)`
)
report(`commit (${TICKERS} x ${COMMITTED}, per call)`, "us", TICKERS * COMMITTED, commitTime, commitBase)
report(`preview (${TICKERS} x ${PREVIEW_ROUNDS}, per call)`, "us", TICKERS * PREVIEW_ROUNDS, previewTime, previewBase)
report(`refresh: previewAll of ${REFRESH_TICKERS} tickers`, "ms", 1, refreshTime, refreshBase)
report("restoreFromBars, new state (per ticker)", "us", TICKERS, restoreTime, restoreBase)
report("restoreFromBars, into a reused state", "us", TICKERS, restoreIntoTime, restoreBase)
console.log(
  `cold start estimate: ${REFRESH_TICKERS} x 512 commits = ${((REFRESH_TICKERS * 512 * commitTime.median) / TICKERS / COMMITTED / 1000).toFixed(1)} s`
)
console.log(`restored states preview bit-for-bit like the committed ones: ${same ? "yes" : "NO"}`)
if (sink === 42) console.log("")
