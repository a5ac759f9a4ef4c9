/**
 * Split adjustment of daily bars (issue 17): a split of `ratio` new shares per old share on
 * `date` (the first session at the new price) divides the prices of every earlier bar by `ratio`
 * and multiplies its volume by `ratio`; several splits compound. Bars on or after a split's date
 * are left as they are, so the adjusted series has no jump at the split and its last bars are
 * the prices as traded. Pure: the store applies it when it reads imported bars back.
 */

import type { Split, StoredBar } from "../market/ports.js"

/** A split as stored: `ratio` new shares per old share from `date` on (the market's port defines it). */
export type { Split }

/** A daily bar as stored (the market's port defines it). */
export type DailyBar = StoredBar

/**
 * The bars of one ticker (dates ascending) adjusted for its splits (any order): each bar's
 * factor is the product of the ratios of the splits dated after it. A bar for which `keep`
 * answers true (its file already adjusted it) is returned as it is. Bars with factor 1 are
 * returned as the same objects.
 */
export const adjustForSplits = <B extends DailyBar>(
  bars: ReadonlyArray<B>,
  splits: ReadonlyArray<Pick<Split, "date" | "ratio">>,
  keep?: (bar: B) => boolean
): Array<B | DailyBar> => {
  if (splits.length === 0) return [...bars]
  const sorted = [...splits].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
  const out: Array<B | DailyBar> = new Array(bars.length)
  let factor = 1
  let next = sorted.length - 1
  for (let i = bars.length - 1; i >= 0; i--) {
    const bar = bars[i]
    // every split dated after this bar is in the factor
    while (next >= 0 && sorted[next].date > bar.date) factor *= sorted[next--].ratio
    out[i] =
      factor === 1 || keep?.(bar) === true
        ? bar
        : {
            ticker: bar.ticker,
            date: bar.date,
            open: bar.open / factor,
            high: bar.high / factor,
            low: bar.low / factor,
            close: bar.close / factor,
            volume: bar.volume * factor
          }
  }
  return out
}
