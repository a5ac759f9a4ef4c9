/**
 * The whole market's history from 2003, kept as a grid of states (`gridStates.ts`) rather than
 * as rows: every ticker's recursive indicator scalars and bar count before each grid day (every
 * 64 calendar days from 2003-01-02), and the system universes' monthly memberships over the same
 * years. With the bars — regenerated, the same bits (`generateBars.ts`) — that is every ticker's
 * state on any day: `deepSnapshot.ts` reads a whole-market row set off one grid day.
 *
 * Built in one walk of every bar (a worker thread: `deepGridWorker.ts`), the grid laid out grid
 * day by grid day (`block(k)`: `size · GRID_SLOT` doubles), so a read takes one contiguous block.
 */
import type { ParsedBar } from "../sources/csvBars.js"
import type { MarketSource } from "../sources/MarketSource.js"
import { computeMembershipFrom, firstOfMonth, type Membership, nextFirstOfMonth, TRAILING_DAYS } from "../universes.js"
import { BAR_GROUP, BARS_BEFORE_ORIGIN, type DeepBarsLayout, DeepBarsWriter } from "./deepBars.js"
import { DeepBarsReader } from "./deepBarsReader.js"
import { GRID_SLOT, gridDays, gridStates } from "./gridStates.js"

/** calendar days between grid days: a read replays at most this many days past its grid day */
export const DEEP_GRID_EVERY = 32
/** the grid's last day moves in steps of this many days (a multiple of `DEEP_GRID_EVERY`): a new grid once the window has moved that far */
export const DEEP_GRID_STEP = 64

export interface DeepGridSpec {
  readonly source: MarketSource
  readonly tickers: ReadonlyArray<{ readonly ticker: string; readonly asset_type: string }>
  readonly firstDay: Int32Array
  readonly imported: (i: number) => ReadonlyArray<ParsedBar> | undefined
  /** the first grid day (2003-01-02), the spacing, and the last day walked */
  readonly origin: number
  readonly every: number
  readonly toDay: number
  /** tickers walked at once */
  readonly group?: number | undefined
}

/** What a built grid holds besides its blocks. */
export interface DeepGridMeta {
  readonly origin: number
  readonly every: number
  /** grid days in the file */
  readonly days: number
  /** tickers per grid day */
  readonly size: number
  readonly toDay: number
  /** the system universes' memberships effective on each 1st from a full trailing window after `origin` to past `toDay` (into the window's first months) */
  readonly memberships: ReadonlyArray<Membership>
  /** where the walk's bars are, when they were kept (`deepBars.ts`) */
  readonly bars?: DeepBarsLayout | undefined
}

/**
 * The last day whose bars a grid of `spec` reads: the memberships reach past the grid into the
 * window's first months (whose own start there). Bars after it (an import into the window) leave
 * the grid as it is.
 */
export const deepGridBarsTo = (spec: Pick<DeepGridSpec, "toDay">): number => spec.toDay + DEEP_GRID_STEP + 62

/** The 1sts whose trailing 30 days lie after `origin`, to `toDay`: the memberships a grid holds. */
const effectiveDays = (origin: number, toDay: number): Array<number> => {
  const out: Array<number> = []
  for (let day = firstOfMonth(origin + TRAILING_DAYS); day <= toDay; day = nextFirstOfMonth(day)) {
    if (day >= origin + TRAILING_DAYS) out.push(day)
  }
  return out
}

/**
 * Walks every bar of every ticker once: `write(k, from, block)` receives grid day k's slots of the
 * tickers `from, from + 1, …` (a group at a time; `block.length / GRID_SLOT` of them), and
 * `writeBars`, when given, the bars from `BARS_BEFORE_ORIGIN` days before the first grid day to the
 * last day walked, block by block (`deepBars.ts`). Returns the grid's description with the
 * memberships (and the bars' layout).
 */
export function* buildDeepGrid(
  spec: DeepGridSpec,
  write: (k: number, from: number, block: Float64Array) => void,
  writeBars?: (bytes: Uint8Array) => void
): Generator<void, DeepGridMeta> {
  const size = spec.tickers.length
  const days = gridDays(spec.origin, spec.every, spec.toDay)
  const barsTo = deepGridBarsTo(spec)
  const bars =
    writeBars === undefined
      ? undefined
      : new DeepBarsWriter(size, spec.origin - BARS_BEFORE_ORIGIN, barsTo, writeBars, spec.group ?? BAR_GROUP)
  const firsts = effectiveDays(spec.origin, barsTo)
  const monthOf = new Map(firsts.map((d, m) => [d, m]))
  // close × volume summed over the 30 days before each 1st, per ticker: the ranking's input
  const dollars = new Float64Array(firsts.length * size)
  const addTo = (first: number, i: number, day: number, value: number) => {
    const m = monthOf.get(first)
    if (m !== undefined && day >= first - TRAILING_DAYS) dollars[m * size + i] += value
  }
  yield* gridStates({
    source: spec.source,
    assetTypes: spec.tickers.map((t) => t.asset_type),
    firstDay: spec.firstDay,
    imported: spec.imported,
    origin: spec.origin,
    every: spec.every,
    toDay: spec.toDay,
    barsTo,
    group: spec.group ?? BAR_GROUP,
    // a bar counts toward the next two 1sts at most (30 days is shorter than any two months)
    onBar: (i, day, open, high, low, close, volume) => {
      bars?.bar(i, day, open, high, low, close, volume)
      const value = close * volume
      const next = nextFirstOfMonth(day)
      addTo(next, i, day, value)
      addTo(nextFirstOfMonth(next), i, day, value)
    },
    onReached: (day) => bars?.reached(day),
    onGroup: (from, slots) => {
      bars?.endGroup()
      const block = new Float64Array(slots.length * GRID_SLOT)
      for (let k = 0; k < days; k++) {
        for (let t = 0; t < slots.length; t++) {
          block.set(slots[t].subarray(k * GRID_SLOT, (k + 1) * GRID_SLOT), t * GRID_SLOT)
        }
        write(k, from, block)
      }
    }
  })
  const names = spec.tickers.map((t) => t.ticker)
  const memberships = firsts.map((first, m) => computeMembershipFrom(first, names, (i) => dollars[m * size + i]))
  return { origin: spec.origin, every: spec.every, days, size, toDay: spec.toDay, memberships, bars: bars?.layout() }
}

/** A grid built in this thread and held in memory (tests, small markets): its reader (with the bars kept, unless `keepBars` is false). */
export const deepGridInMemory = (
  spec: DeepGridSpec,
  keepBars = true
): { meta: DeepGridMeta; block: (k: number) => Float64Array; bars: DeepBarsReader | undefined } => {
  const size = spec.tickers.length
  const days = gridDays(spec.origin, spec.every, spec.toDay)
  const data = new Float64Array(days * size * GRID_SLOT)
  const blocks: Array<Uint8Array> = []
  const walk = buildDeepGrid(
    spec,
    (k, from, block) => data.set(block, (k * size + from) * GRID_SLOT),
    keepBars ? (bytes) => blocks.push(bytes) : undefined
  )
  let step = walk.next()
  while (!step.done) step = walk.next()
  const meta = step.value
  const file = Buffer.concat(blocks)
  const bars =
    meta.bars === undefined
      ? undefined
      : new DeepBarsReader(meta.bars, (into, position) => into.set(file.subarray(position, position + into.length)))
  return { meta, block: (k) => data.subarray(k * size * GRID_SLOT, (k + 1) * size * GRID_SLOT), bars }
}
