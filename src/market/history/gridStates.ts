/**
 * Every ticker's indicator state on a calendar grid, from its first bar: the recursive scalars
 * (`SC_COUNT` doubles) and the number of bars committed, as they stand before the first bar on or
 * after each grid day (grid day g = `origin + every · k`). With the bars, that is all of a state
 * (`restoreFromBars`): a whole-market row on any day replays at most `every` days of bars from the
 * grid day before it, and the in-memory window can start from the state of its first grid day.
 *
 * The walk goes a group of tickers at a time (their states only in memory: ~14 KB a ticker), the
 * bars from `generateBars` — the history's one definition — committed as they come.
 */
import {
  commitDeferred,
  configForAssetType,
  copyLongSum,
  copyRecursiveScalars,
  type DailyState,
  LONG_SUM_SIZE,
  makeState,
  SC_COUNT
} from "../indicators/index.js"
import type { ParsedBar } from "../sources/csvBars.js"
import type { MarketSource } from "../sources/MarketSource.js"
import { generateBars } from "./generateBars.js"

/** doubles per ticker per grid day: the recursive scalars, the bars committed (at `SC_COUNT`), then the SMA-200 running sum (`copyLongSum`, at `GRID_LONG_SUM`) */
export const GRID_SLOT = SC_COUNT + 1 + LONG_SUM_SIZE
export const GRID_LONG_SUM = SC_COUNT + 1

export interface GridSpec {
  readonly source: MarketSource
  readonly assetTypes: ReadonlyArray<string>
  /** per ticker: its first day (`coverage.ts`) */
  readonly firstDay: Int32Array
  readonly imported: (i: number) => ReadonlyArray<ParsedBar> | undefined
  /** the grid: its first day and spacing (calendar days), and the last day walked */
  readonly origin: number
  readonly every: number
  readonly toDay: number
  /** the last day bars are generated to (`onBar` sees them; default `toDay`): the grid itself stops at `toDay` */
  readonly barsTo?: number | undefined
  /** tickers per group */
  readonly group?: number | undefined
  /** receives, for each ticker, its slots of every grid day (`GRID_SLOT` doubles each; a ticker without a bar yet: count 0) */
  readonly onTicker?: ((i: number, slots: Float64Array) => void) | undefined
  /** receives each group once walked: its first slot and its tickers' slots (as `onTicker`'s), in slot order */
  readonly onGroup?: ((from: number, slots: ReadonlyArray<Float64Array>) => void) | undefined
  /** sees every bar as it is committed (in day order per ticker; imported bars laid before a ticker's first day first) */
  readonly onBar?:
    | ((i: number, day: number, open: number, high: number, low: number, close: number, volume: number) => void)
    | undefined
  /** told, during a group's walk, that every bar of the group up to `day` has come */
  readonly onReached?: ((day: number) => void) | undefined
}

/** The grid days of a spec: origin, origin + every, … ≤ toDay. */
export const gridDays = (origin: number, every: number, toDay: number): number =>
  toDay < origin ? 0 : Math.floor((toDay - origin) / every) + 1

export function* gridStates(spec: GridSpec): Generator<void, void> {
  const size = spec.source.size
  const group = spec.group ?? 512
  const days = gridDays(spec.origin, spec.every, spec.toDay)
  const offset = new Float64Array(size).fill(1)
  for (let from = 0; from < size; from += group) {
    const slots = Int32Array.from({ length: Math.min(group, size - from) }, (_, k) => from + k)
    const states = new Map<number, DailyState>()
    const out = new Map<number, Float64Array>()
    /** per ticker: the next grid day index to record */
    const next = new Map<number, number>()
    const record = (i: number, st: DailyState, upTo: number) => {
      const buf = out.get(i) as Float64Array
      let k = next.get(i) as number
      for (; k < days && spec.origin + spec.every * k <= upTo; k++) {
        copyRecursiveScalars(st, buf, k * GRID_SLOT)
        buf[k * GRID_SLOT + SC_COUNT] = st.count
        copyLongSum(st, buf, k * GRID_SLOT + GRID_LONG_SUM)
      }
      next.set(i, k)
    }
    for (const i of slots) {
      states.set(i, makeState(configForAssetType(spec.assetTypes[i])))
      out.set(i, new Float64Array(days * GRID_SLOT))
      next.set(i, 0)
    }
    const bar = { day: 0, open: 0, high: 0, low: 0, close: 0, volume: 0 }
    yield* generateBars({
      source: spec.source,
      slots,
      fromDay: (i) => spec.firstDay[i],
      toDay: () => spec.barsTo ?? spec.toDay,
      origin: (i) => spec.firstDay[i],
      crypto: (i) => spec.assetTypes[i] === "CRYPTO",
      imported: spec.imported,
      offset,
      onBar: (i, day, open, high, low, close, volume) => {
        const st = states.get(i) as DailyState
        // the grid days up to this bar's day see the state before it
        record(i, st, day)
        bar.day = day
        bar.open = open
        bar.high = high
        bar.low = low
        bar.close = close
        bar.volume = volume
        commitDeferred(st, bar)
        spec.onBar?.(i, day, open, high, low, close, volume)
      },
      // the stretch done ends `total - done` days before the last day walked
      onProgress: (done, total) => spec.onReached?.((spec.barsTo ?? spec.toDay) - (total - done))
    })
    for (const i of slots) {
      record(i, states.get(i) as DailyState, spec.toDay)
      spec.onTicker?.(i, out.get(i) as Float64Array)
    }
    spec.onGroup?.(
      from,
      Array.from(slots, (i) => out.get(i) as Float64Array)
    )
  }
}
