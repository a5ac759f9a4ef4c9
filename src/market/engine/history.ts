/**
 * The market's daily history: every ticker's bars in the window (generated from
 * the seed, imported bars laid over them), its indicator state committed from
 * them with checkpoints, its history before the window built on demand
 * (`history/deepTicker.ts`), and the system universes' monthly memberships.
 */
import { BarSeries, barInto, newBar } from "../history/barSeries.js"
import { HISTORY_START_DAY } from "../history/coverage.js"
import { DEEP_GRID_EVERY, DEEP_GRID_STEP, type DeepGridSpec } from "../history/deepGrid.js"
import { buildDeepTicker, type DeepTicker } from "../history/deepTicker.js"
import { generateBars } from "../history/generateBars.js"
import { SeriesArena } from "../history/seriesArena.js"
import { epochDay } from "../indicators/days.js"
import { commitDeferred, configForAssetType, type DailyState, finishCommits, makeState } from "../indicators/index.js"
import { type Membership, computeMemberships as membershipsOf } from "../universes.js"
import type { MarketCore } from "./core.js"

/** Tickers whose history before the window is kept after a read (`deepOf`; ~150 KB each for twenty years) */
export const DEEP_CACHE_SIZE = 64

/**
 * (Re)generates the daily bars of `which` tickers from the start of history
 * to the last completed day, laying imported bars over the simulated ones.
 *
 * A simulated close is the ticker's level (`sim/levels.ts`: seekable, the same bits however
 * the day is reached) times its offset: 1 until a real bar (imported or replayed) was laid,
 * then that bar's close over the simulated close of its day, so the simulation resumes from
 * the real close.
 */
export function* generateSeries(core: MarketCore, which: ReadonlySet<number>, now: number): Generator<void, void> {
  const lastE = core.lastCompleteDay(false, now)
  const lastC = core.lastCompleteDay(true, now)
  const first = Math.min(core.startEquityDay, core.startCryptoDay)
  const last = Math.max(lastE, lastC)
  const slots = Int32Array.from(which).sort()
  for (const i of slots) core.levelOffset[i] = 1
  const fresh: Array<BarSeries | undefined> = new Array(core.size)
  const capacityOf = (i: number) => Math.ceil((last - first) * (core.isCrypto[i] ? 1 : 0.72)) + 8
  // the opens, highs and lows of every series while they are built: one allocation, which
  // `compact` below leaves whole to be freed (see BarSeries)
  let scratchSize = 0
  for (const i of slots) scratchSize += 3 * capacityOf(i)
  const scratch = new Float64Array(scratchSize)
  // the rest of their arrays: views of a few shared buffers (see BarSeries)
  const arena = new SeriesArena(scratchSize / 3)
  let scratchAt = 0
  for (const i of slots) {
    const capacity = capacityOf(i) + (core.imported.get(core.tickers[i].ticker)?.length ?? 0)
    fresh[i] = new BarSeries(capacity, scratch.subarray(scratchAt, scratchAt + 3 * capacity), arena)
    scratchAt += 3 * capacity
  }
  yield* generateBars({
    source: core.sim,
    slots,
    fromDay: (i) => core.windowDayOf(i),
    toDay: (i) => (core.isCrypto[i] === 1 ? lastC : lastE),
    origin: (i) => core.firstDay[i],
    crypto: (i) => core.isCrypto[i] === 1,
    imported: (i) => core.imported.get(core.tickers[i].ticker),
    offset: core.levelOffset,
    onBar: (i, day, open, high, low, close, volume) =>
      (fresh[i] as BarSeries).push(day, open, high, low, close, volume),
    onProgress: (done, total) => core.options.onProgress?.("history", done, total)
  })
  for (const i of slots) {
    const s = fresh[i] as BarSeries
    s.compact()
    core.series[i] = s
  }
}

/** Rebuilds the committed state and checkpoints of `which` tickers from their series. */
export function* commitSeries(core: MarketCore, which: ReadonlySet<number>, now: number): Generator<void, void> {
  let done = 0
  for (const i of which) {
    const st = makeState(configForAssetType(core.tickers[i].asset_type))
    const s = core.series[i]
    const until = core.sessionDay(i, now)
    // dense checkpoints inside the history window; the warm-up year before it gets sparse ones
    core.checkpoints.reset(i, s.indexAtOrAfter(epochDay(core.windowStart)))
    core.checkpoints.reserve(i, s.length)
    // the checkpoints read only the recursive scalars, which a deferred commit keeps current
    const bar = newBar()
    for (let j = 0; j < s.length && s.days[j] < until; j++) {
      core.checkpoints.beforeCommit(i, j, st)
      commitDeferred(st, barInto(s, j, bar))
    }
    finishCommits(st)
    core.states[i] = st
    if (++done % 500 === 0) {
      core.options.onProgress?.("indicators", done, which.size)
      yield
    }
  }
  core.options.onProgress?.("indicators", which.size, which.size)
}

/** The system universes' memberships, monthly over the window. */
export const computeMemberships = (core: MarketCore): Array<Membership> =>
  membershipsOf(
    Math.min(core.startEquityDay, core.startCryptoDay) + 30,
    core.crypto.day,
    core.tickers.map((t) => t.ticker),
    core.series
  )

/**
 * The state of ticker `i` with its bars before index `j` committed, for a
 * preview: the live state itself, or a rebuilt one in a scratch state that
 * the next call reuses (so it must be used before calling again).
 */
export const stateBefore = (core: MarketCore, i: number, j: number): DailyState => {
  if (core.checkpoints.committed(i) === j) return core.states[i]
  const key = core.isCrypto[i] === 1 ? "crypto" : "equity"
  const into = core.scratch.get(key)
  const st = core.checkpoints.stateBefore(i, j, core.series[i], core.tickers[i].asset_type, into)
  if (into === undefined) core.scratch.set(key, st)
  return st
}

/** A fresh copy of ticker `i`'s indicator state with its bars before index `j` committed (history walks). */
export const stateAt = (core: MarketCore, i: number, j: number, into?: DailyState, families?: number): DailyState =>
  core.checkpoints.stateBefore(i, j, core.series[i], core.tickers[i].asset_type, into, families)

/** Ticker `i`'s history from its first day to the day before its window; undefined when it has none. */
export const deepOf = (core: MarketCore, i: number): DeepTicker | undefined => {
  const toDay = core.windowDayOf(i) - 1
  const imported = core.imported.get(core.tickers[i].ticker)
  if (core.firstDay[i] > toDay && (imported === undefined || epochDay(imported[0].date) > toDay)) return undefined
  const cache = core.deepCache
  let deep = cache.get(i)
  if (deep !== undefined) {
    cache.delete(i)
  } else {
    deep = buildDeepTicker({
      source: core.sim,
      slot: i,
      crypto: core.isCrypto[i] === 1,
      imported,
      fromDay: core.firstDay[i],
      toDay,
      assetType: core.tickers[i].asset_type
    })
    if (cache.size >= DEEP_CACHE_SIZE) cache.delete(cache.keys().next().value as number)
  }
  cache.set(i, deep)
  return deep
}

/**
 * What the whole-market grid of this market's history before its window is built from
 * (`history/deepGrid.ts`): to the last grid day before the window, so the grid stays the same
 * while the window moves on (a read past its last grid day replays from it) for 64 days.
 */
export const deepGridSpec = (core: MarketCore): DeepGridSpec => {
  const last = wholeMarketFrom(core) - 1
  return {
    source: core.sim,
    tickers: core.tickers,
    firstDay: core.firstDay,
    imported: (i) => core.imported.get(core.tickers[i].ticker),
    origin: HISTORY_START_DAY,
    every: DEEP_GRID_EVERY,
    toDay: HISTORY_START_DAY + DEEP_GRID_STEP * Math.floor((last - HISTORY_START_DAY) / DEEP_GRID_STEP)
  }
}

/** The epoch days of ticker `i`'s first and last completed daily bars (undefined: none yet). */
export const dailyCoverage = (core: MarketCore, i: number): { from: number; to: number } | undefined => {
  const s = core.series[i]
  if (s.length === 0) return undefined
  const imported = core.imported.get(core.tickers[i].ticker)
  const firstImported = imported === undefined || imported.length === 0 ? s.days[0] : epochDay(imported[0].date)
  return { from: Math.min(core.firstDay[i], firstImported, s.days[0]), to: s.days[s.length - 1] }
}

/**
 * The first day every ticker's window holds (its warm-up year included): as-of snapshots from it on
 * are read off the window; before it, off the whole-market grid (`deepAsOf.ts`). An import of
 * older bars puts them in the window's series too, but for those tickers only.
 */
export const wholeMarketFrom = (core: MarketCore): number => Math.max(core.startEquityDay, core.startCryptoDay)

/** The earliest day any ticker has a bar in the window. */
export const earliestDay = (core: MarketCore): number => {
  let min = Number.POSITIVE_INFINITY
  for (const s of core.series) if (s.length > 0 && s.days[0] < min) min = s.days[0]
  return min
}
