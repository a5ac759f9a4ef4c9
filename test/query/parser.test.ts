import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Expr } from "../../src/query/ast.js"
import { parse, render } from "../../src/query/index.js"
import { lex, type Token } from "../../src/query/lexer.js"
import { parseTokens, shapeOf } from "../../src/query/parser.js"
import { expr } from "./generators.js"

const ok = (text: string): Expr => {
  const r = parse(text)
  if (!r.ok) throw new Error(`${text}: ${r.error.message}`)
  return r.expr
}

/** canonical text: shows how the parser grouped the input */
const shape = (text: string) => render(ok(text))

const fails = (text: string) => {
  const r = parse(text)
  if (r.ok) throw new Error(`expected a parse error for ${text}`)
  return r.error
}

describe("q grammar", () => {
  it("parses names, cross-ticker references and the quoted forms", () => {
    expect(ok("price")).toMatchObject({ _tag: "Ident", name: "price", pos: 0 })
    expect(ok("PRICE")).toMatchObject({ _tag: "Ident", name: "price" })
    expect(ok("spy.relative_volume")).toMatchObject({ _tag: "Qualified", ticker: "SPY", name: "relative_volume" })
    expect(ok(`"BRK.B".price`)).toMatchObject({ _tag: "Qualified", ticker: "BRK.B", name: "price" })
    // a ticker that is a keyword: bare before a dot, or quoted
    expect(ok("all.price")).toMatchObject({ _tag: "Qualified", ticker: "ALL", name: "price" })
    expect(ok(`"AND".price`)).toMatchObject({ _tag: "Qualified", ticker: "AND", name: "price" })
    // a name that clashes with a keyword, quoted
    expect(ok(`"select"`)).toMatchObject({ _tag: "Ident", name: "select" })
  })

  it("parses numbers, strings, booleans and NULL", () => {
    expect(ok("42")).toMatchObject({ _tag: "Number", value: 42 })
    expect(ok("4.25")).toMatchObject({ _tag: "Number", value: 4.25 })
    expect(ok(".5")).toMatchObject({ _tag: "Number", value: 0.5 })
    expect(ok("5.")).toMatchObject({ _tag: "Number", value: 5 })
    expect(ok("1e3")).toMatchObject({ _tag: "Number", value: 1000 })
    expect(ok("2.5E-3")).toMatchObject({ _tag: "Number", value: 0.0025 })
    expect(ok("1e+21")).toMatchObject({ _tag: "Number", value: 1e21 })
    expect(ok("'it''s'")).toMatchObject({ _tag: "String", value: "it's" })
    expect(ok("''")).toMatchObject({ _tag: "String", value: "" })
    expect(ok("'a;b -- c /* d */'")).toMatchObject({ _tag: "String", value: "a;b -- c /* d */" })
    expect(ok("TRUE")).toMatchObject({ _tag: "Bool", value: true })
    expect(ok("false")).toMatchObject({ _tag: "Bool", value: false })
    expect(ok("Null")).toMatchObject({ _tag: "Null" })
  })

  it("follows SQL precedence", () => {
    expect(shape("a OR b AND c")).toBe("a OR b AND c")
    expect(ok("a OR b AND c")).toMatchObject({ _tag: "Or", right: { _tag: "And" } })
    expect(ok("NOT a AND b")).toMatchObject({ _tag: "And", left: { _tag: "Not" } })
    expect(ok("NOT a = b")).toMatchObject({ _tag: "Not", arg: { _tag: "Compare" } })
    expect(ok("a = b IS NULL")).toMatchObject({ _tag: "IsNull", arg: { _tag: "Compare" } })
    expect(ok("1 + 2 * 3 > 6")).toMatchObject({
      _tag: "Compare",
      left: { _tag: "Arith", op: "+", right: { _tag: "Arith", op: "*" } }
    })
    expect(ok("1 - 2 - 3")).toMatchObject({ _tag: "Arith", op: "-", left: { _tag: "Arith", op: "-" } })
    expect(ok("-2 * 3")).toMatchObject({ _tag: "Arith", op: "*", left: { _tag: "Neg" } })
    expect(ok("a % b / c")).toMatchObject({ _tag: "Arith", op: "/", left: { _tag: "Arith", op: "%" } })
    expect(ok("(a OR b) AND c")).toMatchObject({ _tag: "And", left: { _tag: "Or" } })
    expect(ok("x BETWEEN 1 AND 2 AND y")).toMatchObject({ _tag: "And", left: { _tag: "Between" } })
    expect(ok("x + 1 BETWEEN a - 1 AND b * 2")).toMatchObject({ _tag: "Between", arg: { _tag: "Arith" } })
    expect(ok("x BETWEEN 1 AND 2 = TRUE")).toMatchObject({ _tag: "Compare", left: { _tag: "Between" } })
    expect(ok("NOT NOT a")).toMatchObject({ _tag: "Not", arg: { _tag: "Not" } })
    expect(ok("- - 1")).toMatchObject({ _tag: "Neg", arg: { _tag: "Neg" } })
  })

  it("parses every predicate form", () => {
    expect(ok("a BETWEEN 1 AND 2")).toMatchObject({ _tag: "Between", negated: false })
    expect(ok("a NOT BETWEEN 1 AND 2")).toMatchObject({ _tag: "Between", negated: true })
    expect(ok("a IN (1, 2, 3)")).toMatchObject({ _tag: "In", negated: false, items: [{}, {}, {}] })
    expect(ok("a NOT IN ('x')")).toMatchObject({ _tag: "In", negated: true })
    expect(ok("a LIKE 'x%'")).toMatchObject({ _tag: "Like", negated: false, caseInsensitive: false })
    expect(ok("a NOT ILIKE 'x%'")).toMatchObject({ _tag: "Like", negated: true, caseInsensitive: true })
    expect(ok("a IS NULL")).toMatchObject({ _tag: "IsNull", negated: false })
    expect(ok("a IS NOT NULL")).toMatchObject({ _tag: "IsNull", negated: true })
    expect(ok("a IS TRUE")).toMatchObject({ _tag: "IsBool", negated: false, value: true })
    expect(ok("a IS NOT FALSE")).toMatchObject({ _tag: "IsBool", negated: true, value: false })
    for (const [op, norm] of [
      ["=", "="],
      ["!=", "<>"],
      ["<>", "<>"],
      ["<", "<"],
      ["<=", "<="],
      [">", ">"],
      [">=", ">="]
    ]) {
      expect(ok(`a ${op} b`)).toMatchObject({ _tag: "Compare", op: norm })
    }
  })

  it("parses function calls, case-insensitively", () => {
    expect(ok("abs(x)")).toMatchObject({ _tag: "Call", name: "ABS", args: [{ _tag: "Ident" }] })
    expect(ok("Least(a, b, 3)")).toMatchObject({ _tag: "Call", name: "LEAST", args: [{}, {}, {}] })
  })

  it("records positions", () => {
    const e = ok("price > 10 AND  rsi_14 < 30")
    expect(e).toMatchObject({ _tag: "And", pos: 11, left: { pos: 6 }, right: { pos: 23, left: { pos: 16 } } })
  })

  it("reports syntax errors at the offending token", () => {
    expect(fails("price > 10 AND")).toMatchObject({ code: "syntax_error", pos: 14 })
    expect(fails("price >")).toMatchObject({ code: "syntax_error", pos: 7 })
    expect(fails("a < b < c")).toMatchObject({ code: "syntax_error", pos: 6 })
    expect(fails("(price > 1")).toMatchObject({ code: "syntax_error", pos: 10 })
    expect(fails("price > 1)")).toMatchObject({ code: "syntax_error", pos: 9 })
    expect(fails("x NOT 5")).toMatchObject({ code: "syntax_error", pos: 6 })
    expect(fails("a IN ()")).toMatchObject({ code: "syntax_error", pos: 6 })
    expect(fails("'open")).toMatchObject({ code: "syntax_error", pos: 0 })
    expect(fails("price > 1e")).toMatchObject({ code: "syntax_error", pos: 8 })
    expect(fails("price::text")).toMatchObject({ code: "syntax_error", pos: 5 })
    expect(fails("")).toMatchObject({ code: "syntax_error", pos: 0 })
    expect(fails("CASE WHEN a THEN b END")).toMatchObject({ code: "syntax_error", pos: 0 })
    expect(fails("a @ b")).toMatchObject({ code: "syntax_error", pos: 2 })
  })

  it("refuses literals out of range and nesting too deep", () => {
    expect(fails("price > 1e300")).toMatchObject({ code: "invalid_literal", pos: 8 })
    expect(fails("price > 1e999")).toMatchObject({ code: "invalid_literal" })
    expect(ok("price > 9.99e299")).toMatchObject({ _tag: "Compare" })
    expect(fails(`${"(".repeat(65)}a${")".repeat(65)}`)).toMatchObject({ code: "nesting_too_deep", pos: 64 })
    expect(ok(`${"(".repeat(64)}a${")".repeat(64)}`)).toMatchObject({ _tag: "Ident" })
    expect(fails(`${"- ".repeat(200)}a`)).toMatchObject({ code: "nesting_too_deep" })
    // a long AND / OR chain is one level
    expect(ok(Array.from({ length: 400 }, () => "a").join(" OR "))).toMatchObject({ _tag: "Or" })
  })
})

describe("q grammar: trees of shapes parsed before", () => {
  /** a tree parsed afresh from the tokens, no shape kept */
  const fresh = (text: string) => {
    const lexed = lex(text)
    if (!lexed.ok) throw new Error(lexed.error.message)
    const parsed = parseTokens(lexed.tokens)
    if (!parsed.ok) throw new Error(parsed.error.message)
    return parsed.expr
  }

  /** `text` with its numbers replaced by `numbers` (cycled), positions moving with their lengths */
  const renumbered = (text: string, numbers: ReadonlyArray<string>) => {
    const lexed = lex(text)
    if (!lexed.ok) throw new Error(lexed.error.message)
    const nums = lexed.tokens.filter((t) => t.kind === "num")
    let out = text
    nums.reverse().forEach((t, i) => {
      out = out.slice(0, t.pos) + numbers[i % numbers.length] + out.slice(t.pos + t.text.length)
    })
    return out
  }

  it("gives a text whose shape was parsed before the tree it would parse to: numbers and positions its own", () => {
    const first = "price > 5 AND rsi_14 < 30 AND sector IN ('Tech 2', 'Energy') AND ABS(gap_pct) BETWEEN 1 AND 2"
    for (let i = 0; i < 3; i++) expect(ok(first)).toEqual(fresh(first))
    const second =
      "price >   12.75 AND rsi_14 < 3e1 AND sector IN ('Tech 2', 'Energy') AND ABS(gap_pct) BETWEEN 0.5 AND 20"
    expect(shapeOf((lex(second) as { tokens: ReadonlyArray<Token> }).tokens)).toBe(
      shapeOf((lex(first) as { tokens: ReadonlyArray<Token> }).tokens)
    )
    expect(ok(second)).toEqual(fresh(second))
    expect(ok(second)).toMatchObject({ right: { low: { value: 0.5, pos: 93 }, high: { value: 20, pos: 101 } } })
    // a string or a name is part of the shape: another one parses as itself
    expect(ok(first.replace("Tech 2", "Tech 3"))).toEqual(fresh(first.replace("Tech 2", "Tech 3")))
    // an error is never kept: the same shape fails at its own place
    for (let i = 0; i < 3; i++) expect(fails("price > 5 AND AND 6")).toMatchObject({ code: "syntax_error", pos: 14 })
    expect(fails("price > 500 AND AND 6")).toMatchObject({ code: "syntax_error", pos: 16 })
  })

  it("parses every well-typed expression, renumbered, to the tree a fresh parse gives (property)", () => {
    const numeral = fc.oneof(
      fc.integer({ min: 0, max: 10 ** 9 }).map(String),
      fc.double({ min: 0, max: 1e6, noNaN: true }).map((d) => d.toFixed(3)),
      fc.constantFrom("1e3", "2.5E-2", "0", "007")
    )
    fc.assert(
      fc.property(expr("boolean", 3), fc.array(numeral, { minLength: 1, maxLength: 4 }), (tree, numbers) => {
        const text = render(tree)
        for (let i = 0; i < 3; i++) expect(ok(text)).toEqual(fresh(text))
        const other = renumbered(text, numbers)
        expect(ok(other)).toEqual(fresh(other))
      }),
      { numRuns: 300 }
    )
  })
})
