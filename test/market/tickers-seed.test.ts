import { existsSync, readFileSync } from "node:fs"
import { resolve } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import {
  buildSeed,
  DEFAULT_DATA_DIR,
  DEFAULT_OUT,
  parseCsv,
  REPO_ROOT,
  SPEC_EQUITY_COUNT
} from "../../scripts/build-ticker-seed.js"
import { SEED_PATH } from "../../src/market/tickers/directory.js"
import { encodeSeed } from "../../src/market/tickers/seed.js"

/** The shared reference data: $VIGIL_SHARED_DATA, else `shared/data` beside the repository root. */
const DATA = DEFAULT_DATA_DIR
/**
 * The seed is built from the whole reference set, whose screener and CoinMarketCap files carry no
 * licence and so are not copied into the repository (test/fixtures/SOURCES.md). CI has it beside the
 * clone; a clone alone skips the rebuild (the committed seed itself is checked in tickers.test.ts).
 */
const NEEDS_DATA = "needs the reference data at ../shared/data or $VIGIL_SHARED_DATA, which CI has beside the clone"

describe("scripts/build-ticker-seed.ts", () => {
  it("resolves its default paths from the repository root, not from an absolute /work path", () => {
    expect(REPO_ROOT).toBe(resolve(import.meta.dirname, "../.."))
    expect(DEFAULT_OUT).toBe(SEED_PATH)
    expect(DEFAULT_DATA_DIR).toBe(process.env["VIGIL_SHARED_DATA"] || resolve(REPO_ROOT, "../shared/data"))
  })

  it("parses RFC 4180 CSV", () => {
    expect(parseCsv('a,b\n"x, y","he said ""hi"""\r\n1,\n2,3')).toEqual([
      ["a", "b"],
      ["x, y", 'he said "hi"'],
      ["1", ""],
      ["2", "3"]
    ])
  })
})

describe.skipIf(!existsSync(DATA))(`scripts/build-ticker-seed.ts on the reference data (${NEEDS_DATA})`, () => {
  let built: ReturnType<typeof buildSeed>
  beforeAll(() => {
    built = buildSeed(DATA)
  })

  it("reproduces the committed data/tickers.json byte for byte (deterministic, up to date)", () => {
    expect(encodeSeed(built.seed)).toBe(readFileSync(SEED_PATH, "utf8"))
  })

  it("accounts for every non-test directory row", () => {
    const { test: _test, ...excluded } = built.report.excluded
    const dropped = Object.values(excluded).reduce((a, b) => a + b, 0)
    const listedCs = built.report.tracked.CS - built.report.tracked.CS_OTC
    expect(built.report.directoryRows.nonTest).toBe(13_104)
    expect(listedCs + built.report.tracked.ETF + dropped).toBe(built.report.directoryRows.nonTest)
  })

  it("fills the equities to the spec's 12,947 with OTC common stocks, 13,047 tickers in all", () => {
    expect(SPEC_EQUITY_COUNT).toBe(12_947)
    expect(built.report.tracked).toEqual({ CS: 7307, CS_OTC: 1369, ETF: 5640, CRYPTO: 100, total: 13_047 })
    expect(built.report.equityShortfall).toBe(0)
    const { otc } = built.report
    expect(otc.taken).toEqual({ domestic: 678, adr: 236, foreign: 455, total: 1369 })
    const skipped = Object.values(otc.skipped).reduce((a, b) => a + b, 0)
    expect(otc.taken.total + skipped).toBe(otc.scanned)
    expect(otc.rows).toBe(2480)
    expect(otc.cutoff).toEqual({ index: 8119, ticker: "HSTC" })
  })
})
