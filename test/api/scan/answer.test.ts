/**
 * The scan's answer as text (src/api/scan/answer.ts): rows written directly are the very text
 * `JSON.stringify` writes of `renderRow`'s objects, and a whole answer is the text of a
 * `ScanResponse` in the schema's key order (what its encoding would have written).
 */
import { randomBytes } from "node:crypto"
import { Either, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { renderRow, renderRowsJson } from "../../../src/api/common/rows.js"
import { makeCursorCodec } from "../../../src/api/cursor.js"
import { ScanResponse } from "../../../src/api/scan/Api.js"
import { scanAnswer, scanParameters } from "../../../src/api/scan/answer.js"
import { compileQuery } from "../../../src/query/index.js"
import { context, type Row, snapshotOf, TEST_COLUMNS } from "../../query/support.js"

const number = fc.oneof(
  fc.double(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0, 1e21, 5e-324),
  fc.integer()
)
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.constantFrom('a"b\\c', "\u0000\u001f\u2028", "é😀")
)

const row = (i: number) =>
  fc
    .record({
      name: fc.option(text, { nil: null }),
      sector: fc.option(text, { nil: null }),
      price: number,
      market_cap: fc.option(number, { nil: null }),
      rsi_14: fc.option(number, { nil: null }),
      golden_cross: fc.boolean(),
      earnings_this_week: fc.option(fc.boolean(), { nil: null })
    })
    .map((r): Row => ({ ...r, ticker: `T${i}`, volume_today: 1, relative_volume: 1, day_change_pct: i, eps: null }))

const snapshots = fc
  .integer({ min: 1, max: 30 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => row(i))))
  .map((rows) => snapshotOf(rows))

const columnNames = [...TEST_COLUMNS.map((c) => c.name), "no_such_column"]

describe("scan answer text", () => {
  it("writes rows as JSON.stringify writes renderRow's objects", () => {
    fc.assert(
      fc.property(
        snapshots,
        fc.array(fc.constantFrom(...columnNames), { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        (snapshot, columns, picks) => {
          const rows = picks.map((p) => p % snapshot.size)
          const expected = JSON.stringify(rows.map((r) => renderRow(snapshot, r, columns)))
          expect(renderRowsJson(snapshot, rows, columns)).toBe(expected)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("keeps rows' texts per set of columns: many sets over one snapshot, written again and again, stay exact", () => {
    fc.assert(
      fc.property(
        snapshots,
        fc.array(fc.array(fc.constantFrom(...columnNames), { maxLength: 12 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(fc.nat(), fc.array(fc.nat(), { maxLength: 20 })), { maxLength: 30 }),
        (snapshot, sets, writes) => {
          for (const [set, picks] of writes) {
            const columns = sets[set % sets.length]!
            const rows = picks.map((p) => p % snapshot.size)
            const expected = JSON.stringify(rows.map((r) => renderRow(snapshot, r, columns)))
            expect(renderRowsJson(snapshot, rows, columns)).toBe(expected)
          }
        }
      ),
      { numRuns: 200 }
    )
  })

  it("is a ScanResponse's text in the schema's key order, on every page of a walk", () => {
    const codec = makeCursorCodec(randomBytes(32))
    const decode = Schema.decodeUnknownSync(ScanResponse)
    const encode = Schema.encodeSync(ScanResponse)
    fc.assert(
      fc.property(
        snapshots,
        fc.record({
          q: fc.constantFrom("price > 0", "rsi_14 < 50 OR golden_cross", "market_cap > 1000 AND price < 1e6"),
          order: fc.constantFrom("price", "ticker", "day_change_pct", "rsi_14"),
          dir: fc.constantFrom("asc", "desc"),
          fields: fc.constantFrom(undefined, "rsi_14,sector", "*"),
          limit: fc.integer({ min: 1, max: 7 })
        }),
        (snapshot, input) => {
          const compiled = compileQuery(input.q, context())
          if (Either.isLeft(compiled)) throw new Error(compiled.left.message)
          let cursor: string | undefined
          for (let page = 0; page < 10; page++) {
            const p = Either.getOrThrow(scanParameters({ ...input, cursor }, undefined, false))
            const source = {
              accountId: "acc_1",
              compiled: compiled.right,
              snapshot,
              rows: undefined,
              scope: undefined,
              codec
            }
            const answer = Either.getOrThrow(scanAnswer(p, source))
            expect(JSON.stringify(encode(decode(JSON.parse(answer))))).toBe(answer)
            const next = JSON.parse(answer).next_cursor
            if (next === null) break
            cursor = next
          }
        }
      ),
      { numRuns: 100 }
    )
  })
})
