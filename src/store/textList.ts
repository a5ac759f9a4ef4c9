/**
 * A list of texts as one SQL parameter: `textList(sql, values)` is a `text[]` expression for
 * `unnest(…)` or `= ANY(…)`.
 *
 * The drivers send a JavaScript array as an array literal, every element quoted and its quotes and
 * backslashes escaped, which PostgreSQL then parses back character by character. For the large
 * texts a tick commits — event bodies (JSON of up to 100 rows, ~15 KB, full of quotes) and match
 * sets — that was most of a commit: 2,000 bodies took ~1.3 s as an array, ~0.13–0.25 s as one text
 * split by `string_to_array` (docs/benchmarks.md, issue 16). The texts are joined by ASCII's record
 * separator (U+001E), and a NULL is written as its unit separator (U+001F) alone: JSON text never
 * holds either raw, nor does a ticker or a match set. A list with either character in a value, or
 * of fewer than two values (`string_to_array` reads an empty text as no values at all), goes as
 * an array.
 *
 * Numbers go as an array literal (`numberArray`): their text has nothing to escape.
 */
import type { SqlClient } from "@effect/sql"

const RS = "\u001e"
const US = "\u001f"

/** `values` as a `text[]` expression: one joined parameter where it can, an array where it cannot. */
export const textList = (sql: SqlClient.SqlClient, values: ReadonlyArray<string | null>) => {
  if (values.length < 2 || values.some((v) => v !== null && (v.includes(RS) || v.includes(US))))
    return sql`${values}::text[]`
  const joined = values.map((v) => v ?? US).join(RS)
  return sql`string_to_array(${joined}::text, ${RS}::text, ${US}::text)`
}

/** A PostgreSQL array literal of finite numbers (JavaScript's shortest round-trip form, which float8 reads exactly). */
export const numberArray = (values: ReadonlyArray<number>): string => `{${values.join(",")}}`
