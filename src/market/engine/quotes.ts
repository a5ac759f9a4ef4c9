/**
 * Trades a live feed pushes (`Market.push`, a `Quotes` event): each ticker's
 * quotes of its current session make that session's bar — open the first
 * trade's price, high and low the extremes, close the last trade's, volume
 * the sizes summed, VWAP their size-weighted mean. A ticker with quotes today
 * shows that bar in the live row in place of the simulated session's; once
 * its session closes the bar joins the history (`sessions.appendIfClosed`),
 * and once the next session began it is a completed day that is stored and
 * laid over the history as an imported bar (`Market.ts`), exactly as a
 * restart would read it back.
 *
 * A quote is taken when its ticker is tracked and trades in its current
 * session, its price is finite and above 0, its size finite and at least 0,
 * its time not after now and within the session (from its first minute to its
 * close), and the session's bar has not been made final: the first refresh
 * after the close appends it to the history (a feed's trades of the last
 * minutes reported before it still count). Quotes may arrive out of order: a later
 * quote timed before the first moves the open, one timed before the last
 * moves neither the open nor the close.
 */
import { isoDate } from "../indicators/days.js"
import type { ParsedBar } from "../sources/csvBars.js"
import type { MarketCore } from "./core.js"

/** One trade a live feed reports. */
export interface Quote {
  readonly ticker: string
  /** epoch ms of the trade */
  readonly at: number
  readonly price: number
  /** shares (coins) traded; 0 for a price without volume */
  readonly size: number
}

/** A ticker's session bar made of its quotes so far. */
export interface QuoteBar {
  /** epoch day of the session */
  readonly day: number
  open: number
  high: number
  low: number
  close: number
  volume: number
  /** Σ price × size */
  pv: number
  firstAt: number
  lastAt: number
}

/** Why a quote was not taken. */
export type QuoteRejection = "untracked" | "invalid" | "future" | "not_trading" | "outside_session" | "final"

export interface QuotesOutcome {
  readonly accepted: number
  readonly rejected: Readonly<Partial<Record<QuoteRejection, number>>>
}

/**
 * Takes `quotes` at `now` into their tickers' session bars (the sessions current at `now`: the
 * caller rolls them first, `sessions.rollSessions`): how many were taken, and why the rest were not.
 */
export const applyQuotes = (core: MarketCore, quotes: ReadonlyArray<Quote>, now: number): QuotesOutcome => {
  let accepted = 0
  const rejected: Partial<Record<QuoteRejection, number>> = {}
  for (const q of quotes) {
    const why = applyQuote(core, q, now)
    if (why === undefined) accepted++
    else rejected[why] = (rejected[why] ?? 0) + 1
  }
  return { accepted, rejected }
}

const applyQuote = (core: MarketCore, q: Quote, now: number): QuoteRejection | undefined => {
  const i = core.index.get(q.ticker)
  if (i === undefined) return "untracked"
  const { at, price, size } = q
  if (!Number.isFinite(at) || !Number.isFinite(price) || price <= 0 || !Number.isFinite(size) || size < 0) {
    return "invalid"
  }
  if (at > now) return "future"
  const session = core.sessionOf(i)
  if (session.intraday.slotOf[i] < 0) return "not_trading"
  if (at < session.intraday.startMs || at >= session.closesAt) return "outside_session"
  const s = core.series[i]
  if (s.length > 0 && s.days[s.length - 1] >= session.day) return "final"
  const bar = core.quoteBars.get(i)
  if (bar === undefined || bar.day !== session.day) {
    core.quoteBars.set(i, {
      day: session.day,
      open: price,
      high: price,
      low: price,
      close: price,
      volume: size,
      pv: price * size,
      firstAt: at,
      lastAt: at
    })
    return undefined
  }
  if (price > bar.high) bar.high = price
  if (price < bar.low) bar.low = price
  bar.volume += size
  bar.pv += price * size
  if (at < bar.firstAt) {
    bar.open = price
    bar.firstAt = at
  }
  if (at >= bar.lastAt) {
    bar.close = price
    bar.lastAt = at
  }
  return undefined
}

/** Ticker `i`'s quote bar of the session on `day`, if quotes made one. */
export const quoteBarOn = (core: MarketCore, i: number, day: number): QuoteBar | undefined => {
  const bar = core.quoteBars.get(i)
  return bar !== undefined && bar.day === day ? bar : undefined
}

/** The volume-weighted price of a quote bar (its close while no volume traded). */
export const quoteVwap = (bar: QuoteBar): number => (bar.volume > 0 ? bar.pv / bar.volume : bar.close)

/** Drops the quote bars of sessions before each ticker's current one (the history holds them now). */
export const dropPastQuoteBars = (core: MarketCore): void => {
  for (const [i, bar] of core.quoteBars) if (bar.day < core.sessionOf(i).day) core.quoteBars.delete(i)
}

/**
 * The bars quotes made of sessions that are over at `now` — completed days, importable — by
 * ticker: what `Market.ts` stores and lays over the history.
 */
export const completedQuoteBars = (core: MarketCore, now: number): Map<string, ReadonlyArray<ParsedBar>> => {
  const out = new Map<string, ReadonlyArray<ParsedBar>>()
  for (const [ticker, bars] of core.closedQuoteBars) {
    const i = core.index.get(ticker)!
    const current = isoDate(core.sessionDay(i, now))
    const done = bars.filter((b) => b.date < current)
    if (done.length > 0) out.set(ticker, done)
  }
  return out
}
