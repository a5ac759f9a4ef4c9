/** The screener's other calls: saved rules (`/v2/rules`) and backtests (`POST /v2/scan/backtest`). */
import { call, type Session } from "./api"

export interface SavedRule {
  readonly id: string
  readonly name: string
  readonly q: string
  readonly universe: string | null
  readonly order: string
  readonly dir: "asc" | "desc"
  readonly fields: ReadonlyArray<string>
}

export const listRules = () =>
  call<{ readonly rules: ReadonlyArray<SavedRule> }>("GET", "/dashboard/v2/rules?limit=100")

export const saveRule = (
  session: Session,
  rule: {
    readonly name: string
    readonly q: string
    readonly universe?: string
    readonly order?: string
    readonly dir?: "asc" | "desc"
    readonly fields: ReadonlyArray<string>
  }
) => call<SavedRule>("POST", "/dashboard/v2/rules", rule, session.csrf_token)

export interface BacktestRequest {
  readonly q: string
  readonly universe?: string
  readonly from: string
  readonly to: string
  readonly every: "1d" | "1w" | "1mo"
  readonly hold: string
  readonly benchmark?: string
  readonly limit?: number
  readonly order?: string
  readonly dir?: "asc" | "desc"
}

export interface BacktestPeriod {
  readonly date: string
  readonly exit_date: string
  readonly count: number
  readonly return: number | null
  readonly benchmark_return: number | null
}

export interface Backtest {
  readonly query: { readonly benchmark: string; readonly every: string; readonly hold: string }
  readonly periods: ReadonlyArray<BacktestPeriod>
  readonly summary: {
    readonly periods: number
    readonly invested_periods: number
    readonly mean_count: number | null
    readonly mean_return: number | null
    readonly benchmark_mean_return: number | null
    readonly excess_return: number | null
    readonly hit_rate: number | null
    readonly cumulative_return: number | null
    readonly benchmark_cumulative_return: number | null
    readonly max_drawdown: number | null
  }
  readonly _meta: { readonly data_end: string; readonly dropped_periods: number }
}

export const backtest = (session: Session, request: BacktestRequest) =>
  call<Backtest>("POST", "/dashboard/v2/scan/backtest", request, session.csrf_token)

/**
 * The growth of 1 over the periods, at each period's exit (a period without holdings, or without a
 * benchmark return, a factor 1: cash), the first point 1 at the first period's entry.
 */
export const cumulative = (periods: ReadonlyArray<BacktestPeriod>, pick: (p: BacktestPeriod) => number | null) => {
  if (periods.length === 0) return []
  const out: Array<{ readonly date: string; readonly value: number }> = [{ date: periods[0]!.date, value: 1 }]
  let value = 1
  for (const p of periods) {
    value *= 1 + (pick(p) ?? 0)
    out.push({ date: p.exit_date, value })
  }
  return out
}
