/**
 * Today's sessions, one per kind (equities: the NYSE session; crypto: the UTC
 * day): each opened on the bars the history will hold for its day, its final
 * bar appended to the history once it closes, and committed to the indicator
 * state when the next session of its kind begins.
 */
import { addTradingDays, closeInstant, cryptoTradingDate, equityTradingDate, isTradingDay } from "../calendar.js"
import { barAt } from "../history/barSeries.js"
import { DAY_MS, epochDay, isoDate } from "../indicators/days.js"
import { commit, type DailyBar } from "../indicators/index.js"
import type { PartialBars } from "../sim/index.js"
import type { ParsedBar } from "../sources/csvBars.js"
import type { MarketCore, Session } from "./core.js"
import { computeMemberships } from "./history.js"
import { dropPastQuoteBars, quoteBarOn } from "./quotes.js"
import { tickRound } from "./specs.js"

export const makeSession = (core: MarketCore, date: string, kind: "equity" | "crypto"): Session => {
  const day = epochDay(date)
  // the bars the history will hold for the day (`history.generateSeries`): from the levels and offsets
  const anchorPrice = core.sim.params.anchorPrice
  const prevClose = new Float64Array(core.size)
  const closes = new Float64Array(core.size)
  core.sim.levels.walk(core.allSlots, day, day, (_, sPrev, sCur) => {
    for (let i = 0; i < core.size; i++) {
      prevClose[i] = anchorPrice[i] * Math.exp(sPrev[i]) * core.levelOffset[i]
      closes[i] = anchorPrice[i] * Math.exp(sCur[i]) * core.levelOffset[i]
    }
  })
  const bars = core.sim.generateDay(date, prevClose, undefined, closes)
  // the session's bar in ticks, as the history will hold it once the session closed
  for (let i = 0; i < core.size; i++) {
    if (bars.traded[i] !== 1) continue
    const c = core.isCrypto[i] === 1
    bars.open[i] = tickRound(bars.open[i], c)
    bars.high[i] = tickRound(bars.high[i], c)
    bars.low[i] = tickRound(bars.low[i], c)
    bars.close[i] = tickRound(bars.close[i], c)
    bars.volume[i] = Math.round(bars.volume[i])
  }
  const intraday = core.sim.intradaySession(bars, kind)
  return { date, day, bars, intraday, closesAt: kind === "equity" ? closeInstant(date) : (day + 1) * DAY_MS }
}

/** Opens both kinds' sessions current at `now`. */
export const openSessions = (core: MarketCore, now: number): void => {
  core.equity = makeSession(core, equityTradingDate(now), "equity")
  core.crypto = makeSession(core, cryptoTradingDate(now), "crypto")
}

/** The tickers trading in `session`. */
export function* sessionMembers(session: Session): Iterable<number> {
  const t = session.intraday.tickers
  for (let k = 0; k < t.length; k++) yield t[k]
}

/**
 * Rolls both kinds' sessions to `now` (`roll`): what every refresh and every batch of quotes
 * starts with. A session that closed stays current (its bar not yet appended: a trade of its last
 * minutes may still be reported) until the next refresh appends it (`appendIfClosed`).
 */
export const rollSessions = (core: MarketCore, now: number): void => {
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
}

/**
 * When `session` has closed by `now`, its final bar joins the history (not yet the committed
 * state): the bar a live feed's quotes made (`quotes.ts`), else the session's own.
 */
export const appendIfClosed = (core: MarketCore, session: Session, now: number): void => {
  if (now < session.closesAt) return
  for (const i of sessionMembers(session)) {
    const s = core.series[i]
    if (s.length > 0 && s.days[s.length - 1] >= session.day) continue
    const c = core.isCrypto[i] === 1
    const quoted = quoteBarOn(core, i, session.day)
    if (quoted !== undefined) {
      const bar: ParsedBar = {
        ticker: core.tickers[i].ticker,
        date: session.date,
        open: tickRound(quoted.open, c),
        high: tickRound(quoted.high, c),
        low: tickRound(quoted.low, c),
        close: tickRound(quoted.close, c),
        volume: Math.round(quoted.volume)
      }
      s.push(session.day, bar.open, bar.high, bar.low, bar.close, bar.volume)
      const pending = core.closedQuoteBars.get(bar.ticker)
      if (pending === undefined) core.closedQuoteBars.set(bar.ticker, [bar])
      else pending.push(bar)
      continue
    }
    const b = session.bars
    s.push(
      session.day,
      tickRound(b.open[i], c),
      tickRound(b.high[i], c),
      tickRound(b.low[i], c),
      tickRound(b.close[i], c),
      Math.round(b.volume[i])
    )
  }
}

/**
 * Moves a kind's session forward to `date`: each session passed has its final bar appended and
 * committed. Answers whether anything moved (the as-of snapshots are then dropped).
 */
export const roll = (core: MarketCore, kind: "equity" | "crypto", date: string, now: number): boolean => {
  let session = kind === "equity" ? core.equity : core.crypto
  if (session.date === date) return false
  while (session.date < date) {
    appendIfClosed(core, session, Math.max(now, session.closesAt))
    for (const i of sessionMembers(session)) {
      const s = core.series[i]
      const j = s.length - 1
      if (j >= 0 && s.days[j] === session.day && core.checkpoints.committed(i) === j) {
        core.checkpoints.beforeCommit(i, j, core.states[i])
        commit(core.states[i], barAt(s, j))
      }
    }
    const next = kind === "equity" ? addTradingDays(session.date, 1) : isoDate(session.day + 1)
    session = makeSession(core, next > date ? date : next, kind)
    if (kind === "equity") core.equity = session
    else core.crypto = session
  }
  dropPastQuoteBars(core)
  core.asOfCache.clear()
  return true
}

/** The minute of `session` reached at `now` (all of them once it closed). */
export const minuteOf = (session: Session, now: number): number =>
  now >= session.closesAt ? session.intraday.minutes : session.intraday.minuteAt(now)

/**
 * The epoch days of ticker `i`'s first and last sessions with minute bars: `MINUTE_HISTORY_DAYS`
 * back from the latest refresh (not before its first bar), to the current session.
 */
export const minuteCoverage = (core: MarketCore, i: number): { from: number; to: number } => {
  const crypto = core.isCrypto[i] === 1
  const session = core.sessionOf(i)
  const retention = Math.floor(core.latest.asOf / DAY_MS) - core.minuteHistoryDays
  let from = Math.max(retention, core.firstDay[i])
  if (!crypto) while (!isTradingDay(isoDate(from))) from++
  return { from: Math.min(from, session.day), to: session.day }
}

/** Ticker `i`'s bar so far on `day` from a session's partial bars, in ticks as the history keeps bars. */
export const partialBar = (p: PartialBars, i: number, day: number, crypto: boolean): DailyBar =>
  partialBarInto(newBar(), p, i, day, crypto)

export type MutableBar = { -readonly [K in keyof DailyBar]-?: DailyBar[K] }

export const newBar = (): MutableBar => ({ day: 0, open: 0, high: 0, low: 0, close: 0, volume: 0, vwap: 0 })

/** `partialBar` written into `out` (a refresh reuses one bar for every row: nothing per row for the collector). */
export const partialBarInto = (out: MutableBar, p: PartialBars, i: number, day: number, crypto: boolean): DailyBar => {
  out.day = day
  out.open = tickRound(p.open[i], crypto)
  out.high = tickRound(p.high[i], crypto)
  out.low = tickRound(p.low[i], crypto)
  out.close = tickRound(p.close[i], crypto)
  out.volume = Math.round(p.volume[i])
  out.vwap = p.vwap[i]
  return out
}
