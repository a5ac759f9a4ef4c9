/**
 * A fixed sample of the seed's tickers for tests that run the service in
 * their own process (inProcess.ts, `market: "sample"`): every crypto, every
 * S&P 500 member, the tickers the suites name, and every 12th of the rest —
 * about 1,700 of 13,047, all three asset types, every exchange. The market
 * over it is built by the same simulator from the same seed.
 */
import { loadTickers, makeTickerDirectory, type TickerDirectory } from "../../src/market/tickers/index.js"

/** tickers the suites name (a test may read any of them) */
const NAMED = new Set(
  (
    "A AA AAA AACB AAPL AB AERO ALL AMD AMZN APT ARB ASC ATOM B BB BBB BCH BGB BHK BNS BRK.A BRK.B " +
    "BTC C CAKE CARR CCC CHE CRAWA D DAI DASH DDD DGP DOGE DTEGY E ENS ETH F FDUSD FET FLR FNMA " +
    "FRFHF GOOGL GT H HPF HSTC IP ITUB JPM KO L LEO LINK LSE LTC M META MSFT NEAR NVDA OR P PEPE " +
    "PFBC PFD PI PNDRY POST PRT PUMP PYUSD Q QNT QQQ R RHNO RLUSD RTNTF S SEI SKY SOL SPY STX SUI T " +
    "TRX TSLA U USD USD1 USDC USDE USDT UTEN VET VXX WDH WMT XAUT XOM XRP XYZ Z"
  ).split(" ")
)

const EVERY = 12

let sample: TickerDirectory | undefined

export const sampleDirectory = (): TickerDirectory => {
  if (sample === undefined) {
    sample = makeTickerDirectory(
      loadTickers().filter((t, i) => t.asset_type === "CRYPTO" || t.sp500 || NAMED.has(t.ticker) || i % EVERY === 0)
    )
  }
  return sample
}

/** A service's market: the seed's tickers ("all", `npm start`'s) or this fixed sample. */
export type MarketChoice = "all" | "sample"

/** The sample's tickers as one comma-separated argument, for sampleService.mjs. */
export const sampleTickersArgument = (): string =>
  sampleDirectory()
    .all.map((t) => t.ticker)
    .join(",")
