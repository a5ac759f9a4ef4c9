/**
 * Fuzzing: random strings and mutations of valid queries only ever produce
 * typed errors (never an exception), with positions inside the text; what
 * compiles can be evaluated, compiled to SQL and rendered, and its key is a
 * fixed point. Generated trees survive render → parse unchanged.
 */
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Expr } from "../../src/query/ast.js"
import { codePointOffset } from "../../src/query/errors.js"
import { compileMatcher, compileQuery, parse, type QueryError, render } from "../../src/query/index.js"
import { expr } from "./generators.js"
import { context, snapshotOf } from "./support.js"

const ctx = context({
  signals: { hot: "relative_volume > 2", warm: "hot OR price > 1", loop: "loop_b", loop_b: "loop" }
})
const exprCtx = context({ mode: "expr", self: "hot", signals: { hot: "relative_volume > 2", warm: "hot" } })
const snap = snapshotOf([
  { ticker: "SPY", price: 1, relative_volume: 2, name: "S", sector: null, golden_cross: true },
  { ticker: "T0", price: 0, relative_volume: 0, name: "t", sector: "x", golden_cross: false }
])

const CODES = new Set(["invalid_query", "compile_failed", "recursion_depth_exceeded"])

const checkError = (text: string, e: QueryError) => {
  expect(e._tag).toBe("QueryError")
  expect(CODES.has(e.code)).toBe(true)
  expect(e.errors.length).toBeGreaterThan(0)
  const length = codePointOffset(text, text.length)
  for (const entry of e.errors) {
    expect(entry.pos).toBeGreaterThanOrEqual(0)
    expect(entry.pos).toBeLessThanOrEqual(length)
    expect(entry.message.length).toBeGreaterThan(0)
  }
}

/** compiles in both modes; whatever compiles must run through every backend */
const exercise = (text: string) => {
  for (const c of [ctx, exprCtx]) {
    const r = compileQuery(text, c)
    // the matches-only compilation fails alike, and matches alike
    const matcher = compileMatcher(text, c)
    if (Either.isLeft(r)) {
      checkError(text, r.left)
      expect(matcher).toEqual(r)
      continue
    }
    const q = r.right
    if (Either.isLeft(matcher)) throw new Error(`compiles, but not to its matches only: ${text}`)
    expect(matcher.right.matchBits(snap)).toEqual(q.matchBits(snap))
    q.evaluate(snap)
    q.truth(snap)
    q.toSql({ table: "states", firstParam: 3 })
    const again = compileQuery(q.text, c)
    if (Either.isLeft(again)) throw new Error(`canonical text does not compile: ${q.text}`)
    // the key is a fixed point; the text too once inlined signals' parentheses are spelled out
    expect(again.right.key).toBe(q.key)
    expect(again.right.text).toBe(q.signals.length === 0 ? q.text : again.right.key)
  }
}

const SQLISH = [..."abcdeiklmnoprstuvwxyzABCNORT_0123456789 .,'\"()=<>!+-*/%;:\\\n\t$@#|é😀"]
const TOKENS = [
  "price",
  "rsi_14",
  "name",
  "golden_cross",
  "spy.price",
  '"BRK.B".price',
  "hot",
  "warm",
  "loop",
  " AND ",
  " OR ",
  "NOT ",
  " IS NULL",
  " IS NOT TRUE",
  " BETWEEN 1 AND 2",
  " IN (1, 2)",
  " LIKE 'a%'",
  " ILIKE 'x'",
  "(",
  ")",
  ",",
  " = ",
  " <> ",
  " < ",
  " >= ",
  " + ",
  " - ",
  " * ",
  " / ",
  " % ",
  "ABS(",
  "LEAST(",
  "COALESCE(",
  "1e3",
  ".5",
  "'it''s'",
  "NULL",
  "TRUE",
  ";",
  "--",
  "/*",
  "SELECT",
  "DROP",
  "::",
  "1e999"
]

const mutation = (valid: string) =>
  fc
    .array(
      fc.oneof(
        fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 8 }) }),
        fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), what: fc.constantFrom(...TOKENS, ...SQLISH) }),
        fc.record({ kind: fc.constant("swap" as const), at: fc.nat(), other: fc.nat() })
      ),
      { minLength: 1, maxLength: 4 }
    )
    .map((ops) => {
      let s = valid
      for (const op of ops) {
        const at = s.length === 0 ? 0 : op.at % (s.length + 1)
        if (op.kind === "delete") s = s.slice(0, at) + s.slice(at + op.length)
        else if (op.kind === "insert") s = s.slice(0, at) + op.what + s.slice(at)
        else if (s.length > 1) {
          const b = op.other % s.length
          const a = Math.min(at, s.length - 1)
          const chars = [...s]
          if (a < chars.length && b < chars.length) {
            const t = chars[a]!
            chars[a] = chars[b]!
            chars[b] = t
          }
          s = chars.join("")
        }
      }
      return s
    })

const stripPos = (e: Expr): unknown => JSON.parse(JSON.stringify(e, (k, v) => (k === "pos" ? undefined : v)))

describe("q fuzzing", () => {
  it("turns random strings into typed errors, never exceptions", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: fc.constantFrom(...SQLISH), maxLength: 80 }),
          fc.string({ unit: "binary", maxLength: 60 }),
          fc.array(fc.constantFrom(...TOKENS), { maxLength: 12 }).map((t) => t.join(""))
        ),
        (text) => exercise(text)
      ),
      { numRuns: 3000 }
    )
  })

  it("turns mutations of valid queries into typed errors or valid queries", () => {
    const valid = fc
      .integer({ min: 1, max: 4 })
      .chain((d) => expr("boolean", d))
      .map((e) => render(e))
    fc.assert(
      fc.property(valid.chain(mutation), (text) => exercise(text)),
      { numRuns: 3000 }
    )
  })

  it("survives very long and deeply nested inputs", () => {
    for (const text of [
      "price > 1 AND ".repeat(285) + "TRUE",
      "(".repeat(64) + "price > 1" + ")".repeat(64),
      "(".repeat(3000),
      ")".repeat(3000),
      "NOT ".repeat(999),
      "- ".repeat(1990) + "1 > 0",
      "price + ".repeat(499) + "1 > 0",
      `name LIKE '${"%a".repeat(1990)}'`,
      "'".repeat(4000),
      `a${" OR a".repeat(799)}`,
      `price IN (${Array.from({ length: 790 }, (_, i) => i).join(",")})`
    ]) {
      exercise(text.slice(0, 4000))
    }
  })

  it("renders generated trees to text that parses back to the same tree", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 0, max: 5 })
          .chain((d) => fc.constantFrom("boolean", "numeric", "string" as const).chain((t) => expr(t, d))),
        (e) => {
          const text = render(e)
          const back = parse(text)
          if (!back.ok) throw new Error(`${text}: ${back.error.message}`)
          expect(stripPos(back.expr)).toEqual(stripPos(e))
          expect(render(back.expr)).toBe(text)
        }
      ),
      { numRuns: 2000 }
    )
  })
})
