/**
 * What the repository derived from the reference data (the data set beside the clone that
 * scripts/build-ticker-seed.ts reads) is still what that data gives:
 *
 * - `data/tickers.json` rebuilds byte for byte, and the build accounts for every directory row
 *   (12,947 equities and ETFs, 100 cryptocurrencies; docs/tickers.md);
 * - the Alpha Vantage files in test/fixtures are byte for byte the reference ones, and
 *   `dates.csv` is current (scripts/build-test-fixtures.ts).
 *
 *   npm run check:reference [-- dataDir]
 *
 * Not part of `npm test`, which reads nothing outside the repository: the seed's inputs include
 * files without a licence to copy (test/fixtures/SOURCES.md). `.ci/run` runs it beside the tests.
 * Exits 1 naming every check that failed.
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { encodeSeed } from "../src/market/tickers/seed.js"
import { ALPHA_VANTAGE_COPIED, AV_SUBDIR, alphaVantageDates, FIXTURES_DIR } from "./build-test-fixtures.js"
import { buildSeed, DEFAULT_DATA_DIR, DEFAULT_OUT, SPEC_EQUITY_COUNT } from "./build-ticker-seed.js"

const dataDir = resolve(process.argv[2] || DEFAULT_DATA_DIR)
const failures: Array<string> = []
const check = (what: string, ok: boolean, detail = "") => {
  process.stdout.write(`${ok ? "ok  " : "FAIL"} ${what}${ok || detail === "" ? "" : `: ${detail}`}\n`)
  if (!ok) failures.push(what)
}
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

const { seed, report } = buildSeed(dataDir)
check("data/tickers.json rebuilds byte for byte", encodeSeed(seed) === readFileSync(DEFAULT_OUT, "utf8"))

const { test: _test, ...excluded } = report.excluded
const dropped = Object.values(excluded).reduce((a, b) => a + b, 0)
const listedCs = report.tracked.CS - report.tracked.CS_OTC
check(
  "every non-test directory row is tracked or dropped for a reason",
  report.directoryRows.nonTest === 13_104 && listedCs + report.tracked.ETF + dropped === report.directoryRows.nonTest,
  JSON.stringify({ nonTest: report.directoryRows.nonTest, listedCs, etf: report.tracked.ETF, dropped })
)
const expectedTracked = { CS: 7307, CS_OTC: 1369, ETF: 5640, CRYPTO: 100, total: 13_047 }
check(
  `the equities fill the spec's ${SPEC_EQUITY_COUNT} with OTC common stocks, 13,047 tickers in all`,
  same(report.tracked, expectedTracked) && report.equityShortfall === 0,
  JSON.stringify(report.tracked)
)
const { otc } = report
const skipped = Object.values(otc.skipped).reduce((a, b) => a + b, 0)
check(
  "the OTC fill takes 1,369 of 2,480 rows, up to HSTC",
  same(otc.taken, { domestic: 678, adr: 236, foreign: 455, total: 1369 }) &&
    otc.taken.total + skipped === otc.scanned &&
    otc.rows === 2480 &&
    same(otc.cutoff, { index: 8119, ticker: "HSTC" }),
  JSON.stringify({ taken: otc.taken, scanned: otc.scanned, rows: otc.rows, cutoff: otc.cutoff })
)

for (const ticker of ALPHA_VANTAGE_COPIED) {
  const file = `DA-${ticker}-T-2021-04-21.csv`
  const copy = readFileSync(resolve(FIXTURES_DIR, "alphavantage", file))
  check(`test/fixtures holds ${file} byte for byte`, copy.equals(readFileSync(resolve(dataDir, AV_SUBDIR, file))))
}
check(
  "test/fixtures/alphavantage/dates.csv is current",
  readFileSync(resolve(FIXTURES_DIR, "alphavantage/dates.csv"), "utf8") === alphaVantageDates(dataDir)
)

if (failures.length > 0) {
  process.stderr.write(`${failures.length} check(s) failed against ${dataDir}\n`)
  process.exit(1)
}
