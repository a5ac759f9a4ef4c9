/**
 * Columns that do not come from bars: fundamentals and vendor fields (from a
 * per-ticker input, valued at the current price), the earnings calendar, the
 * market-cap buckets and the news columns (computed by `news.ts`).
 */
import { THRESHOLDS } from "../catalog.js"
import { weekdayOfDay as isoWeekday } from "./days.js"
import { type Scratch, slot } from "./scratch.js"

// Module-level aliases of the imports used per ticker: under vitest every use of
// an imported binding is a getter call, which more than doubled the cost of a refresh.
const T = THRESHOLDS
const weekdayOfDay = isoWeekday

/**
 * Per-ticker inputs beyond bars. Every field is required so a feed states
 * "unknown" explicitly with null; `NO_INPUTS` is the all-unknown value.
 */
export interface TickerInputs {
  /** shares outstanding; circulating supply for crypto */
  readonly sharesOutstanding: number | null
  /** trailing twelve-month diluted EPS, USD */
  readonly eps: number | null
  /** vendor: consensus EPS estimate for the next twelve months */
  readonly forwardEps: number | null
  readonly bookValuePerShare: number | null
  /** trailing twelve-month revenue per share */
  readonly salesPerShare: number | null
  /** trailing twelve-month dividends per share (0 for non-payers) */
  readonly dividendPerShare: number | null
  readonly beta: number | null
  /** vendor: shares sold short at the latest report */
  readonly sharesShort: number | null
  /** vendor: fractions of shares outstanding */
  readonly institutionalOwnership: number | null
  readonly insiderOwnership: number | null
  /** vendor: mean analyst 12-month price target, USD */
  readonly analystTargetPrice: number | null
  /** epoch day of the next scheduled earnings report, or of the latest one while it is in the current week */
  readonly earningsDay: number | null
  /** `news_volume` and `news_volume_weighted_sentiment` from `newsColumns` (0 without news) */
  readonly newsVolume: number
  readonly newsSentiment: number
}

export const NO_INPUTS: TickerInputs = {
  sharesOutstanding: null,
  eps: null,
  forwardEps: null,
  bookValuePerShare: null,
  salesPerShare: null,
  dividendPerShare: null,
  beta: null,
  sharesShort: null,
  institutionalOwnership: null,
  insiderOwnership: null,
  analystTargetPrice: null,
  earningsDay: null,
  newsVolume: 0,
  newsSentiment: 0
}

const PRICE = slot("price")
const SHARES = slot("shares_outstanding")
const MARKET_CAP = slot("market_cap")
const MICRO_CAP = slot("micro_cap")
const SMALL_CAP = slot("small_cap")
const MID_CAP = slot("mid_cap")
const LARGE_CAP = slot("large_cap")
const MEGA_CAP = slot("mega_cap")
const EPS = slot("eps")
const PE = slot("pe_ratio")
const EARNINGS_YIELD = slot("earnings_yield")
const FORWARD_PE = slot("forward_pe")
const PRICE_TO_BOOK = slot("price_to_book")
const PRICE_TO_SALES = slot("price_to_sales")
const DIVIDEND_YIELD = slot("dividend_yield")
const DIVIDEND_PAYER = slot("dividend_payer")
const BETA = slot("beta")
const SHORT_INTEREST = slot("short_interest")
const DAYS_TO_COVER = slot("days_to_cover")
const INSTITUTIONAL = slot("institutional_ownership")
const INSIDER = slot("insider_ownership")
const TARGET = slot("analyst_target_price")
const TARGET_UPSIDE = slot("analyst_target_upside")
const DAYS_TO_EARNINGS = slot("days_to_earnings")
const EARNINGS_THIS_WEEK = slot("earnings_this_week")
const NEWS_VOLUME = slot("news_volume")
const NEWS_SENTIMENT = slot("news_volume_weighted_sentiment")
const AVG_VOLUME_30D = slot("avg_volume_30d")

const orNaN = (x: number | null): number => (x === null ? Number.NaN : x)
/** a / b when b > 0, else NaN (which `put` stores as null) */
const overPositive = (a: number, b: number): number => (b > 0 ? a / b : Number.NaN)

/** Fill the fundamentals slots; the bar-derived slots (price, avg_volume_30d) must be computed first. */
export const computeFundamentals = (inputs: TickerInputs, day: number, r: Scratch): void => {
  const price = r.get(PRICE)
  const shares = orNaN(inputs.sharesOutstanding)
  r.put(SHARES, shares)
  // whole dollars: a product of price and shares written to the last bit (166418618649.59998) reads as noise
  r.put(MARKET_CAP, Math.round(price * shares))
  if (r.ok[MARKET_CAP]) {
    const cap = r.v[MARKET_CAP]
    r.flag(MICRO_CAP, cap < T.microCapMax)
    r.flag(SMALL_CAP, cap < T.smallCapMax)
    r.flag(MID_CAP, cap >= T.smallCapMax && cap < T.midCapMax)
    r.flag(LARGE_CAP, cap >= T.midCapMax && cap < T.largeCapMax)
    r.flag(MEGA_CAP, cap >= T.largeCapMax)
  }

  const eps = orNaN(inputs.eps)
  r.put(EPS, eps)
  r.put(PE, overPositive(price, eps))
  r.put(EARNINGS_YIELD, eps / price)
  r.put(FORWARD_PE, overPositive(price, orNaN(inputs.forwardEps)))
  r.put(PRICE_TO_BOOK, overPositive(price, orNaN(inputs.bookValuePerShare)))
  r.put(PRICE_TO_SALES, overPositive(price, orNaN(inputs.salesPerShare)))
  r.put(DIVIDEND_YIELD, orNaN(inputs.dividendPerShare) / price)
  if (r.ok[DIVIDEND_YIELD]) r.flag(DIVIDEND_PAYER, r.v[DIVIDEND_YIELD] > 0)
  r.put(BETA, orNaN(inputs.beta))

  const short = orNaN(inputs.sharesShort)
  r.put(SHORT_INTEREST, overPositive(short, shares))
  r.put(DAYS_TO_COVER, overPositive(short, r.get(AVG_VOLUME_30D)))
  r.put(INSTITUTIONAL, orNaN(inputs.institutionalOwnership))
  r.put(INSIDER, orNaN(inputs.insiderOwnership))
  const target = orNaN(inputs.analystTargetPrice)
  r.put(TARGET, target)
  r.put(TARGET_UPSIDE, target / price - 1)

  const earnings = inputs.earningsDay
  if (earnings === null) {
    r.flag(EARNINGS_THIS_WEEK, false)
  } else {
    const monday = day - weekdayOfDay(day)
    r.flag(EARNINGS_THIS_WEEK, earnings >= monday && earnings <= monday + 6)
    if (earnings >= day) r.put(DAYS_TO_EARNINGS, earnings - day)
  }

  r.put(NEWS_VOLUME, inputs.newsVolume)
  r.put(NEWS_SENTIMENT, inputs.newsSentiment)
}
