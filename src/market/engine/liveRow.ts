/**
 * The live snapshot: every ticker's row now, the preview of its current
 * session's partial bar on its committed state with today's fundamentals and
 * news (or, for a ticker a live feed quotes, the bar its quotes made). `refresh` first rolls
 * sessions that ended into the history.
 */
import { bindColumns, preview } from "../indicators/index.js"
import type { Column, Snapshot } from "../snapshot.js"
import type { MarketCore } from "./core.js"
import { inputsInto, newInputs } from "./inputs.js"
import { quoteVwap } from "./quotes.js"
import { appendIfClosed, minuteOf, newBar, partialBarInto, rollSessions } from "./sessions.js"
import { VENDOR_FEED_START } from "./specs.js"

/**
 * Advances to `now`: rolls sessions that ended (their final bars join the
 * history and the committed state), then builds the live snapshot from
 * today's partial bars.
 */
export const refresh = (core: MarketCore, now: number): Snapshot => {
  rollSessions(core, now)
  appendIfClosed(core, core.equity, now)
  appendIfClosed(core, core.crypto, now)
  const n = core.size
  core.equity.intraday.partialBars(minuteOf(core.equity, now), core.partialEquity)
  core.crypto.intraday.partialBars(minuteOf(core.crypto, now), core.partialCrypto)
  // a ticker a live feed quotes today: the bar its quotes made, not the simulated session's
  for (const [i, bar] of core.quoteBars) {
    if (bar.day !== core.sessionOf(i).day) continue
    const p = core.isCrypto[i] === 1 ? core.partialCrypto : core.partialEquity
    p.open[i] = bar.open
    p.high[i] = bar.high
    p.low[i] = bar.low
    p.close[i] = bar.close
    p.volume[i] = bar.volume
    p.vwap[i] = quoteVwap(bar)
  }
  const { newsVolume, newsSentiment } = core
  core.sim.newsColumnsAt(now, newsVolume, newsSentiment)
  const fEquity = core.fundamentalsOn(core.equity.day)
  const fCrypto = core.fundamentalsOn(core.crypto.day)
  const vendorE = core.equity.date >= VENDOR_FEED_START
  const computed = core.liveBlocks.take()
  const sink = bindColumns(computed)
  // one bar and one set of inputs, rewritten for each row: a refresh of the whole market made 26,000
  // short-lived objects that lived long enough to be promoted (~6 MB of old space a refresh, a full
  // collection every few refreshes)
  const bar = newBar()
  const inputs = newInputs()
  for (let i = 0; i < n; i++) {
    const st = core.states[i]
    const crypto = core.isCrypto[i] === 1
    const session = crypto ? core.crypto : core.equity
    if (st === undefined || session.intraday.slotOf[i] < 0) continue
    partialBarInto(bar, crypto ? core.partialCrypto : core.partialEquity, i, session.day, crypto)
    inputsInto(inputs, crypto ? fCrypto : fEquity, i, newsVolume[i], newsSentiment[i], crypto || vendorE)
    preview(st, bar, inputs, sink, i)
  }
  const columns = new Map<string, Column>(core.stringColumns)
  for (const [name, col] of computed) columns.set(name, col)
  core.latest = {
    asOf: now,
    size: n,
    tickers: core.symbols,
    index: core.index,
    columns
  }
  return core.latest
}
