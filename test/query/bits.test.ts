/**
 * The bitset answer of a predicate (`CompiledQuery.matchBits`, src/query/evaluate/bits.ts): for
 * every predicate, over snapshots large enough to span many of the sorted index's stored prefixes,
 * the rows it sets and its count are exactly the rows `evaluate` selects — conjunctions,
 * disjunctions and negations of comparisons with constants (answered by a pass over the column the
 * first time a snapshot's column is compared, from its sorted index after that),
 * mixed with operands the index cannot answer (answered row by row), and any generated predicate.
 */
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type CompiledQuery, compileQuery, render, rowsOfBits } from "../../src/query/index.js"
import { expr, rows } from "./generators.js"
import { BOOLEAN, context, NUMERIC, type Row, snapshotOf } from "./support.js"

const OPS = ["=", "<>", "<", "<=", ">", ">="] as const
/** few distinct values, so that ties, equalities and block boundaries all occur */
const VALUES = [-3, -1, -0, 0, 0.5, 1, 2, 2.5, 7, 100, 1e15]

const cell = (nullable: boolean) =>
  fc.oneof(
    { weight: nullable ? 1 : 0, arbitrary: fc.constant(null) },
    { weight: 4, arbitrary: fc.constantFrom(...VALUES) },
    { weight: 1, arbitrary: fc.double({ noNaN: true, min: -1e6, max: 1e6 }) },
    { weight: 1, arbitrary: fc.constantFrom(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY) }
  )

const bigRows = fc.integer({ min: 1, max: 700 }).chain((n) =>
  fc.array(
    fc.record({
      price: cell(false),
      market_cap: cell(true),
      rsi_14: cell(true),
      eps: cell(true),
      golden_cross: fc.boolean(),
      earnings_this_week: fc.option(fc.boolean(), { nil: null })
    }),
    { minLength: n, maxLength: n }
  )
)

const literal = fc.oneof(
  fc.constantFrom(...VALUES).map((v) => (Object.is(v, -0) ? "-0" : String(v))),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((v) => String(v)),
  fc.constant("NULL")
)

const indexed: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(fc.constantFrom("price", "market_cap", "rsi_14", "eps"), fc.constantFrom(...OPS), literal)
    .map(([c, op, v]) => `${c} ${op} ${v}`),
  fc.tuple(literal, fc.constantFrom(...OPS), fc.constantFrom("price", "rsi_14")).map(([v, op, c]) => `${v} ${op} ${c}`),
  fc.constantFrom("golden_cross", "earnings_this_week", "earnings_this_week = FALSE", "golden_cross = TRUE"),
  fc.constantFrom("ticker = 'T3'", "ticker = 'T0'", "ticker = 'NOPE'", "1 < 2", "1 > 2", "NULL = 1")
)

/** operands the sorted index does not answer */
const other = fc.constantFrom(
  "price + 1 > 2",
  "rsi_14 IS NULL",
  "earnings_this_week IS NOT TRUE",
  "ticker <> 'T1'",
  "price BETWEEN 0 AND 7",
  "market_cap IN (0, 2, 7)"
)

const predicate: fc.Arbitrary<string> = fc.letrec<{ p: string }>((tie) => ({
  p: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 4, arbitrary: indexed },
    { weight: 1, arbitrary: other },
    { weight: 2, arbitrary: fc.tuple(tie("p"), tie("p")).map(([a, b]) => `(${a}) AND (${b})`) },
    { weight: 2, arbitrary: fc.tuple(tie("p"), tie("p")).map(([a, b]) => `(${a}) OR (${b})`) },
    { weight: 1, arbitrary: tie("p").map((a) => `NOT (${a})`) }
  )
})).p

const compiled = (q: string, ctx: ReturnType<typeof context>): CompiledQuery => {
  const c = compileQuery(q, ctx)
  if (Either.isLeft(c)) throw new Error(`${q}: ${c.left.message}`)
  return c.right
}

const agree = (q: CompiledQuery, rs: ReadonlyArray<Row>, subset: ReadonlyArray<boolean>) => {
  const snap = snapshotOf(rs.map((r, i) => ({ name: `N${i}`, sector: null, volume_today: 1, ...r, ticker: `T${i}` })))
  const expected = [...q.evaluate(snap)]
  // twice: a column's first comparison is a pass over its rows, the next ones read its sorted index
  for (const pass of ["first", "again"]) {
    const { bits, count } = q.matchBits(snap)
    const got = new Int32Array(count)
    expect(rowsOfBits(bits, got)).toBe(count)
    expect([...got], `${q.text} (${pass})`).toEqual(expected)
  }
  const scope = Int32Array.from(Array.from({ length: snap.size }, (_, r) => r).filter((r) => subset[r % subset.length]))
  const scoped = q.matchBits(snap, scope)
  const within = new Int32Array(scoped.count)
  rowsOfBits(scoped.bits, within)
  expect([...within], `${q.text} within a scope`).toEqual([...q.evaluate(snap, scope)])
}

describe("a predicate's rows as a bitset", () => {
  it("are the rows evaluate selects, for comparisons, flags, tickers and their combinations", () => {
    const ctx = context({ tickers: Array.from({ length: 700 }, (_, i) => `T${i}`) })
    fc.assert(
      fc.property(predicate, bigRows, fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }), (q, rs, subset) =>
        agree(compiled(q, ctx), rs, subset)
      ),
      { numRuns: 300 }
    )
  })

  it("are the rows evaluate selects, for any generated predicate", () => {
    const ctx = context({ tickers: ["SPY", "T0", "T3"] })
    fc.assert(
      fc.property(expr("boolean", 3), rows(40), (e, rs) => {
        const q = compileQuery(render(e), ctx)
        if (Either.isLeft(q)) return
        agree(q.right, rs, [true, false, true])
      }),
      { numRuns: 300 }
    )
  })

  it("covers every comparison of every column kind the index answers", () => {
    // a fixed market: 1,000 rows, one value in ten NULL, many ties
    const rs: Array<Row> = Array.from({ length: 1000 }, (_, i) => ({
      price: (i * 7919) % 97,
      market_cap: i % 10 === 0 ? null : ((i * 104729) % 1013) / 10,
      rsi_14: i % 3 === 0 ? null : i % 50,
      eps: -i,
      golden_cross: i % 4 === 0,
      earnings_this_week: i % 5 === 0 ? null : i % 2 === 0
    }))
    const ctx = context({ tickers: rs.map((_, i) => `T${i}`) })
    for (const c of NUMERIC.filter((n) => n in rs[0]!)) {
      for (const op of OPS) {
        for (const v of ["-1", "0", "12", "48.5", "101.3", "1e9"]) agree(compiled(`${c} ${op} ${v}`, ctx), rs, [true])
      }
    }
    for (const c of BOOLEAN.filter((n) => n in rs[0]!)) {
      for (const q of [c, `NOT ${c}`, `${c} = FALSE`]) agree(compiled(q, ctx), rs, [true, false])
    }
  })
})
