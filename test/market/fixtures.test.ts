/**
 * test/fixtures against the reference data they were taken from: the copied
 * Alpha Vantage files are byte for byte the shared ones and `dates.csv` is up to
 * date (scripts/build-test-fixtures.ts). Needs that data beside the clone, as in CI.
 */
import { existsSync, readFileSync } from "node:fs"
import { resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { ALPHA_VANTAGE_COPIED, alphaVantageDates, FIXTURES_DIR } from "../../scripts/build-test-fixtures.js"
import { DEFAULT_DATA_DIR } from "../../scripts/build-ticker-seed.js"
import { alphaVantagePath } from "../support/fixtures.js"

const NEEDS_DATA = "needs the reference data at ../shared/data or $VIGIL_SHARED_DATA, which CI has beside the clone"

describe.skipIf(!existsSync(DEFAULT_DATA_DIR))(`test/fixtures against the reference data (${NEEDS_DATA})`, () => {
  it("holds the Alpha Vantage files byte for byte and an up-to-date dates.csv", () => {
    for (const ticker of ALPHA_VANTAGE_COPIED) {
      const file = `DA-${ticker}-T-2021-04-21.csv`
      const shared = readFileSync(resolve(DEFAULT_DATA_DIR, "prices/equities/alphavantage_daily_adjusted", file))
      expect(readFileSync(alphaVantagePath(ticker)).equals(shared), file).toBe(true)
    }
    expect(readFileSync(resolve(FIXTURES_DIR, "alphavantage/dates.csv"), "utf8")).toBe(
      alphaVantageDates(DEFAULT_DATA_DIR)
    )
  })
})
