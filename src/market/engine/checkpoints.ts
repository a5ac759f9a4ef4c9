/**
 * Checkpoints of the indicator state for rebuilding past rows. Every
 * `CHECKPOINT_EVERY` bars of a ticker the recursive scalars of its state are
 * kept (25 doubles); a state at any bar is rebuilt from the nearest earlier
 * checkpoint plus the bars themselves (`restoreFromBars`, bit-for-bit), then
 * the few bars between are replayed.
 *
 * Memory: 25 × 8 bytes per checkpoint; with the default window (~512 bars a
 * ticker) and CHECKPOINT_EVERY = 8 about 13 KB a ticker, 170 MB for 13,047.
 */
import type { BarSeries } from "../history/barSeries.js"
import {
  commit,
  configForAssetType,
  type DailyState,
  makeState,
  recursiveScalars,
  restoreFromBars,
  SC_COUNT
} from "../indicators/index.js"

export const CHECKPOINT_EVERY = 8

const barOf = (s: BarSeries, j: number) => ({
  day: s.days[j],
  open: s.open[j],
  high: s.high[j],
  low: s.low[j],
  close: s.close[j],
  volume: s.volume[j]
})

export class HistoryCheckpoints {
  private readonly committedCount: Int32Array
  /** per ticker: scalars of the state holding bars [0, k × CHECKPOINT_EVERY), for k = 1, 2, … */
  private readonly saved: Array<Float64Array>

  constructor(size: number) {
    this.committedCount = new Int32Array(size)
    this.saved = Array.from({ length: size }, () => new Float64Array(0))
  }

  reset(i: number): void {
    this.committedCount[i] = 0
    this.saved[i] = new Float64Array(0)
  }

  /** Called with the live state of ticker `i` holding bars [0, j), just before bar j is committed. */
  beforeCommit(i: number, j: number, st: DailyState): void {
    this.committedCount[i] = j + 1
    if (j === 0 || j % CHECKPOINT_EVERY !== 0) return
    const k = j / CHECKPOINT_EVERY
    let buf = this.saved[i]
    if (buf.length < k * SC_COUNT) {
      const grown = new Float64Array(Math.max(k * SC_COUNT, buf.length * 2, 16 * SC_COUNT))
      grown.set(buf)
      buf = grown
      this.saved[i] = buf
    }
    buf.set(recursiveScalars(st), (k - 1) * SC_COUNT)
  }

  /** Bars committed in ticker `i`'s live state. */
  committed(i: number): number {
    return this.committedCount[i]
  }

  /** Reserves room for the checkpoints of a ticker with `bars` bars (no regrowth while committing). */
  reserve(i: number, bars: number): void {
    this.saved[i] = new Float64Array(Math.ceil(bars / CHECKPOINT_EVERY + 1) * SC_COUNT)
  }

  /**
   * A state of ticker `i` with bars [0, j) committed: fresh, or rebuilt into
   * `into` (a state of the same asset type the caller owns and reuses).
   */
  stateBefore(i: number, j: number, series: BarSeries, assetType: string, into?: DailyState): DailyState {
    const config = configForAssetType(assetType)
    const available = Math.min(
      Math.floor(Math.min(j, this.committedCount[i]) / CHECKPOINT_EVERY),
      this.saved[i].length / SC_COUNT
    )
    let st: DailyState
    let from: number
    if (available >= 1) {
      from = available * CHECKPOINT_EVERY
      const scalars = this.saved[i].subarray((available - 1) * SC_COUNT, available * SC_COUNT)
      st = restoreFromBars(config, scalars, from, series, from, into)
    } else {
      st = makeState(config)
      from = 0
    }
    for (let k = from; k < j; k++) commit(st, barOf(series, k))
    return st
  }
}
