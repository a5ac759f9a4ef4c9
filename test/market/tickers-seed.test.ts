import { resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { DEFAULT_OUT, parseCsv, REPO_ROOT } from "../../scripts/build-ticker-seed.js"
import { SEED_PATH } from "../../src/market/tickers/directory.js"

/*
 * The seed's byte-for-byte rebuild from the reference data is `npm run check:reference`
 * (scripts/check-reference-data.ts, run by .ci/run): its inputs include files without a licence to
 * copy into the repository, and `npm test` reads nothing outside it. The committed seed itself is
 * checked in tickers.test.ts.
 */

describe("scripts/build-ticker-seed.ts", () => {
  it("resolves its default paths from the repository root, not from an absolute /work path", () => {
    expect(REPO_ROOT).toBe(resolve(import.meta.dirname, "../.."))
    expect(DEFAULT_OUT).toBe(SEED_PATH)
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
