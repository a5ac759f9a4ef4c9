/**
 * The service as a process over the sample market (sampleTickers.ts): `npm start`'s build and its
 * process wrapper (src/runProcess.ts) over the tickers its first argument lists (comma-separated),
 * built by the same simulator from the same seed. Proofs about processes (crash,
 * faults, several instances, the cluster) start it through `startServer(env, ms, { market:
 * "sample" })`: a start over ~1,700 tickers costs a fraction of one over 13,047.
 *
 * `node --enable-source-maps test/support/sampleService.mjs AAPL,MSFT,…`
 */
import { Layer } from "effect"
import { serviceOver } from "../../build/App.js"
import { loadTickers, makeTickerDirectory, Tickers } from "../../build/market/tickers/index.js"
import { runProcess } from "../../build/runProcess.js"

const keep = new Set(process.argv[2].split(","))
runProcess(serviceOver(Layer.sync(Tickers, () => makeTickerDirectory(loadTickers().filter((t) => keep.has(t.ticker))))))
