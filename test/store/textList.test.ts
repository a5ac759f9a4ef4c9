import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { textList } from "../../src/store/textList.js"
import { backends } from "../support/backends.js"

/** Texts PostgreSQL can hold (no NUL), rich in what an array literal must escape and in the list's separators. */
const text = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom('"', "\\", ",", "{", "}", " ", "\u001e", "\u001f", "NULL", "é", "😀", "\n"),
      fc.string({ minLength: 1, maxLength: 1 })
    ),
    maxLength: 12
  })
  .filter((s) => !s.includes("\u0000"))

const lists = fc.array(fc.option(text, { nil: null, freq: 5 }), { maxLength: 8 })

/** The list as the database reads it: the elements in order, NULLs kept. */
const readBack = (sql: SqlClient.SqlClient, values: ReadonlyArray<string | null>) =>
  Effect.map(
    sql<{ v: string | null }>`SELECT v FROM unnest(${textList(sql, values)}) WITH ORDINALITY AS t(v, n) ORDER BY n`,
    (rows) => rows.map((r) => r.v)
  )

for (const backend of backends()) {
  describe(`textList (${backend.name})`, () => {
    it.layer(backend.layer(), { timeout: 120_000 })((it) => {
      it.effect("reads back every list as given: order, empty texts, NULLs, quotes, separators", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          // the cases the joined form turns on, then generated ones
          const fixed: Array<ReadonlyArray<string | null>> = [
            [],
            [""],
            [null],
            ["", ""],
            [null, ""],
            ["a", null, ""],
            ["\u001f", "b"],
            ["a\u001eb", "c"],
            ['{"data":{"matches":[{"ticker":"A\\"B"}]}}', "AAPL,MSFT", null]
          ]
          const generated = fc.sample(lists, { numRuns: 150, seed: 20261206 })
          for (const values of [...fixed, ...generated]) expect(yield* readBack(sql, values)).toEqual(values)
        })
      )
    })
  })
}
