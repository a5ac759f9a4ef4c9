/**
 * The simulated market (the embedded default source): deterministic from
 * MARKET_SEED. See simulator.ts for the model overview and each module for its
 * part: random (counter-based draws), daily (factor model and bars), intraday
 * (minute paths and partial bars), earnings, fundamentals, news.
 */
export { allocateDayBars, type DayBars } from "./daily.js"
export { allocateFundamentals, type FundamentalColumns } from "./fundamentals.js"
export { allocatePartialBars, IntradaySession, type PartialBars, type SessionKind, volumeProfile } from "./intraday.js"
export { type DayNews, NEWS_REFRESH_MS, newsInstant } from "./news.js"
export type { SimAssetType, SimTickerSpec } from "./params.js"
export { MarketSimulator, type SimulatorOptions } from "./simulator.js"
export { NYSE_CALENDAR, type SimCalendar } from "./tradingDays.js"
