/**
 * A live feed's fundamentals and news (issue 17, item 7: the ingest's `Fundamentals` and `News`
 * events): checked all or nothing, in force from each ticker's next row, never rewriting a
 * completed day; a market built over what the store kept (a restart) shows the same rows; the
 * source's per-ticker reads agree with its whole-market ones.
 */
import { describe, expect, it } from "vitest"
import { closeInstant } from "../../src/market/calendar.js"
import { FeedInputRejected } from "../../src/market/engine/feedInputs.js"
import { MarketData } from "../../src/market/engine/MarketData.js"
import { epochDay } from "../../src/market/indicators/days.js"
import { newsColumns } from "../../src/market/indicators/news.js"
import { newsArchiveOf } from "../../src/market/newsArchive.js"
import { allocateFundamentals } from "../../src/market/sim/index.js"
import type { Snapshot } from "../../src/market/snapshot.js"
import type { FeedInputs, FeedMention } from "../../src/market/sources/feedSource.js"
import { loadTickers } from "../../src/market/tickers/index.js"

const PICK = new Set(["AAPL", "MSFT", "SPY", "BTC-USD", "KO"])
const tickers = loadTickers().filter((t, i) => PICK.has(t.ticker) || i % 900 === 0)
const FRIDAY = "2026-11-20"
/** Friday 2026-11-20, 13:30 New York: the session is open */
const MIDDAY = Date.UTC(2026, 10, 20, 18, 30)
const HOUR = 3_600_000
const DAY_MS = 86_400_000

const build = (feed?: FeedInputs, now = MIDDAY) => MarketData.build({ seed: 5, tickers, historyDays: 20, now, feed })

const value = (s: Snapshot, ticker: string, column: string): number | boolean | null => {
  const r = s.index.get(ticker)!
  const col = s.columns.get(column)!
  if (col.kind === "string") throw new Error("a string column")
  return col.valid[r] === 0 ? null : col.kind === "boolean" ? col.values[r] === 1 : col.values[r]
}

const rejects = (f: () => unknown, message: RegExp) => {
  expect(f).toThrow(FeedInputRejected)
  expect(f).toThrow(message)
}

/** stored mentions: numbered as the store numbers them */
const numbered = (ms: ReadonlyArray<Omit<FeedMention, "seq">>, from = 1): Array<FeedMention> =>
  ms.map((m, k) => ({ ...m, seq: from + k }))

describe("a live feed's fundamentals", () => {
  it("hold from the ticker's next row, field by field, and leave completed days and other tickers as they were", () => {
    const md = build()
    const plain = build()
    const entries = md.fundamentalsEntries(
      [{ ticker: "AAPL", eps: 10, analystTargetPrice: 400, institutionalOwnership: 0.6 }],
      MIDDAY
    )
    // the session is open: in force from today's row
    expect(entries).toEqual([
      {
        ticker: "AAPL",
        fromDay: epochDay(FRIDAY),
        values: { eps: 10, analystTargetPrice: 400, institutionalOwnership: 0.6 }
      }
    ])
    md.applyFeedInputs({ fundamentals: entries, mentions: [] })
    const t = MIDDAY + 60_000
    const live = md.refresh(t)
    const base = plain.refresh(t)
    const price = value(live, "AAPL", "price") as number
    expect(price).toBe(value(base, "AAPL", "price"))
    expect(value(live, "AAPL", "eps")).toBe(10)
    expect(value(live, "AAPL", "pe_ratio")).toBeCloseTo(price / 10, 12)
    expect(value(live, "AAPL", "analyst_target_price")).toBe(400)
    expect(value(live, "AAPL", "analyst_target_upside")).toBeCloseTo(400 / price - 1, 12)
    expect(value(live, "AAPL", "institutional_ownership")).toBe(0.6)
    // the simulator has no target: null without a feed
    expect(value(base, "AAPL", "analyst_target_price")).toBeNull()
    for (const c of ["market_cap", "price_to_book", "dividend_yield", "beta"]) {
      expect(value(live, "AAPL", c)).toBe(value(base, "AAPL", c))
    }
    for (const c of ["eps", "pe_ratio", "market_cap"]) expect(value(live, "MSFT", c)).toBe(value(base, "MSFT", c))
    // yesterday's row keeps the source's fundamentals
    expect(md.rowAsOf("AAPL", "2026-11-19")?.values).toEqual(plain.rowAsOf("AAPL", "2026-11-19")?.values)

    // a later update of the same day: only its fields change; null is unknown from then on
    const more = md.fundamentalsEntries([{ ticker: "AAPL", eps: null, sharesOutstanding: 1e10 }], t)
    md.applyFeedInputs({ fundamentals: more, mentions: [] })
    const again = md.refresh(t + 60_000)
    expect(value(again, "AAPL", "eps")).toBeNull()
    expect(value(again, "AAPL", "pe_ratio")).toBeNull()
    expect(value(again, "AAPL", "analyst_target_price")).toBe(400)
    expect(value(again, "AAPL", "market_cap")).toBe(Math.round((value(again, "AAPL", "price") as number) * 1e10))

    // a market built over what the store keeps (a restart) shows the same row
    const restarted = build({
      fundamentals: [
        ...entries,
        { ticker: "AAPL", fromDay: epochDay(FRIDAY), values: { eps: null, sharesOutstanding: 1e10 } }
      ],
      mentions: []
    }).refresh(t + 60_000)
    const r = again.index.get("AAPL")!
    for (const [name, col] of again.columns) {
      const other = restarted.columns.get(name)!
      if (col.kind === "string" || other.kind === "string") continue
      expect([name, other.valid[r], other.values[r]]).toEqual([name, col.valid[r], col.values[r]])
    }
  })

  it("pushed after the close take effect from the next session; a next earnings date replaces the calendar", () => {
    const md = build()
    const evening = closeInstant(FRIDAY) + HOUR
    const [entry] = md.fundamentalsEntries([{ ticker: "AAPL", nextEarningsDate: "2026-11-25" }], evening)
    expect(entry!.fromDay).toBe(epochDay(FRIDAY) + 1)
    // crypto: the UTC day is its session
    const [coin] = md.fundamentalsEntries([{ ticker: "BTC-USD", beta: 2 }], evening)
    expect(coin!.fromDay).toBe(epochDay(FRIDAY))

    const today = build()
    today.applyFeedInputs({
      fundamentals: today.fundamentalsEntries([{ ticker: "AAPL", nextEarningsDate: "2026-11-25" }], MIDDAY),
      mentions: []
    })
    const live = today.refresh(MIDDAY)
    expect(value(live, "AAPL", "days_to_earnings")).toBe(5)
    expect(value(live, "AAPL", "earnings_this_week")).toBe(false)
    // in the report's week it holds; the week after, both are unknown until the feed sends the next date
    const f = allocateFundamentals(today.size)
    const i = today.index.get("AAPL")!
    today.sim.fundamentalsAt("2026-11-27", f)
    expect([f.earningsDay[i], f.nextEarningsDay[i], f.lastEarningsDay[i]]).toEqual([
      epochDay("2026-11-25"),
      Number.NaN,
      epochDay("2026-11-25")
    ])
    today.sim.fundamentalsAt("2026-12-01", f)
    expect([f.earningsDay[i], f.nextEarningsDay[i]]).toEqual([Number.NaN, Number.NaN])
  })

  it("are refused whole, naming the problem", () => {
    const md = build()
    rejects(() => md.fundamentalsEntries([], MIDDAY), /no fundamentals given/)
    rejects(() => md.fundamentalsEntries([{ ticker: "NOPE9", eps: 1 }], MIDDAY), /update 1: "NOPE9" is not a tracked/)
    rejects(
      () =>
        md.fundamentalsEntries(
          [
            { ticker: "AAPL", eps: 1 },
            { ticker: "MSFT", sharesOutstanding: 0 }
          ],
          MIDDAY
        ),
      /update 2 \(MSFT\): sharesOutstanding must be a finite number above 0/
    )
    rejects(
      () => md.fundamentalsEntries([{ ticker: "AAPL", insiderOwnership: 1.5 }], MIDDAY),
      /insiderOwnership must be a fraction from 0 to 1/
    )
    rejects(() => md.fundamentalsEntries([{ ticker: "AAPL", eps: Number.NaN }], MIDDAY), /eps must be a finite number/)
    rejects(() => md.fundamentalsEntries([{ ticker: "AAPL", pe: 3 } as never], MIDDAY), /unknown field "pe"/)
    rejects(
      () => md.fundamentalsEntries([{ ticker: "AAPL", nextEarningsDate: "2026-13-01" }], MIDDAY),
      /nextEarningsDate must be a date/
    )
    rejects(() => md.fundamentalsEntries([{ ticker: "AAPL" }], MIDDAY), /no field given/)
  })
})

describe("a live feed's news", () => {
  const items = [
    { ticker: "AAPL", at: MIDDAY - 2 * HOUR, relevance: 0.9, sentiment: 0.8 },
    { ticker: "AAPL", at: MIDDAY - HOUR, relevance: 0.7, sentiment: -0.2 },
    { ticker: "AAPL", at: MIDDAY - HOUR, relevance: 0.3, sentiment: 1 }
  ]

  it("counts with the source's mentions in the news columns, from the next refresh, and not in completed days", () => {
    const md = build()
    const plain = build()
    const mentions = numbered(md.newsMentions(items, MIDDAY))
    md.applyFeedInputs({ fundamentals: [], mentions })
    const live = md.refresh(MIDDAY)
    const base = plain.refresh(MIDDAY)
    // two of the three are relevant (>= 0.6)
    expect(value(live, "AAPL", "news_volume")).toBe((value(base, "AAPL", "news_volume") as number) + 2)
    const i = md.index.get("AAPL")!
    const tq = Math.floor(MIDDAY / 900_000) * 900_000
    const all = [...plain.sim.mentions(i, tq - DAY_MS, tq), ...mentions]
    expect(value(live, "AAPL", "news_volume_weighted_sentiment")).toBeCloseTo(
      newsColumns(all, tq).newsVolumeWeightedSentiment,
      12
    )
    for (const c of ["news_volume", "news_volume_weighted_sentiment"]) {
      expect(value(live, "MSFT", c)).toBe(value(base, "MSFT", c))
    }
    // one ticker's read agrees with the whole market's
    const v = new Float64Array(1)
    const s = new Float64Array(1)
    md.sim.tickerNewsColumnsAt(i, MIDDAY, v, s, 0)
    expect([v[0], s[0]]).toEqual([
      value(live, "AAPL", "news_volume"),
      value(live, "AAPL", "news_volume_weighted_sentiment")
    ])
    expect(md.rowAsOf("AAPL", "2026-11-19")?.values).toEqual(plain.rowAsOf("AAPL", "2026-11-19")?.values)

    // the news scan lists them after the day's simulated mentions, in the order they arrived
    const day = Math.floor(MIDDAY / DAY_MS)
    const listed = newsArchiveOf(md).dayMentions(day, [i], () => true)
    const simulated = newsArchiveOf(plain).dayMentions(day, [i], () => true)
    expect(listed.length).toBe(simulated.length + 3)
    const fed = listed.filter((m) => m.index >= simulated.length).sort((a, b) => a.index - b.index)
    expect(fed.map((m) => [m.at, m.relevance, m.sentiment, m.index])).toEqual(
      items.map((m, k) => [m.at, m.relevance, m.sentiment, simulated.length + k])
    )
    // the whole-market read of the day lists them too, with the same indexes
    const whole = newsArchiveOf(md)
      .dayMentions(day, null, () => true)
      .filter((m) => m.slot === i)
    expect(whole.map((m) => m.index).sort((a, b) => a - b)).toEqual(listed.map((m) => m.index).sort((a, b) => a - b))
  })

  it("are refused whole when not after the last completed close, after now, or out of range", () => {
    const md = build()
    const thursdayClose = closeInstant("2026-11-19")
    rejects(
      () => md.newsMentions([...items, { ticker: "AAPL", at: thursdayClose, relevance: 1, sentiment: 0 }], MIDDAY),
      /mention 4 \(AAPL\): published 2026-11-19T21:00:00.000Z, not after its last completed session's close/
    )
    // Thursday evening is after Thursday's close: taken
    expect(
      md.newsMentions([{ ticker: "AAPL", at: thursdayClose + 1, relevance: 1, sentiment: 0 }], MIDDAY)
    ).toHaveLength(1)
    rejects(
      () => md.newsMentions([{ ticker: "AAPL", at: MIDDAY + 1, relevance: 1, sentiment: 0 }], MIDDAY),
      /after now/
    )
    rejects(
      () => md.newsMentions([{ ticker: "AAPL", at: MIDDAY, relevance: 2, sentiment: 0 }], MIDDAY),
      /relevance must be a number from 0 to 1/
    )
    rejects(
      () => md.newsMentions([{ ticker: "AAPL", at: MIDDAY, relevance: 1, sentiment: -3 }], MIDDAY),
      /sentiment must be a number from -1 to 1/
    )
    rejects(
      () => md.newsMentions([{ ticker: "ZZZZ9", at: MIDDAY, relevance: 1, sentiment: 0 }], MIDDAY),
      /not a tracked/
    )
    rejects(() => md.newsMentions([], MIDDAY), /no mentions given/)
  })
})

describe("the feed's source", () => {
  it("gives one ticker's or some tickers' fundamentals as it gives the whole market's", () => {
    const md = build()
    md.applyFeedInputs({
      fundamentals: [
        {
          ticker: "AAPL",
          fromDay: epochDay("2026-11-10"),
          values: { eps: 3, nextEarningsDay: epochDay("2026-11-12") }
        },
        { ticker: "AAPL", fromDay: epochDay("2026-11-16"), values: { beta: 0.5 } },
        { ticker: "KO", fromDay: epochDay("2026-11-01"), values: { dividendPerShare: null } }
      ],
      mentions: []
    })
    for (const date of ["2026-11-09", "2026-11-12", "2026-11-17", "2026-11-24"]) {
      const whole = md.sim.fundamentalsAt(date)
      for (const t of ["AAPL", "KO", "MSFT"]) {
        const i = md.index.get(t)!
        const one = md.sim.tickerFundamentalsAt(i, date, allocateFundamentals(1), 0)
        const some = md.sim.slotsFundamentalsAt([i], date, allocateFundamentals(md.size))
        for (const key of Object.keys(whole) as Array<keyof typeof whole>) {
          expect([date, t, key, one[key][0]]).toEqual([date, t, key, whole[key][i]])
          expect([date, t, key, some[key][i]]).toEqual([date, t, key, whole[key][i]])
        }
      }
    }
    const i = md.index.get("AAPL")!
    expect(md.sim.fundamentalsAt("2026-11-09").eps[i]).not.toBe(3)
    expect(md.sim.fundamentalsAt("2026-11-17").eps[i]).toBe(3)
    expect(md.sim.fundamentalsAt("2026-11-17").beta[i]).toBe(0.5)
    expect(md.sim.fundamentalsAt("2026-11-13").beta[i]).not.toBe(0.5)
  })
})
