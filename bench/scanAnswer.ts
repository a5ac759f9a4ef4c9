/**
 * A live scan's answer in process, step by step (issue 14, item 4): the real market (13,047
 * tickers, a month of history: the live snapshot is the same), `--requests` (6,000) distinct
 * three-threshold `q`s as `bench:api`'s distinct phase sends them, each step timed over all of
 * them after a warm-up on other `q`s (mean µs per request); the steps that compile (`compile`,
 * `whole`) each get `q`s of their own, so every compilation is of a text never compiled before:
 *
 *   decode      the body's JSON and schema, the parameters
 *   compile     `q` compiled (no cache can help: every `q` differs)
 *   evaluate    the matches row by row (`CompiledQuery.evaluate`)          } same predicates,
 *   matchBits   the matches as a bitset from sorted columns (what scans use) } same run: a ratio
 *   page        the page of 50 in `day_change_pct` order
 *   rows        the page's rows as JSON text
 *   cursor      the next page's cursor
 *   whole       `answerScan` end to end (what the direct path runs)
 *
 * and, as the baseline of the same run, `JSON.stringify` of the same page's rows as objects (what
 * writing the answer costs without any of the work before it).
 *
 *   npm run bench:scan-answer [-- --requests=6000]
 */
import { loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { Either } from "effect"
import { compileContext, compileWithoutSignals } from "../src/api/common/compile.js"
import { renderRow, renderRowsJson } from "../src/api/common/rows.js"
import { makeCursorCodec } from "../src/api/cursor.js"
import { answerScan, scanInputOfBody } from "../src/api/direct/answers.js"
import { type ScanParameters, scanParameters } from "../src/api/scan/answer.js"
import { rowColumns } from "../src/api/scan/params.js"
import { MarketData } from "../src/market/engine/MarketData.js"
import { loadTickers, makeTickerDirectory } from "../src/market/tickers/index.js"
import { compileQuery } from "../src/query/index.js"
import { pageOf } from "../src/query/order.js"
import { benchArgs } from "./support/args.js"

const args = benchArgs()
const N = Number(args.get("requests") ?? 6_000)
const NOW = Date.UTC(2026, 10, 20, 18, 30) // a Friday, 13:30 New York

console.log(
  `node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}; ${N} distinct q`
)
const tickers = loadTickers()
const market = MarketData.build({ seed: 20260526, tickers, historyDays: 30, now: NOW })
const directory = makeTickerDirectory(tickers)
const snapshot = market.latest
const codec = makeCursorCodec(new Uint8Array(32).fill(7))

let seed = 7
const random = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}
/** N requests to time and a tenth more to warm up on */
const WARM = Math.ceil(N / 10)
const distinctBodies = () =>
  Array.from({ length: N + WARM }, () =>
    JSON.stringify({
      q: `price > ${(1 + random() * 20).toFixed(2)} AND market_cap > ${Math.round(1e8 + random() * 9e8)} AND rsi_14 < ${(50 + random() * 40).toFixed(1)}`,
      limit: 50
    })
  )
const bodies = distinctBodies()

/** mean µs of `f` over requests 0..N-1, after a warm-up over the requests past them */
const time = (f: (i: number) => unknown): number => {
  for (let i = N; i < N + WARM; i++) f(i)
  const t = performance.now()
  for (let i = 0; i < N; i++) f(i)
  return ((performance.now() - t) * 1000) / N
}

const decoded = bodies.map((b) => scanInputOfBody(b)!)
const params = decoded.map((input) => Either.getOrThrow(scanParameters(input, undefined, false)) as ScanParameters)
const compiled = params.map((p) => Either.getOrThrow(compileQuery(p.q, compileContext(directory))))
const compileTexts = distinctBodies().map((b) => JSON.parse(b).q as string)
const wholeInputs = distinctBodies().map((b) => scanInputOfBody(b)!)
const matched = compiled.map((c) => c.matchBits(snapshot))
const pages = matched.map((m) => pageOf(snapshot, m, "day_change_pct", true, 50, undefined))
const columns = rowColumns("day_change_pct", [])
const binding = (p: ScanParameters) => ({ endpoint: "scan", account: "acc", q: p.q, order: p.order, limit: p.limit })

const steps: Array<[string, number]> = [
  ["decode", time((i) => scanParameters(scanInputOfBody(bodies[i]!)!, undefined, false))],
  ["compile", time((i) => compileWithoutSignals(compileTexts[i]!, directory))],
  ["evaluate (row by row)", time((i) => compiled[i]!.evaluate(snapshot))],
  ["matchBits (sorted columns)", time((i) => compiled[i]!.matchBits(snapshot))],
  ["page", time((i) => pageOf(snapshot, matched[i]!, "day_change_pct", true, 50, undefined))],
  ["rows", time((i) => renderRowsJson(snapshot, pages[i]!.rows, columns))],
  ["cursor", time((i) => codec.encode(binding(params[i]!), [1.5, "AAPL"]))],
  ["whole answerScan", time((i) => answerScan(wholeInputs[i]!, "acc", { snapshot, market, directory, codec }))]
]
const baseline = time((i) => JSON.stringify(pages[i]!.rows.map((r) => renderRow(snapshot, r, columns))))
const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
console.log(
  `matches per q: mean ${mean(matched.map((m) => m.count)).toFixed(0)} of ${snapshot.size}; page text ${mean(pages.map((p) => renderRowsJson(snapshot, p.rows, columns).length)).toFixed(0)} characters`
)
for (const [label, us] of steps) {
  console.log(`${label.padEnd(28)} ${us.toFixed(1).padStart(7)} µs   × ${(us / baseline).toFixed(2)} of the baseline`)
}
console.log(`${"baseline: JSON.stringify rows".padEnd(28)} ${baseline.toFixed(1).padStart(7)} µs`)
const evaluate = steps[2]![1]
const bits = steps[3]![1]
console.log(`matchBits against evaluate: × ${(bits / evaluate).toFixed(2)}`)
