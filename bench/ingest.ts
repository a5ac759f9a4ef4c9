/**
 * A live feed's trades (issue 17, item 7): what taking them costs (`Market.push` of `Quotes`, applied
 * by `MarketData.applyQuotes`), and what a refresh costs when every equity is quoted (its live row
 * the bar its trades made) against the same refresh with none — the baseline, in the same run.
 *
 *   npm run bench:ingest
 *   npm run bench:ingest -- --quotes=2000000 --rounds=5
 */
import { loadavg } from "node:os"
import { openInstant } from "../src/market/calendar.js"
import { MarketData, type Quote } from "../src/market/engine/MarketData.js"
import { loadTickers } from "../src/market/tickers/index.js"
import { benchArgs } from "./support/args.js"
import { quantile } from "./support/stats.js"

const args = benchArgs()
const QUOTES = Number(args.get("quotes") ?? 1_000_000)
const ROUNDS = Number(args.get("rounds") ?? 5)
const tickers = loadTickers()
/** Friday 2026-11-20, 13:30 New York: the session is open */
const NOW = Date.UTC(2026, 10, 20, 18, 30)
const open = openInstant("2026-11-20")

console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}; ${tickers.length} tickers`
)
const quoted = MarketData.build({ seed: 1, tickers, historyDays: 20, now: NOW })
const plain = MarketData.build({ seed: 1, tickers, historyDays: 20, now: NOW })
const equities = tickers.filter((t) => t.asset_type !== "CRYPTO").map((t) => t.ticker)
const batch: Array<Quote> = Array.from({ length: QUOTES }, (_, k) => ({
  ticker: equities[k % equities.length]!,
  at: open + (k % 14_000) * 1_000,
  price: 10 + (k % 97) / 10,
  size: 100
}))

const take: Array<number> = []
const withQuotes: Array<number> = []
const without: Array<number> = []
for (let r = 0; r < ROUNDS; r++) {
  let t0 = performance.now()
  const outcome = quoted.applyQuotes(batch, NOW + r * 60_000)
  take.push(performance.now() - t0)
  if (outcome.accepted !== QUOTES) throw new Error(`only ${outcome.accepted} of ${QUOTES} quotes taken`)
  t0 = performance.now()
  quoted.refresh(NOW + r * 60_000)
  withQuotes.push(performance.now() - t0)
  t0 = performance.now()
  plain.refresh(NOW + r * 60_000)
  without.push(performance.now() - t0)
}
const p50 = (xs: Array<number>) => quantile(xs, 0.5)
console.log(
  `quotes taken: p50 ${p50(take).toFixed(0)} ms for ${QUOTES.toLocaleString("en-US")} (${Math.round((QUOTES / p50(take)) * 1000).toLocaleString("en-US")} a second)`
)
console.log(
  `refresh, every equity quoted: p50 ${p50(withQuotes).toFixed(1)} ms; without quotes (baseline): p50 ${p50(without).toFixed(1)} ms; × ${(p50(withQuotes) / p50(without)).toFixed(2)}`
)
