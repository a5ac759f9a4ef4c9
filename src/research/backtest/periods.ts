/**
 * A backtest period's return: the matches bought at the close of the
 * rebalance day in equal weights, each sold at its close on the exit day —
 * or, a ticker with no close that day (delisted, halted, no bar yet), at its
 * last close before it. A match without a price that day is not bought. The
 * period's return is the mean of the held tickers' returns; a period that
 * holds nothing has `return: null` (it holds cash: see stats.ts). Pure.
 */

/** A ticker's return from `entry` to `exit`, or undefined when it cannot be held (no positive entry price). */
export const holdingReturn = (entry: number, exit: number): number | undefined =>
  entry > 0 && exit > 0 ? exit / entry - 1 : undefined

export interface PeriodReturn {
  /** tickers held */
  readonly count: number
  /** their mean return (0.012 = +1.2%); null when none is held */
  readonly return: number | null
}

/** The equal-weight return of the positions `entries[i]` → `exits[i]`. */
export const periodReturn = (entries: ArrayLike<number>, exits: ArrayLike<number>): PeriodReturn => {
  let count = 0
  let sum = 0
  for (let i = 0; i < entries.length; i++) {
    const r = holdingReturn(entries[i]!, exits[i]!)
    if (r === undefined) continue
    count++
    sum += r
  }
  return { count, return: count === 0 ? null : sum / count }
}
