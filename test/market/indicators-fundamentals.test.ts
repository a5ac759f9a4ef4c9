/**
 * Columns from the per-ticker fundamentals/news input, and the news window.
 */
import { describe, expect, it } from "vitest"
import {
  commit,
  type DailyBar,
  EQUITY_DAILY,
  epochDay,
  makeState,
  NO_INPUTS,
  newsColumns,
  previewValues,
  type TickerInputs
} from "../../src/market/indicators/index.js"

const WED = epochDay("2021-01-06")
const bar = (close: number, day = WED): DailyBar => ({ day, open: close, high: close, low: close, close, volume: 1000 })

const rowAt = (close: number, inputs: Partial<TickerInputs>, day = WED) => {
  const st = makeState(EQUITY_DAILY)
  for (let t = 30; t >= 1; t--) commit(st, bar(close, day - t))
  return previewValues(st, bar(close, day), { ...NO_INPUTS, ...inputs })
}

describe("fundamentals columns", () => {
  it("writes market cap in whole dollars", () => {
    // 166.4186186495999… × 1e9 is 166418618649.59998 as a product of doubles
    const row = rowAt(166.41861864959998, { sharesOutstanding: 1e9 })
    expect(row.market_cap).toBe(166_418_618_650)
    expect(rowAt(0.0101, { sharesOutstanding: 49 }).market_cap).toBe(0)
  })

  it("values market cap and the price ratios at the current price", () => {
    const row = rowAt(100, {
      sharesOutstanding: 1e9,
      eps: 4,
      forwardEps: 5,
      bookValuePerShare: 25,
      salesPerShare: 50,
      dividendPerShare: 2,
      beta: 1.2,
      sharesShort: 2e7,
      institutionalOwnership: 0.7,
      insiderOwnership: 0.01,
      analystTargetPrice: 120
    })
    expect(row.shares_outstanding).toBe(1e9)
    expect(row.market_cap).toBe(1e11)
    expect(row.pe_ratio).toBe(25)
    expect(row.earnings_yield).toBe(0.04)
    expect(row.forward_pe).toBe(20)
    expect(row.price_to_book).toBe(4)
    expect(row.price_to_sales).toBe(2)
    expect(row.dividend_yield).toBe(0.02)
    expect(row.dividend_payer).toBe(true)
    expect(row.beta).toBe(1.2)
    expect(row.short_interest).toBe(0.02)
    expect(row.days_to_cover).toBe(20_000) // 2e7 short / 1000 average daily volume
    expect(row.institutional_ownership).toBe(0.7)
    expect(row.insider_ownership).toBe(0.01)
    expect(row.analyst_target_price).toBe(120)
    expect(row.analyst_target_upside).toBeCloseTo(0.2, 15)
    expect(row.large_cap).toBe(true)
  })

  it("gives null ratios for non-positive or missing denominators", () => {
    const row = rowAt(50, {
      sharesOutstanding: 1e6,
      eps: -2,
      forwardEps: 0,
      bookValuePerShare: -1,
      dividendPerShare: 0
    })
    expect(row.pe_ratio).toBeNull()
    expect(row.earnings_yield).toBe(-0.04)
    expect(row.forward_pe).toBeNull()
    expect(row.price_to_book).toBeNull()
    expect(row.price_to_sales).toBeNull()
    expect(row.dividend_yield).toBe(0)
    expect(row.dividend_payer).toBe(false)
    const empty = rowAt(50, {})
    for (const name of ["market_cap", "pe_ratio", "eps", "small_cap", "mega_cap", "short_interest", "beta"]) {
      expect(empty[name], name).toBeNull()
    }
    expect(empty.earnings_this_week).toBe(false)
    expect(empty.news_volume).toBe(0)
    expect(empty.news_volume_weighted_sentiment).toBe(0)
  })

  it("buckets market cap with inclusive lower bounds", () => {
    const bucket = (shares: number) => {
      const r = rowAt(10, { sharesOutstanding: shares })
      return ["micro_cap", "small_cap", "mid_cap", "large_cap", "mega_cap"].filter((n) => r[n] === true)
    }
    expect(bucket(2.9e7)).toEqual(["micro_cap", "small_cap"]) // $290M
    expect(bucket(3e7)).toEqual(["small_cap"]) // $300M
    expect(bucket(1.999e8)).toEqual(["small_cap"]) // $1.999B
    expect(bucket(2e8)).toEqual(["mid_cap"]) // $2B
    expect(bucket(1e9)).toEqual(["large_cap"]) // $10B
    expect(bucket(1.99e10)).toEqual(["large_cap"])
    expect(bucket(2e10)).toEqual(["mega_cap"]) // $200B
  })

  it("flags earnings in the current Monday-to-Sunday week", () => {
    expect(rowAt(10, { earningsDay: epochDay("2021-01-04") }).earnings_this_week).toBe(true) // Monday, past
    expect(rowAt(10, { earningsDay: epochDay("2021-01-04") }).days_to_earnings).toBeNull()
    expect(rowAt(10, { earningsDay: WED }).days_to_earnings).toBe(0)
    expect(rowAt(10, { earningsDay: epochDay("2021-01-10") }).earnings_this_week).toBe(true) // Sunday
    expect(rowAt(10, { earningsDay: epochDay("2021-01-10") }).days_to_earnings).toBe(4)
    expect(rowAt(10, { earningsDay: epochDay("2021-01-11") }).earnings_this_week).toBe(false) // next Monday
    expect(rowAt(10, { earningsDay: epochDay("2021-01-03") }).earnings_this_week).toBe(false) // previous Sunday
  })
})

describe("news columns", () => {
  const now = Date.UTC(2021, 0, 6, 15, 0, 0)
  const hour = 3_600_000

  it("counts relevant mentions in the last 24 hours and attenuates the weighted sentiment", () => {
    const values = newsColumns(
      [
        { at: now - hour, relevance: 0.9, sentiment: 0.5 },
        { at: now - 2 * hour, relevance: 0.6, sentiment: -0.5 },
        { at: now - 3 * hour, relevance: 0.3, sentiment: 1 }, // in the average, not in the count
        { at: now - 24 * hour, relevance: 1, sentiment: 1 }, // window is (now - 24h, now]
        { at: now - 25 * hour, relevance: 1, sentiment: 1 },
        { at: now + 1, relevance: 1, sentiment: 1 }
      ],
      now
    )
    expect(values.newsVolume).toBe(2)
    // (0.9 x 0.5 + 0.6 x -0.5 + 0.3 x 1) / (0.9 + 0.6 + 0.3) = 0.25, x tanh(2/15)
    expect(values.newsVolumeWeightedSentiment).toBeCloseTo(0.25 * Math.tanh(2 / 15), 15)
    expect(values.newsVolumeWeightedSentiment).toBeCloseTo(0.033137, 6)
  })

  it("is 0 without relevant news and approaches the average under heavy coverage", () => {
    expect(newsColumns([], now)).toEqual({ newsVolume: 0, newsVolumeWeightedSentiment: 0 })
    expect(newsColumns([{ at: now, relevance: 0.5, sentiment: 1 }], now)).toEqual({
      newsVolume: 0,
      newsVolumeWeightedSentiment: 0
    })
    const flood = Array.from({ length: 60 }, (_, i) => ({ at: now - i * 60_000, relevance: 1, sentiment: 0.8 }))
    const heavy = newsColumns(flood, now)
    expect(heavy.newsVolume).toBe(60)
    expect(heavy.newsVolumeWeightedSentiment).toBeCloseTo(0.8 * Math.tanh(4), 12)
  })

  it("passes the news values through to the row", () => {
    const row = rowAt(10, { newsVolume: 7, newsSentiment: -0.3 })
    expect(row.news_volume).toBe(7)
    expect(row.news_volume_weighted_sentiment).toBe(-0.3)
  })
})
