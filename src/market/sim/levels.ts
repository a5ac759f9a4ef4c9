/**
 * The simulated price levels: seekable, so any day of any ticker's history since 2003 can be
 * generated on its own, and the same bits come out whether a day is built at start, on demand,
 * or in a worker.
 *
 * The level of ticker i at the end of day d is `S_i(d)`, the log of its close over its anchor
 * price (the close is `anchorPrice_i · exp(S_i(d))`). `S_i(anchor) = 0`; after the anchor it sums
 * the daily log returns upward (`S(d) = S(d−1) + r(d)`), before it downward from the anchor
 * (`S(d−1) = S(d) − r(d)`), in that one order always: floating-point sums depend on their order,
 * so S at a day is defined as the result of that walk, not as a mathematical sum. On days a ticker
 * does not trade (equities on weekends and holidays) its level carries.
 *
 * Checkpoints every `LEVEL_EVERY` (64) calendar days from the anchor, per ticker, are the walk's
 * own values, kept as the walk passes them (extended on demand, 8 bytes a ticker a checkpoint:
 * ~14 MB for the whole market back to 2003): a level anywhere is at most 63 returns from one, so
 * one ticker's 23 years cost one pass over its days, and a whole-market day about 64 returns a
 * ticker at worst.
 */
import { computeReturnsOf, type DayModel, type ReturnScratch } from "./daily.js"

export const LEVEL_EVERY = 64

/** How a walk visits a day: `prev[k]`/`cur[k]` are slot `slots[k]`'s level at the end of the day before and of `day`. */
export type LevelVisitor = (day: number, prev: Float64Array, cur: Float64Array) => void

export class SimLevels {
  /** checkpoint k below the anchor: S at anchor − 64k (k = 0: zeros), one slot per ticker */
  private readonly below: Array<Float64Array> = []
  private readonly above: Array<Float64Array> = []
  /** per ticker: checkpoints below / above the anchor known (≥ 1: checkpoint 0) */
  private readonly belowKnown: Int32Array
  private readonly aboveKnown: Int32Array
  private readonly models = new Map<number, DayModel>()

  constructor(
    private readonly n: number,
    readonly anchorDay: number,
    private readonly makeModel: (day: number) => DayModel,
    private readonly scratch: ReturnScratch
  ) {
    this.below.push(new Float64Array(n))
    this.above.push(this.below[0])
    this.belowKnown = new Int32Array(n).fill(1)
    this.aboveKnown = new Int32Array(n).fill(1)
  }

  /** The day model of an epoch day (kept: ~300 bytes a day, ~2.5 MB for 23 years). */
  modelOf(day: number): DayModel {
    let m = this.models.get(day)
    if (m === undefined) {
      m = this.makeModel(day)
      this.models.set(day, m)
    }
    return m
  }

  /** The day's log returns of `slots` into the scratch (indexed by ticker); returns the model. */
  private returnsOn(day: number, slots: Int32Array): DayModel {
    const m = this.modelOf(day)
    const { r, gap } = this.scratch
    computeReturnsOf(m, r, gap, slots.length === this.n ? undefined : slots)
    return m
  }

  /** Checkpoint `k` (below or above the anchor) known for every slot of `slots`. */
  private ensure(slots: Int32Array, side: "below" | "above", k: number): void {
    const known = side === "below" ? this.belowKnown : this.aboveKnown
    const points = side === "below" ? this.below : this.above
    for (;;) {
      // the slots whose next checkpoint to make is the lowest
      let lowest = Number.POSITIVE_INFINITY
      for (let q = 0; q < slots.length; q++) lowest = Math.min(lowest, known[slots[q]])
      if (lowest > k) return
      const at = lowest - 1
      const group = slots.filter((i) => known[i] === lowest)
      while (points.length <= lowest) points.push(new Float64Array(this.n))
      const from = points[at]
      const to = points[lowest]
      for (let q = 0; q < group.length; q++) to[group[q]] = from[group[q]]
      const c = side === "below" ? this.anchorDay - LEVEL_EVERY * at : this.anchorDay + LEVEL_EVERY * at
      const r = this.scratch.r
      for (let step = 0; step < LEVEL_EVERY; step++) {
        if (side === "below") {
          const d = c - step
          const m = this.returnsOn(d, group)
          for (let q = 0; q < group.length; q++) {
            const i = group[q]
            if (m.trades(i)) to[i] = to[i] - r[i]
          }
        } else {
          const d = c + step + 1
          const m = this.returnsOn(d, group)
          for (let q = 0; q < group.length; q++) {
            const i = group[q]
            if (m.trades(i)) to[i] = to[i] + r[i]
          }
        }
      }
      for (let q = 0; q < group.length; q++) known[group[q]] = lowest + 1
    }
  }

  /**
   * Makes the checkpoints a walk of `slots` over [fromDay, toDay] needs, one at a time (64 days of
   * returns each), yielding between: a caller that must not hold its thread for long (the market's
   * load) runs this before walking.
   */
  *prepare(slots: Int32Array, fromDay: number, toDay: number): Generator<void, void> {
    if (fromDay <= this.anchorDay) {
      const k = Math.floor((this.anchorDay - fromDay) / LEVEL_EVERY)
      for (let j = 1; j <= k; j++) {
        this.ensure(slots, "below", j)
        yield
      }
    }
    if (toDay > this.anchorDay + 1) {
      const k = Math.floor((toDay - 1 - this.anchorDay) / LEVEL_EVERY)
      for (let j = 1; j <= k; j++) {
        this.ensure(slots, "above", j)
        yield
      }
    }
  }

  /**
   * Visits every day of [fromDay, toDay] in order with the levels of `slots` at the end of the
   * day before and of the day. The arrays are reused between visits: copy what you keep.
   */
  walk(slots: Int32Array, fromDay: number, toDay: number, visit: LevelVisitor): void {
    const m = slots.length
    const prev = new Float64Array(m)
    const cur = new Float64Array(m)
    const r = this.scratch.r
    let day = fromDay
    if (day <= this.anchorDay && day <= toDay) {
      // below the anchor: segments (c − 64, c] between checkpoints, each walked down from c then visited upward
      const buffer = new Float64Array((LEVEL_EVERY + 1) * m)
      while (day <= this.anchorDay && day <= toDay) {
        const k = Math.floor((this.anchorDay - day) / LEVEL_EVERY)
        const c = this.anchorDay - LEVEL_EVERY * k
        const base = c - LEVEL_EVERY
        this.ensure(slots, "below", k)
        const top = this.below[k]
        // buffer row (d − base) holds S(d) for d in [base, c]
        for (let q = 0; q < m; q++) buffer[LEVEL_EVERY * m + q] = top[slots[q]]
        const lowest = Math.max(day - 1, base)
        for (let d = c; d > lowest; d--) {
          const model = this.returnsOn(d, slots)
          const row = (d - base) * m
          for (let q = 0; q < m; q++) {
            const i = slots[q]
            buffer[row - m + q] = model.trades(i) ? buffer[row + q] - r[i] : buffer[row + q]
          }
        }
        const end = Math.min(c, toDay)
        for (; day <= end; day++) {
          const row = (day - base) * m
          for (let q = 0; q < m; q++) {
            prev[q] = buffer[row - m + q]
            cur[q] = buffer[row + q]
          }
          visit(day, prev, cur)
        }
      }
    }
    if (day > toDay) return
    // above the anchor: from the checkpoint at or below day − 1, upward
    const k = Math.floor((day - 1 - this.anchorDay) / LEVEL_EVERY)
    this.ensure(slots, "above", k)
    const start = this.above[k]
    for (let q = 0; q < m; q++) cur[q] = start[slots[q]]
    for (let d = this.anchorDay + LEVEL_EVERY * k + 1; d <= toDay; d++) {
      const model = this.returnsOn(d, slots)
      for (let q = 0; q < m; q++) {
        const i = slots[q]
        prev[q] = cur[q]
        if (model.trades(i)) cur[q] = cur[q] + r[i]
      }
      if (d >= day) visit(d, prev, cur)
    }
  }

  /** The levels of `slots` at the end of `day`. */
  at(slots: Int32Array, day: number): Float64Array {
    const out = new Float64Array(slots.length)
    this.walk(slots, day, day, (_, __, cur) => out.set(cur))
    return out
  }
}
