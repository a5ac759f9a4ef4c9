/**
 * test/fixtures is what test/fixtures/SOURCES.md says it is: the copied Alpha
 * Vantage files have the SHA-256 recorded there, and `dates.csv`'s rows for
 * them are the date columns of the copies (scripts/build-test-fixtures.ts).
 * Against the reference data itself: `npm run check:reference`.
 */
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { ALPHA_VANTAGE_COPIED, csvDates, datesDigest } from "../../scripts/build-test-fixtures.js"
import { alphaVantageDates, alphaVantagePath, FIXTURES_DIR } from "../support/fixtures.js"

/** test/fixtures/SOURCES.md, "SHA-256" */
const RECORDED_SHA256 = {
  AAPL: "88f8424da980b356ed9fa84cc2dc7bc6a7fd9e437b6fc4ab7c1cd3509035fbdd",
  MSFT: "36b22c6ea4b1aa272243625cbdeaf18fe12b4be9b6374d7f8f1449a893a39b6e",
  CARR: "17f4b6cc66f40d35e622e32ec9ebb6e9b1ef15ee5a45e689b68c45460fbe4ae0"
} as const

describe("test/fixtures", () => {
  it("holds the copied Alpha Vantage files with the SHA-256 SOURCES.md records", () => {
    const sources = readFileSync(resolve(FIXTURES_DIR, "SOURCES.md"), "utf8")
    for (const ticker of ALPHA_VANTAGE_COPIED) {
      const digest = createHash("sha256")
        .update(readFileSync(alphaVantagePath(ticker)))
        .digest("hex")
      expect(digest, ticker).toBe(RECORDED_SHA256[ticker])
      expect(sources).toContain(`${ticker} \`${digest}\``)
    }
  })

  it("keeps in dates.csv the date columns of the copies, among 47 files", () => {
    const rows = alphaVantageDates()
    expect(rows).toHaveLength(47)
    for (const ticker of ALPHA_VANTAGE_COPIED) {
      const file = `DA-${ticker}-T-2021-04-21.csv`
      const dates = csvDates(readFileSync(alphaVantagePath(ticker), "utf8"))
      expect(rows.find((r) => r.file === file)).toEqual({
        file,
        first: dates[0],
        last: dates.at(-1),
        rows: dates.length,
        sha256: datesDigest(dates)
      })
    }
  })
})
