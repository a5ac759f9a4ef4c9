/**
 * A process that starts the walk helper, shares one walk with it and ends its script: it must exit on
 * its own (the helper keeps no process alive once loaded). `walkHelper.test.ts` runs it.
 */
import { MarketData } from "../../../src/market/engine/MarketData.js"
import { barsInRange, KeptRows } from "../../../src/market/history/keptRows.js"
import { walkHelperReady } from "../../../src/market/history/walkHelper.js"
import { loadTickers } from "../../../src/market/tickers/index.js"

const NOW = Date.UTC(2026, 10, 20, 18, 30)
const md = MarketData.build({
  seed: 3,
  tickers: loadTickers().filter((_, i) => i % 500 === 0),
  historyDays: 60,
  now: NOW
})
console.log(`ready ${await walkHelperReady()}`)
// sma_50: a column without a kernel (a kernel's walk is not shared)
const rows = new KeptRows(md, [...Array(md.size).keys()], ["price", "sma_50"], barsInRange(0, Number.MAX_SAFE_INTEGER))
for (const _ of rows.walk({ shareFrom: 0, runBars: 64 })) {
}
console.log(`walked ${rows.size} bars in ${rows.shared?.runs} runs`)
