/**
 * A backtest's summary over its periods. An empty period (nothing matched,
 * `return: null`) holds cash: it moves neither the cumulative return nor the
 * drawdown, and it is left out of the averages of returns (`mean_return`,
 * `hit_rate`, `excess_return` average the invested periods); `mean_count`
 * counts it as 0. The benchmark is held in every period it has a price for.
 * The cumulative returns compound the periods one after the other (as a
 * portfolio rolled over at each rebalance: exact when `hold` does not outlast
 * the spacing of the rebalances; with overlapping holds it is the compounding
 * of period returns, not a tradable book). Pure.
 */

export interface Period {
  readonly count: number
  readonly return: number | null
  readonly benchmark_return: number | null
}

export interface Summary {
  readonly periods: number
  /** periods that held something */
  readonly invested_periods: number
  readonly mean_count: number | null
  readonly mean_return: number | null
  readonly benchmark_mean_return: number | null
  /** mean over the invested periods with a benchmark return of (return − benchmark_return) */
  readonly excess_return: number | null
  /** share of invested periods whose return is above 0 */
  readonly hit_rate: number | null
  readonly cumulative_return: number
  readonly benchmark_cumulative_return: number
  /** the largest fall of the equity curve from a previous peak, as a fraction of the peak (0.12 = 12%) */
  readonly max_drawdown: number
}

const mean = (xs: ReadonlyArray<number>): number | null =>
  xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length

/** ∏(1 + r) − 1 */
export const compound = (returns: ReadonlyArray<number>): number => returns.reduce((e, r) => e * (1 + r), 1) - 1

/** The largest peak-to-trough fall of the equity curve 1, (1 + r₁), (1 + r₁)(1 + r₂), … */
export const maxDrawdown = (returns: ReadonlyArray<number>): number => {
  let equity = 1
  let peak = 1
  let worst = 0
  for (const r of returns) {
    equity *= 1 + r
    if (equity > peak) peak = equity
    else worst = Math.max(worst, 1 - equity / peak)
  }
  return worst
}

export const summarize = (periods: ReadonlyArray<Period>): Summary => {
  const invested = periods.flatMap((p) => (p.return === null ? [] : [p.return]))
  const benchmark = periods.flatMap((p) => (p.benchmark_return === null ? [] : [p.benchmark_return]))
  const excess = periods.flatMap((p) =>
    p.return === null || p.benchmark_return === null ? [] : [p.return - p.benchmark_return]
  )
  return {
    periods: periods.length,
    invested_periods: invested.length,
    mean_count: mean(periods.map((p) => p.count)),
    mean_return: mean(invested),
    benchmark_mean_return: mean(benchmark),
    excess_return: mean(excess),
    hit_rate: invested.length === 0 ? null : invested.filter((r) => r > 0).length / invested.length,
    cumulative_return: compound(invested),
    benchmark_cumulative_return: compound(benchmark),
    max_drawdown: maxDrawdown(invested)
  }
}
