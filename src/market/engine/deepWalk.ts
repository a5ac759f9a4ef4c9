/**
 * The market as a history walk sees it when the walk starts before the window (a backtest of
 * years, issue 17 item 3): the walked tickers' series reach back to the grid day before the first
 * day asked — their bars read from a year before it (kept beside the grid, or regenerated: the same bits as
 * their whole history), then the window's own bars — and `stateAt` rebuilds a state of that
 * series from the grid of states (`history/deepGrid.ts`), as `deepAsOf.ts` does for one day. A
 * walk from there commits every bar across the window's start, so every row it reads is the row
 * of the ticker's history from its first bar (inside the window that differs from the window's
 * own rows in the long-memory columns: the window's state starts a year before it; see
 * docs/market-data.md).
 *
 * Everything else reads through to the market (`Object.create`: a view, nothing copied).
 */
import { BarSeries } from "../history/barSeries.js"
import { appendStored, type DeepBarsReader } from "../history/deepBarsReader.js"
import { DEEP_GRID_EVERY } from "../history/deepGrid.js"
import { deepStateBefore } from "../history/deepTicker.js"
import { generateBars } from "../history/generateBars.js"
import { SeriesArena } from "../history/seriesArena.js"
import { readAnswers, type StretchRead } from "../history/stretchRead.js"
import { awaitStretchRead, helperReads, postStretchRead } from "../history/walkHelper.js"
import { followStart, START_SIZE } from "../history/walkStart.js"
import { ALL_FAMILIES, type DailyState, familiesOf } from "../indicators/index.js"
import { closesSuffice } from "../indicators/kernels.js"
import type { MarketCore } from "./core.js"
import { CARRY_FORWARD_DAYS } from "./core.js"
import { gridIndexFor, LOOKBACK_DAYS, lookbackDays, startAtGridDay } from "./deepAsOf.js"
import { deepOf } from "./history.js"
import type { MarketReader } from "./MarketReader.js"

/**
 * Bars one stretch of a walk before the window holds at once (walked tickers × sessions of its series,
 * `walkStretches`): ~220 MB of series.
 */
export const DEEP_WALK_MAX_BARS = 8_000_000

/** the shortest stretch cut (days) */
const MIN_STRETCH_DAYS = 64
/** equity sessions per calendar day, about (252 a year) */
const SESSIONS_PER_DAY = 0.72

/** One stretch of a long walk: its days, and the last day its series reach (undefined: the market's last). */
export interface Stretch {
  readonly from: number
  readonly to: number
  readonly through: number | undefined
}

/**
 * A walk of `tickers` tickers over `fromDay … toDay`, cut into stretches each read over series of its
 * own (`reachingBack(…, from, through)`: from `lookback` days before the grid day it restores at to
 * `tail` days past its end) holding at most `DEEP_WALK_MAX_BARS` bars — a walk over the whole market's twenty years
 * holds one stretch's series at a time, each restored from the grid of states. Days whose as-of
 * rows the window holds (`windowFrom` on, less the carry-forward) are one last stretch over the
 * market itself (`through` undefined).
 */
export const stretchesOf = (
  tickers: number,
  fromDay: number,
  toDay: number,
  tail: number,
  windowFrom: number,
  maxBars = DEEP_WALK_MAX_BARS,
  /** calendar days of bars read before a stretch's grid day (`lookbackDays`) */
  lookback = LOOKBACK_DAYS
): Array<Stretch> => {
  const held = Math.floor(maxBars / Math.max(1, tickers) / SESSIONS_PER_DAY)
  const span = Math.max(MIN_STRETCH_DAYS, held - lookback - DEEP_GRID_EVERY - CARRY_FORWARD_DAYS - tail)
  const out: Array<Stretch> = []
  for (let a = fromDay; a <= toDay; ) {
    if (a - CARRY_FORWARD_DAYS >= windowFrom) {
      out.push({ from: a, to: toDay, through: undefined })
      break
    }
    const b = Math.min(toDay, a + span - 1)
    out.push({ from: a, to: b, through: b + tail })
    a = b + 1
  }
  return out
}

/**
 * Where a walk's stretches keep their series: one arena, reused from one stretch to the next (a stretch
 * is read to its end before the next one's reader is called). Twenty whole-market years' stretches
 * otherwise each touched ~220 MB of new memory: its page faults, and external memory that brought the
 * collector's full collections sooner. With the stretches it serves (`walkStretchesOf`), a room also
 * has the walk helper read the next stretch's series off the bar file into a second arena while this
 * thread walks the one before (`stretchRead.ts`).
 */
export class StretchRoom {
  private current: SeriesArena | undefined
  private spare: SeriesArena | undefined
  private pending:
    | { readonly key: string; readonly plan: StretchPlan; readonly arena: SeriesArena; readonly read: StretchRead }
    | undefined
  /** stretches whose series the walk helper read (tests) */
  readsTaken = 0

  constructor(private readonly stretches: ReadonlyArray<Stretch> = []) {}

  /** room for `capacity` bars: the last stretch's arena emptied when it fits, else a new one */
  arena(capacity: number): SeriesArena {
    this.current = this.current?.reuse(capacity) ?? new SeriesArena(capacity)
    return this.current
  }

  /** the stretch walked after the one from `fromDay` (read ahead only before the window) */
  after(fromDay: number): { readonly from: number; readonly through: number } | undefined {
    const k = this.stretches.findIndex((s) => s.from === fromDay)
    const next = k < 0 ? undefined : this.stretches[k + 1]
    return next?.through === undefined ? undefined : { from: next.from, through: next.through }
  }

  /**
   * Posts the read of the stretch `key` names (`plan`'s series off `bars`; their days and closes alone with
   * `closesOnly`) to the walk helper, if one runs.
   */
  readAhead(key: string, plan: StretchPlan, bars: DeepBarsReader, closesOnly: boolean): void {
    const path = bars.path
    if (path === undefined || this.pending !== undefined || !helperReads()) return
    const arena = this.spare?.fits(plan.total) === true ? this.spare : new SeriesArena(plan.total)
    const read: StretchRead = {
      kind: "read",
      path,
      layout: bars.layout,
      arena: arena.parts(),
      total: plan.total,
      from: plan.from,
      slots: Int32Array.from(plan.capacities.keys()),
      capacities: Int32Array.from(plan.capacities.values()),
      ends: Int32Array.from(plan.capacities.keys(), plan.deepTo),
      ...readAnswers(plan.capacities.size),
      closesOnly
    }
    postStretchRead(read)
    this.spare = arena
    this.pending = { key, plan, arena, read }
  }

  /**
   * The stretch `key` names as the helper read it: the plan it read by (its series are taken by that
   * plan, whatever the window did since), its arena made this room's current one, and the series'
   * lengths (-1: read it here); undefined when it was not read ahead or the read failed (that arena is
   * then let go: a stuck helper may still write to it).
   */
  takeAhead(
    key: string
  ): { readonly plan: StretchPlan; readonly arena: SeriesArena; readonly lengths: Int32Array } | undefined {
    const pending = this.pending
    this.pending = undefined
    if (pending === undefined) return undefined
    if (pending.key !== key || !awaitStretchRead(pending.read)) {
      this.spare = undefined
      return undefined
    }
    const arena = pending.arena.rewind()
    this.spare = this.current
    this.current = arena
    this.readsTaken++
    return { plan: pending.plan, arena, lengths: pending.read.lengths }
  }
}

export const makeStretchRoom = (stretches: ReadonlyArray<Stretch> = []): StretchRoom => new StretchRoom(stretches)

/** One stretch of a history walk's days and the market it reads. */
export interface WalkStretch {
  readonly from: number
  readonly to: number
  /**
   * the market as the stretch reads it (before the window its tickers' series are built on the call,
   * in the room the stretch before had: call the readers in order, each once the stretch before is done)
   */
  readonly reader: () => MarketReader
}

/**
 * The stretches a history walk over `slots` from `fromDay` to `toDay` (a backtest, a dry-run) reads,
 * each with `tail` days of bars past its end (its exits, its forward returns): `stretchesOf` over
 * `md` (needs the grid when the walk starts before the window). With the walk's kept `columns`, each
 * stretch's series reach back only as far as restoring the parts of the state they read does
 * (`familiesOf`, `lookbackDays`: RSI's three weeks, not a year), and hold only the days and closes when
 * those are all the columns read (`closesSuffice`). The stretches' series share one room
 * (`makeStretchRoom`): a stretch's series are not read once the next stretch's reader is called.
 */
export const walkStretchesOf = (
  md: MarketReader,
  slots: ReadonlyArray<number>,
  fromDay: number,
  toDay: number,
  tail: number,
  /** the columns the walk keeps (undefined: every column, whole bars) */
  columns?: ReadonlyArray<string>
): Array<WalkStretch> => {
  const families = familiesOf(columns)
  const reads: StretchReads = columns !== undefined && closesSuffice(columns) ? "closes" : "bars"
  const stretches = stretchesOf(
    slots.length,
    fromDay,
    toDay,
    tail,
    md.wholeMarketFrom,
    DEEP_WALK_MAX_BARS,
    lookbackDays(families)
  )
  const room = makeStretchRoom(stretches)
  return stretches.map(({ from, to, through }) => ({
    from,
    to,
    reader: () => (through === undefined ? md : md.reachingBack(slots, from, through, families, room, reads))
  }))
}

/** What one stretch's series hold (`reachingBack`): the grid day it restores at, the days and the room read. */
export interface StretchPlan {
  /** the grid day's index, and the day */
  readonly k: number
  readonly gridDay: number
  /** the first day read */
  readonly from: number
  /** each walked ticker's room in bars, ticker by ticker (ascending) */
  readonly capacities: ReadonlyMap<number, number>
  /** their sum */
  readonly total: number
  /** the last day of ticker `i`'s deep part read */
  readonly deepTo: (i: number) => number
  /** whether the window's bars go on ticker `i`'s series (the stretch reaches them) */
  readonly withWindow: (i: number) => boolean
}

/** The plan of the stretch of `slots` from `fromDay` to `through` (the grid laid). */
const planStretch = (
  core: MarketCore,
  slots: ReadonlyArray<number>,
  fromDay: number,
  through: number,
  families: number
): StretchPlan => {
  const meta = core.deepGrid!.meta
  const k = gridIndexFor(meta, fromDay)
  const gridDay = meta.origin + meta.every * k
  const from = gridDay - lookbackDays(families)
  /** the first day of ticker `i`'s window: its own bars (imported older ones included) */
  const windowFrom = (i: number) => {
    const window = core.series[i]
    return window.length > 0 ? window.days[0] : core.windowDayOf(i)
  }
  const withWindow = (i: number) => through >= windowFrom(i)
  const deepTo = (i: number) => Math.min(windowFrom(i) - 1, through)
  const capacities = new Map<number, number>()
  let total = 0
  for (const i of Int32Array.from(slots).sort()) {
    const to = deepTo(i)
    if (to < from) continue
    const capacity =
      Math.ceil((to - from + 1) * (core.isCrypto[i] ? 1 : SESSIONS_PER_DAY)) +
      8 +
      (withWindow(i) ? core.series[i].length : 0)
    capacities.set(i, capacity)
    total += capacity
  }
  return { k, gridDay, from, capacities, total, deepTo, withWindow }
}

/**
 * How a stretch's series read their bars before the window: whole, or their days and closes alone — for a
 * walk whose kept columns read nothing else (`indicators/kernels.ts` `closesSuffice`); its view answers no
 * `stateAt` of those series (a state is rebuilt from whole bars) and its opens, highs, lows and volumes
 * there are zero.
 */
export type StretchReads = "bars" | "closes"

/** what names a stretch of a walk read ahead */
const stretchKey = (fromDay: number, through: number, families: number, reads: StretchReads): string =>
  `${fromDay}:${through}:${families}:${reads}`

/**
 * `md` with the series of `slots` reaching back to `fromDay` (an as-of row of `fromDay` included:
 * 14 days of carry-forward before it), for a walk — to the market's last bar, or with `through`
 * (before the window) to that day. Needs the grid laid (`core.deepGrid`).
 */
export const reachingBack = (
  core: MarketCore,
  md: MarketReader,
  slots: ReadonlyArray<number>,
  fromDay: number,
  through = Number.POSITIVE_INFINITY,
  /** the parts of the state the walk reads: the series reach back as far as their restores read */
  families: number = ALL_FAMILIES,
  /** where the series are kept (a walk's stretches share one: `walkStretchesOf`) */
  room?: StretchRoom,
  reads: StretchReads = "bars"
): MarketReader => {
  const closesOnly = reads === "closes"
  const grid = core.deepGrid
  if (grid === undefined) throw new Error("the whole market's history before the window is not built")
  // the series' arrays as views of a few buffers, their opens, highs and lows int32 ticks from the
  // start: the new memory a walk touches is most of what building its series costs (~3 ms a MB). Read
  // ahead by the walk helper (the stretch before posted it), the same views hold their bars already.
  const ahead = room?.takeAhead(stretchKey(fromDay, through, families, reads))
  const plan = ahead?.plan ?? planStretch(core, slots, fromDay, through, families)
  const { gridDay, from, deepTo, withWindow } = plan
  const block = grid.block(plan.k)
  const series: Array<BarSeries> = [...core.series]
  const extended = new Set<number>()
  const stored = grid.bars
  const arena = ahead?.arena ?? (room === undefined ? new SeriesArena(plan.total) : room.arena(plan.total))
  const fresh = new Map<number, BarSeries>()
  const again: Array<number> = []
  let p = 0
  for (const [i, capacity] of plan.capacities) {
    const s = BarSeries.scaledIn(capacity, arena)
    fresh.set(i, s)
    if (ahead === undefined) continue
    const n = ahead.lengths[p++]!
    if (n >= 0) s.length = n
    else again.push(i)
  }
  const walked = Int32Array.from(fresh.keys()).sort()
  const onBar = (i: number, d: number, o: number, h: number, l: number, c: number, v: number) => {
    if (d >= from) fresh.get(i)!.push(d, o, h, l, c, v)
  }
  // read off the bar file where it holds the range (tickers listed after its end generate theirs)
  const covered = (i: number) => stored?.covers(from, deepTo(i)) === true
  const read = (ahead === undefined ? walked : Int32Array.from(again)).filter(covered)
  if (stored !== undefined && read.length > 0)
    appendStored(stored, read, from, deepTo, (i) => fresh.get(i)!, closesOnly)
  const rest = walked.filter((i) => !covered(i))
  const walk = generateBars({
    source: core.sim,
    slots: rest,
    fromDay: () => from,
    toDay: deepTo,
    origin: (i) => core.firstDay[i],
    crypto: (i) => core.isCrypto[i] === 1,
    imported: (i) => core.imported.get(core.tickers[i].ticker),
    offset: new Float64Array(core.size).fill(1),
    onBar
  })
  while (!walk.next().done) {}
  for (const [i, s] of fresh) {
    // the years before as the window keeps its own (int32 prices where they can), then the window's bars copied
    s.compact()
    if (withWindow(i)) s.appendSeries(core.series[i], closesOnly)
    series[i] = s
    extended.add(i)
  }
  /**
   * the recipe of extended series `i`'s state before its bar `j` (of the parts `families` names) off the grid
   * day; false when the grid cannot give it
   */
  const startAt = (i: number, j: number, out: Float64Array, at: number, families?: number): boolean => {
    if (!extended.has(i)) return md.startAt(i, j, out, at, families)
    const s = series[i]
    const e = startAtGridDay(block, i, core.tickers[i].asset_type, s, s.length, gridDay, out, at, families)
    return e !== undefined && j >= e
  }
  const recipe = new Float64Array(START_SIZE)

  /** the state of extended series `i` before its bar `j`: off the grid day, or the ticker's own history */
  const stateAt = (i: number, j: number, into?: DailyState, families?: number): DailyState => {
    if (!extended.has(i)) return md.stateAt(i, j, into, families)
    if (closesOnly) throw new Error(`a walk over closes alone asked for a state of ${core.tickers[i].ticker}`)
    const s = series[i]
    if (startAt(i, j, recipe, 0, families)) {
      return followStart(recipe, 0, core.tickers[i].asset_type, s, j, into, families ?? ALL_FAMILIES)
    }
    // too few bars before the grid day (a sparse import), or a bar before it: the ticker's own history
    const deep = deepOf(core, i)
    const jd = deep === undefined ? -1 : deep.series.indexAtOrBefore(s.days[j] - 1) + 1
    if (deep === undefined || jd >= deep.series.length || deep.series.days[jd] !== s.days[j])
      throw new Error(`no state of ${core.tickers[i].ticker} before ${s.days[j]}`)
    return deepStateBefore(deep, jd)
  }

  // the next stretch's series, read by the walk helper while this one is walked
  const next = room?.after(fromDay)
  if (room !== undefined && next !== undefined && stored !== undefined) {
    const key = stretchKey(next.from, next.through, families, reads)
    room.readAhead(key, planStretch(core, slots, next.from, next.through, families), stored, closesOnly)
  }

  const view = Object.create(md) as MarketReader & { series: ReadonlyArray<BarSeries> }
  Object.defineProperty(view, "series", { value: series })
  Object.defineProperty(view, "stateAt", { value: stateAt })
  Object.defineProperty(view, "startAt", { value: startAt })
  return view
}
