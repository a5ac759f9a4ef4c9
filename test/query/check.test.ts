import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { type CompileContext, compileExpression, compileQuery, type QueryError } from "../../src/query/index.js"
import { context } from "./support.js"

const failure = (q: string, ctx: CompileContext = context()): QueryError => {
  const r = compileQuery(q, ctx)
  if (Either.isRight(r)) throw new Error(`expected ${q} to fail`)
  return r.left
}

const typeOf = (q: string) => {
  const r = compileExpression(q, context())
  if (Either.isLeft(r)) throw new Error(r.left.message)
  return { type: r.right.type, nullable: r.right.nullable }
}

describe("q names and types", () => {
  it("reports an unknown column in a scan q as invalid_query, with position and suggestion", () => {
    expect(failure("price > 1 AND relative_volum > 2")).toMatchObject({
      _tag: "QueryError",
      code: "invalid_query",
      errors: [{ code: "unknown_column", pos: 14, suggestion: "relative_volume" }]
    })
    expect(failure("rsi > 70")).toMatchObject({ errors: [{ suggestion: "rsi_14" }] })
    expect(failure("zzzz > 70").errors[0]!.suggestion).toBeUndefined()
  })

  it("reports every problem of a custom-signal expr as compile_failed with errors[]", () => {
    const expr = context({ mode: "expr" })
    expect(failure("pricee > 1 AND rsi_14 > 'x'", expr)).toMatchObject({
      code: "compile_failed",
      errors: [
        { code: "unknown_column", pos: 0, suggestion: "price" },
        { code: "type_mismatch", pos: 22 }
      ]
    })
    expect(failure("price > ", expr)).toMatchObject({
      code: "compile_failed",
      errors: [{ code: "syntax_error", pos: 8 }]
    })
    expect(failure("price; drop", expr)).toMatchObject({ code: "compile_failed", errors: [{ code: "forbidden" }] })
    expect(failure("price + 1", expr)).toMatchObject({
      code: "compile_failed",
      errors: [{ code: "not_boolean", pos: 0 }]
    })
  })

  it("reports type errors and a non-boolean root as compile_failed in a scan q", () => {
    expect(failure("price > 'cheap'")).toMatchObject({
      code: "compile_failed",
      errors: [{ code: "type_mismatch", pos: 6 }]
    })
    expect(failure("price AND golden_cross")).toMatchObject({ code: "compile_failed", errors: [{ pos: 0 }] })
    expect(failure("NOT price")).toMatchObject({ code: "compile_failed", errors: [{ pos: 4 }] })
    expect(failure("name + 1 > 2")).toMatchObject({ code: "compile_failed", errors: [{ pos: 0 }] })
    expect(failure("price LIKE 'x'")).toMatchObject({ code: "compile_failed" })
    expect(failure("name LIKE sector")).toMatchObject({ code: "compile_failed", errors: [{ pos: 10 }] })
    expect(failure("price IN (1, 'a')")).toMatchObject({ code: "compile_failed", errors: [{ pos: 13 }] })
    expect(failure("price BETWEEN 'a' AND 2")).toMatchObject({ code: "compile_failed" })
    expect(failure("price IS TRUE")).toMatchObject({ code: "compile_failed" })
    expect(failure("ABS(name) > 1")).toMatchObject({ code: "compile_failed" })
    expect(failure("ABS(1, 2) > 1")).toMatchObject({ code: "compile_failed", errors: [{ code: "wrong_arity" }] })
    expect(failure("COALESCE(price, name) > 1")).toMatchObject({ code: "compile_failed" })
    expect(failure("price")).toMatchObject({ code: "compile_failed", errors: [{ code: "not_boolean" }] })
    expect(failure("name")).toMatchObject({ code: "compile_failed", errors: [{ code: "not_boolean" }] })
    // a name problem and a type problem together: the name makes it invalid_query
    expect(failure("nope > 1 AND price > 'x'")).toMatchObject({ code: "invalid_query", errors: [{}, {}] })
  })

  it("validates cross-ticker references through the caller's lookup", () => {
    expect(failure("price > nope.price")).toMatchObject({
      code: "invalid_query",
      errors: [{ code: "unknown_ticker", pos: 8 }]
    })
    expect(failure("price > spy.pricey")).toMatchObject({
      code: "invalid_query",
      errors: [{ code: "unknown_column", pos: 8, suggestion: "price" }]
    })
    const r = compileQuery(`price > "brk.b".price AND relative_volume > Spy.relative_volume`, context())
    if (Either.isLeft(r)) throw r.left
    expect(r.right.tickers).toEqual(["BRK.B", "SPY"])
    expect(r.right.columns).toEqual(["price", "relative_volume"])
    expect(r.right.text).toBe(`price > "BRK.B".price AND relative_volume > SPY.relative_volume`)
  })

  it("types every construct, with NULL taking its context's type", () => {
    expect(typeOf("price * 2")).toEqual({ type: "numeric", nullable: true })
    expect(typeOf("-price")).toEqual({ type: "numeric", nullable: false })
    expect(typeOf("price > 1")).toEqual({ type: "boolean", nullable: false })
    expect(typeOf("pe_ratio > 1")).toEqual({ type: "boolean", nullable: true })
    expect(typeOf("pe_ratio IS NULL")).toEqual({ type: "boolean", nullable: false })
    expect(typeOf("COALESCE(pe_ratio, 0)")).toEqual({ type: "numeric", nullable: false })
    expect(typeOf("LOWER(name)")).toEqual({ type: "string", nullable: false })
    expect(typeOf("LENGTH(sector)")).toEqual({ type: "numeric", nullable: true })
    expect(typeOf("NULL")).toEqual({ type: "boolean", nullable: true })
    expect(typeOf("NULL + 1")).toEqual({ type: "numeric", nullable: true })
    expect(typeOf("COALESCE(NULL, name)")).toEqual({ type: "string", nullable: false })
    expect(typeOf("NULL = NULL")).toEqual({ type: "boolean", nullable: true })
    expect(typeOf("spy.price")).toEqual({ type: "numeric", nullable: true })
  })

  it("gives equal keys to predicates that differ in spacing, case, spelling of <> and redundant parentheses", () => {
    const key = (q: string) => {
      const r = compileQuery(q, context())
      if (Either.isLeft(r)) throw r.left
      return r.right.key
    }
    expect(key("PRICE>10 and (rsi_14 != 3)")).toBe(key("price > 10 AND rsi_14 <> 3"))
    expect(key("((price > 10))")).toBe("price > 10")
    expect(key("price > 10.0")).toBe("price > 10")
    expect(key("a.price > 1e1".replace("a.", "spy."))).toBe("SPY.price > 10")
    expect(key("price > 10")).not.toBe(key("price >= 10"))
  })
})
