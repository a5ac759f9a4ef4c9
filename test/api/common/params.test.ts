/**
 * `parseDate` (src/api/common/params.ts) reads every `asof`/`from`/`to`: a date,
 * or an ISO 8601 timestamp whose every part is in range — the history
 * endpoints keep the time, so a timestamp JavaScript cannot read (an offset
 * of +99:99) answered 500 before it was refused here.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parseDate } from "../../../src/api/common/params.js"

const parse = (raw: string) => parseDate("to", raw)

describe("parseDate", () => {
  it("accepts dates and timestamps, giving the date as written", () => {
    for (const [raw, date] of [
      ["2026-01-02", "2026-01-02"],
      [" 2026-01-02 ", "2026-01-02"],
      ["2026-01-02T15:04:05Z", "2026-01-02"],
      ["2026-01-02T15:04Z", "2026-01-02"],
      ["2026-01-02T23:59:59.123456789+05:30", "2026-01-02"],
      ["2026-01-02T00:00:00-0800", "2026-01-02"],
      ["2026-01-02T15:04:05+23:59", "2026-01-02"]
    ]) {
      expect(parse(raw)).toEqual(Either.right(date))
      // what the history endpoints then read as an instant
      expect(Number.isNaN(Date.parse(raw.trim().length === 10 ? `${date}T00:00:00Z` : raw.trim()))).toBe(false)
    }
  })

  it("refuses out-of-range parts and incomplete timestamps, naming the parameter", () => {
    for (const raw of [
      "2026-01-02T15:04:05+9999",
      "2026-01-02T15:04:05+24:00",
      "2026-01-02T15:60:00Z",
      "2026-01-02T24:00:00Z",
      "2026-01-02T15:04:60Z",
      "2026-02-30",
      "2026-01-02T15:04:05",
      "1989-12-31",
      "2101-01-01",
      "yesterday"
    ]) {
      const result = parse(raw)
      expect(Either.isLeft(result), raw).toBe(true)
      if (Either.isLeft(result)) expect(result.left.message).toContain("to must be a date YYYY-MM-DD")
    }
  })
})
