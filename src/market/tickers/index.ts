export {
  assetTypeFilter,
  loadTickers,
  makeTickerDirectory,
  readTickerSeed,
  SEED_PATH,
  type TickerDirectory,
  Tickers,
  TickersLive,
  tickerDirectory
} from "./directory.js"
export { cryptoPairSymbol, isWellFormedSymbol, normalizeSymbol } from "./symbols.js"
export type {
  AssetType,
  ClassificationSource,
  ExchangeCode,
  SeedSource,
  Sp500Fundamentals,
  TickerMeta
} from "./types.js"
export { ASSET_TYPES, EXCHANGE_CODES } from "./types.js"
