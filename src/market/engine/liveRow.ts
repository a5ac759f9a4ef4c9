/**
 * The live snapshot: every ticker's row now, the preview of its current
 * session's partial bar on its committed state with today's fundamentals and
 * news. `refresh` first rolls sessions that ended into the history.
 */
import { cryptoTradingDate, equityTradingDate } from "../calendar.js"
import { DAY_MS } from "../indicators/days.js"
import { allocateColumns, bindColumns, type DailyBar, previewAll, type TickerInputs } from "../indicators/index.js"
import type { Column, Snapshot } from "../snapshot.js"
import type { MarketCore } from "./core.js"
import { computeMemberships } from "./history.js"
import { tickerInputs } from "./inputs.js"
import { appendIfClosed, minuteOf, partialBar, roll } from "./sessions.js"
import { VENDOR_FEED_START } from "./specs.js"

/**
 * Advances to `now`: rolls sessions that ended (their final bars join the
 * history and the committed state), then builds the live snapshot from
 * today's partial bars.
 */
export const refresh = (core: MarketCore, now: number): Snapshot => {
  const rolledE = roll(core, "equity", equityTradingDate(now), now)
  const rolledC = roll(core, "crypto", cryptoTradingDate(now), now)
  if (rolledE || rolledC) {
    core.fundamentalsCache.clear()
    const month = new Date(now).getUTCMonth()
    const lastMembership = core.memberships[core.memberships.length - 1]
    if (lastMembership === undefined || new Date(lastMembership.effectiveDay * DAY_MS).getUTCMonth() !== month) {
      core.memberships = computeMemberships(core)
    }
  }
  appendIfClosed(core, core.equity, now)
  appendIfClosed(core, core.crypto, now)

  const n = core.size
  core.equity.intraday.partialBars(minuteOf(core.equity, now), core.partialEquity)
  core.crypto.intraday.partialBars(minuteOf(core.crypto, now), core.partialCrypto)
  const { newsVolume, newsSentiment } = core
  core.sim.newsColumnsAt(now, newsVolume, newsSentiment)
  const fEquity = core.fundamentalsOn(core.equity.day)
  const fCrypto = core.fundamentalsOn(core.crypto.day)
  const vendorE = core.equity.date >= VENDOR_FEED_START
  const bars: Array<DailyBar | undefined> = new Array(n)
  const inputs: Array<TickerInputs> = new Array(n)
  for (let i = 0; i < n; i++) {
    const crypto = core.isCrypto[i] === 1
    const session = crypto ? core.crypto : core.equity
    const p = crypto ? core.partialCrypto : core.partialEquity
    if (session.intraday.slotOf[i] < 0) {
      bars[i] = undefined
    } else {
      bars[i] = partialBar(p, i, session.day, crypto)
    }
    inputs[i] = tickerInputs(crypto ? fCrypto : fEquity, i, newsVolume[i], newsSentiment[i], crypto || vendorE)
  }
  const computed = allocateColumns(n)
  previewAll(core.states, bars, inputs, bindColumns(computed))
  const columns = new Map<string, Column>(core.stringColumns)
  for (const [name, col] of computed) columns.set(name, col)
  core.latest = {
    asOf: now,
    size: n,
    tickers: core.tickers.map((t) => t.ticker),
    index: core.index,
    columns
  }
  return core.latest
}
