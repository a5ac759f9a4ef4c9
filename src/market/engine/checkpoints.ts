/**
 * Checkpoints of the indicator state for rebuilding past rows. At chosen
 * bars of a ticker the recursive scalars of its state are kept (25 doubles);
 * a state at any bar is rebuilt from the nearest earlier checkpoint plus the
 * bars themselves (`restoreFromBars`, bit-for-bit), then the few bars between
 * are replayed.
 *
 * Where: every `CHECKPOINT_EVERY` bars from a ticker's dense start (the first
 * bar of the history window, rounded down to a multiple of `SPARSE_EVERY`),
 * and only every `SPARSE_EVERY` bars before it. The bars before the window
 * are the indicators' warm-up (a year): universe-wide as-of reads stay
 * inside the window, and a read before it (one ticker's series or row)
 * replays at most 63 bars.
 *
 * Memory: 25 × 8 bytes per checkpoint; with the default window (~512 bars a
 * ticker, ~260 in the window) about 7.5 KB a ticker, ~100 MB for 13,047
 * (every 8 bars throughout: 13 KB, 170 MB).
 */
import type { BarSeries } from "../history/barSeries.js"
import { followStart, freshStart, restoredStart, START_SIZE } from "../history/walkStart.js"
import { ALL_FAMILIES, copyRecursiveScalars, type DailyState, SC_COUNT } from "../indicators/index.js"

export const CHECKPOINT_EVERY = 8
export const SPARSE_EVERY = 64

/** sparse positions (multiples of SPARSE_EVERY, from SPARSE_EVERY) below `bars` */
const sparseBelow = (bars: number): number => Math.max(0, Math.floor((bars - 1) / SPARSE_EVERY))

/** Checkpoint slots of bars [0, `bars`) for a dense start `dense` (how many positions p < bars). */
const slotsBelow = (dense: number, bars: number): number => {
  const denseFrom = Math.max(dense, CHECKPOINT_EVERY)
  const densePart = bars > denseFrom ? Math.floor((bars - 1 - denseFrom) / CHECKPOINT_EVERY) + 1 : 0
  return sparseBelow(Math.min(bars, dense)) + densePart
}

export class HistoryCheckpoints {
  private readonly committedCount: Int32Array
  /** per ticker: the first bar of dense checkpoints (a multiple of SPARSE_EVERY) */
  private readonly dense: Int32Array
  /** per ticker: scalars of the state holding bars [0, p) for each checkpoint position p, in order */
  private readonly saved: Array<Float64Array>
  /** per ticker: checkpoints written */
  private readonly count: Int32Array

  constructor(size: number) {
    this.committedCount = new Int32Array(size)
    this.dense = new Int32Array(size)
    this.count = new Int32Array(size)
    this.saved = Array.from({ length: size }, () => new Float64Array(0))
  }

  /**
   * Forgets ticker `i`'s checkpoints; the next ones are dense from bar `denseFrom` (rounded down
   * to a multiple of SPARSE_EVERY; 0: dense throughout).
   */
  reset(i: number, denseFrom = 0): void {
    this.committedCount[i] = 0
    this.count[i] = 0
    this.dense[i] = Math.max(0, Math.floor(denseFrom / SPARSE_EVERY) * SPARSE_EVERY)
    this.saved[i] = new Float64Array(0)
  }

  /** the position of slot `k` */
  private positionOf(i: number, k: number): number {
    const dense = this.dense[i]
    const sparse = sparseBelow(dense)
    if (k < sparse) return (k + 1) * SPARSE_EVERY
    return Math.max(dense, CHECKPOINT_EVERY) + (k - sparse) * CHECKPOINT_EVERY
  }

  /** Called with the live state of ticker `i` holding bars [0, j), just before bar j is committed. */
  beforeCommit(i: number, j: number, st: DailyState): void {
    this.committedCount[i] = j + 1
    // j is a checkpoint position when it is the position of the next slot to write (positions come
    // in order: a slot is written once, after every earlier one)
    const k = this.count[i]
    if (this.positionOf(i, k) !== j) return
    let buf = this.saved[i]
    if (buf.length < (k + 1) * SC_COUNT) {
      // grows by 16 checkpoints (128 bars) at a time: a daily roll adds one every 8 days
      const grown = new Float64Array(Math.max((k + 1) * SC_COUNT, buf.length + 16 * SC_COUNT))
      grown.set(buf)
      buf = grown
      this.saved[i] = buf
    }
    copyRecursiveScalars(st, buf, k * SC_COUNT)
    this.count[i] = k + 1
  }

  /** Bars committed in ticker `i`'s live state. */
  committed(i: number): number {
    return this.committedCount[i]
  }

  /** Reserves room for the checkpoints of a ticker with `bars` bars (no regrowth while committing). */
  reserve(i: number, bars: number): void {
    this.saved[i] = new Float64Array((slotsBelow(this.dense[i], bars) + 1) * SC_COUNT)
  }

  /** the checkpoints of ticker `i` held, in bytes (for tests and benchmarks) */
  bytes(i: number): number {
    return this.saved[i].byteLength
  }

  /**
   * The recipe of ticker `i`'s state with bars [0, j) committed (`walkStart.ts`), into `out` at `at`:
   * a restore off the last checkpoint at or before bar `j`, or a fresh state, then the bars up to `j`.
   */
  startBefore(i: number, j: number, out: Float64Array, at: number): void {
    // the last checkpoint at or before min(j, committed): slots below that bar + 1, of those written
    const limit = Math.min(j, this.committedCount[i])
    const available = Math.min(slotsBelow(this.dense[i], limit + 1), this.count[i])
    if (available < 1) {
      freshStart(out, at, 0, false)
      return
    }
    const from = this.positionOf(i, available - 1)
    const scalars = this.saved[i].subarray((available - 1) * SC_COUNT, available * SC_COUNT)
    restoredStart(out, at, scalars, from, from, undefined, false)
  }

  /**
   * A state of ticker `i` with bars [0, j) committed: fresh, or rebuilt into
   * `into` (a state of the same asset type the caller owns and reuses).
   */
  stateBefore(
    i: number,
    j: number,
    series: BarSeries,
    assetType: string,
    into?: DailyState,
    /** only these parts of the state (a walk's: state.ts `F`) */
    families: number = ALL_FAMILIES
  ): DailyState {
    this.startBefore(i, j, recipe, 0)
    return followStart(recipe, 0, assetType, series, j, into, families)
  }
}

/** the recipe `stateBefore` follows (used at once: one is enough) */
const recipe = new Float64Array(START_SIZE)
