import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { compileQuery, type QueryError } from "../../src/query/index.js"
import { context } from "./support.js"

const ctx = context()

const refused = (q: string): QueryError => {
  const r = compileQuery(q, ctx)
  if (Either.isRight(r)) throw new Error(`expected ${q} to be refused`)
  return r.left
}

describe("q safety", () => {
  it("refuses semicolons and comments with invalid_query", () => {
    expect(refused("price > 1; DROP TABLE states")).toMatchObject({
      code: "invalid_query",
      errors: [{ code: "forbidden", pos: 9 }]
    })
    expect(refused("price > 1 -- comment")).toMatchObject({ code: "invalid_query", errors: [{ pos: 10 }] })
    expect(refused("price > 1 /* comment */")).toMatchObject({ code: "invalid_query", errors: [{ pos: 10 }] })
    expect(refused("price > 1--2")).toMatchObject({ code: "invalid_query" })
  })

  it("refuses write, DDL and subquery keywords in any case", () => {
    for (const w of [
      "INSERT",
      "update",
      "Delete",
      "DROP",
      "alter",
      "CREATE",
      "truncate",
      "GRANT",
      "revoke",
      "SELECT",
      "with",
      "union",
      "exists",
      "from",
      "into",
      "values",
      "execute",
      "copy"
    ]) {
      expect(refused(`price > 1 AND ${w} x`), w).toMatchObject({
        code: "invalid_query",
        errors: [{ code: "forbidden", pos: 14 }]
      })
    }
    expect(refused("price IN (SELECT price FROM states)")).toMatchObject({ code: "invalid_query" })
    expect(refused("(SELECT 1) = 1")).toMatchObject({ code: "invalid_query", errors: [{ pos: 1 }] })
  })

  it("accepts the same words inside string literals (they are data)", () => {
    expect(Either.isRight(compileQuery("name = 'DROP TABLE x; -- /*'", ctx))).toBe(true)
  })

  it("refuses unknown functions with invalid_query and a suggestion", () => {
    expect(refused("pg_sleep(10) > 0")).toMatchObject({
      code: "invalid_query",
      errors: [{ code: "unknown_function", pos: 0 }]
    })
    expect(refused("ABSS(price) > 0")).toMatchObject({
      errors: [{ code: "unknown_function", suggestion: "ABS" }]
    })
  })

  it("refuses more than 4000 characters, and accepts exactly 4000", () => {
    const atLimit = `price > ${"1".padStart(3992, "0")}`
    expect(atLimit.length).toBe(4000)
    expect(Either.isRight(compileQuery(atLimit, ctx))).toBe(true)
    expect(refused(`${atLimit} `)).toMatchObject({ code: "invalid_query", errors: [{ code: "too_long", pos: 4000 }] })
    // characters, not UTF-16 units
    const emoji = `name = '${"😀".repeat(3990)}'`
    expect(emoji.length).toBeGreaterThan(4000)
    expect(Either.isRight(compileQuery(emoji, ctx))).toBe(true)
  })

  it("refuses NUL characters and unpaired surrogates", () => {
    expect(refused("name = 'a\u0000b'")).toMatchObject({ errors: [{ code: "invalid_character", pos: 9 }] })
    expect(refused("name = '\ud800'")).toMatchObject({ errors: [{ code: "invalid_character", pos: 8 }] })
  })

  it("never puts a value from q into the SQL text", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", minLength: 1 }),
        fc.double({ noNaN: true, min: 0, max: 1e12 }),
        (s, x) => {
          const literal = `'${s.replaceAll("'", "''")}'`
          const q = `name = ${literal} AND price > ${x} OR sector LIKE ${literal} OR name ILIKE ${literal} OR sector IN (${literal}, 'b')`
          const r = compileQuery(q, ctx)
          if (Either.isLeft(r)) {
            // only a LIKE pattern ending in a lone backslash, or an invalid character, may be refused
            expect(["invalid_literal", "invalid_character"]).toContain(r.left.errors[0]!.code)
            return
          }
          const sql = r.right.toSql("states")
          expect(sql.params).toContain(s)
          expect(sql.params).toContain(x)
          // the text holds only identifiers, placeholders, keywords and fixed constants
          const stripped = sql.text
            .replaceAll('COLLATE "C"', "")
            .replaceAll(/"[a-z_][a-z0-9_]*"/g, "")
            .replaceAll(/\$\d+::(float8|text|boolean)/g, "")
            .replaceAll(/'[-+0-9.e]+'::float8/g, "")
            .replaceAll("'ABCDEFGHIJKLMNOPQRSTUVWXYZ'", "")
            .replaceAll("'abcdefghijklmnopqrstuvwxyz'", "")
          expect(stripped).toMatch(/^[A-Za-z0-9_ ().,<>=!*/%+-]*$/)
        }
      )
    )
  })

  it("whitelists the table name", () => {
    const q = compileQuery("price > 1", ctx)
    if (Either.isLeft(q)) throw q.left
    expect(q.right.toSql("public.states").text).toBe('("public"."states"."price" > $1::float8)')
    expect(() => q.right.toSql('states"; DROP TABLE x; --')).toThrow()
  })
})
