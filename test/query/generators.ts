/**
 * fast-check generators for the differential and property tests: well-typed
 * `q` syntax trees of every operator and function, nested to a chosen depth,
 * and rows with plenty of NULLs, zeros and awkward values.
 */
import fc from "fast-check"
import type { ArithOp, CompareOp, Expr } from "../../src/query/ast.js"
import { BOOLEAN, type Row } from "./support.js"

export type Ty = "numeric" | "boolean" | "string"

const P = 0 // positions are irrelevant for generated trees

/** Numeric columns whose values the row generator controls. */
export const NUMERIC_COLS = ["price", "volume_today", "day_change_pct", "market_cap", "pe_ratio", "rsi_14", "eps"]
export const NULLABLE_NUMERIC = ["market_cap", "pe_ratio", "rsi_14", "eps"]
export const STRING_COLS = ["name", "sector", "ticker"]
export const BOOLEAN_COLS = BOOLEAN

/** Tickers of generated rows are T0…T{n-1}; SPY is present in some datasets, QQQ never. */
export const XREF_TICKERS = ["SPY", "QQQ", "T0", "T3"]

const ARITH: ReadonlyArray<ArithOp> = ["+", "-", "*", "/", "%"]
const CMP: ReadonlyArray<CompareOp> = ["=", "<>", "<", "<=", ">", ">="]

const NUMBERS = [
  0, 1, -1, 2, 3, 0.5, 2.5, -2.5, 3.5, 0.1, 7, 10, 100, 1e-7, 1e15, 1e150, 1e-150, 1e200, 1e-200, 1e299, 5e-324, 0.3
]
const STRINGS = ["", "a", "A", "abc", "Abc", "ABC", "é", "É", "ß", "Technology", "tech%", "x_y", "a\\b", "€", "😀", "z"]

const numberLit: fc.Arbitrary<Expr> = fc
  .oneof(
    { weight: 4, arbitrary: fc.constantFrom(...NUMBERS) },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e12 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 50 }) }
  )
  .map((value) => ({ _tag: "Number", value: Math.abs(value), pos: P }))

const stringLit: fc.Arbitrary<Expr> = fc.constantFrom(...STRINGS).map((value) => ({ _tag: "String", value, pos: P }))

const nullLit: fc.Arbitrary<Expr> = fc.constant({ _tag: "Null", pos: P })

const col = (names: ReadonlyArray<string>): fc.Arbitrary<Expr> =>
  fc.constantFrom(...names).map((name) => ({ _tag: "Ident", name, pos: P }))

const xref = (names: ReadonlyArray<string>): fc.Arbitrary<Expr> =>
  fc
    .tuple(fc.constantFrom(...XREF_TICKERS), fc.constantFrom(...names))
    .map(([ticker, name]) => ({ _tag: "Qualified", ticker, name, pos: P }))

/** LIKE patterns: literals, `%`, `_`, escapes (never a trailing lone backslash). */
export const likePattern: fc.Arbitrary<string> = fc
  .array(fc.constantFrom("%", "_", "a", "A", "b", "é", "É", "\\%", "\\_", "\\\\", "\\a", "ch", "T", "😀", "%%"), {
    maxLength: 6
  })
  .map((parts) => parts.join(""))

const leaf = (type: Ty): fc.Arbitrary<Expr> => {
  switch (type) {
    case "numeric":
      return fc.oneof(
        { weight: 5, arbitrary: col(NUMERIC_COLS) },
        { weight: 4, arbitrary: numberLit },
        { weight: 1, arbitrary: nullLit },
        { weight: 1, arbitrary: xref(NUMERIC_COLS) }
      )
    case "string":
      return fc.oneof(
        { weight: 5, arbitrary: col(STRING_COLS) },
        { weight: 3, arbitrary: stringLit },
        { weight: 1, arbitrary: nullLit },
        { weight: 1, arbitrary: xref(["name", "sector"]) }
      )
    case "boolean":
      return fc.oneof(
        { weight: 5, arbitrary: col(BOOLEAN_COLS) },
        {
          weight: 2,
          arbitrary: fc.boolean().map((value): Expr => ({ _tag: "Bool", value, pos: P }))
        },
        { weight: 1, arbitrary: nullLit },
        { weight: 1, arbitrary: xref(BOOLEAN_COLS) }
      )
  }
}

const memo = new Map<string, fc.Arbitrary<Expr>>()

/** Well-typed trees of type `type`, at most `depth` levels below the root. */
export const expr = (type: Ty, depth: number): fc.Arbitrary<Expr> => {
  const key = `${type}/${depth}`
  const cached = memo.get(key)
  if (cached !== undefined) return cached
  const made = depth <= 0 ? leaf(type) : node(type, depth)
  memo.set(key, made)
  return made
}

const anyType = fc.constantFrom<Ty>("numeric", "string", "boolean")

const variadic = (type: Ty, depth: number): fc.Arbitrary<Expr> =>
  fc
    .tuple(
      fc.constantFrom("COALESCE", "LEAST", "GREATEST"),
      fc.array(expr(type, depth - 1), { minLength: 1, maxLength: 3 })
    )
    .map(([name, args]): Expr => ({ _tag: "Call", name, args, pos: P }))

const nullif = (type: Ty, depth: number): fc.Arbitrary<Expr> =>
  fc
    .tuple(expr(type, depth - 1), expr(type, depth - 1))
    .map(([a, b]): Expr => ({ _tag: "Call", name: "NULLIF", args: [a, b], pos: P }))

/** the partition of a cross-sectional call: none or `sector` (the test table's static text column) */
const partition: fc.Arbitrary<ReadonlyArray<Expr>> = fc.oneof(
  fc.constant([]),
  fc.constant([{ _tag: "Ident", name: "sector", pos: P } satisfies Expr])
)

/**
 * PCT_RANK / RANK of any numeric expression (ranks are exact in both back ends), ZSCORE of a column
 * (a mean and deviation are exact only to rounding: an argument that cancels — `1e15 + x` — would
 * differ between the evaluator's doubles and PostgreSQL's numeric). The argument is at most
 * `RANK_ARG_DEPTH` deep, so ranks nest three deep at most: the differential test's SQL ranks each
 * row in a correlated subquery, and five nested ranks took PGlite three minutes.
 */
const RANK_ARG_DEPTH = 2

const rankCall = (depth: number): fc.Arbitrary<Expr> =>
  fc.oneof(
    fc
      .tuple(fc.constantFrom("PCT_RANK", "RANK"), expr("numeric", Math.min(depth - 1, RANK_ARG_DEPTH)), partition)
      .map(([name, a, by]): Expr => ({ _tag: "Call", name, args: [a, ...by], pos: P })),
    fc
      .tuple(fc.constant("ZSCORE"), col(NUMERIC_COLS), partition)
      .map(([name, a, by]): Expr => ({ _tag: "Call", name, args: [a, ...by], pos: P }))
  )

const node = (type: Ty, depth: number): fc.Arbitrary<Expr> => {
  const sub = (t: Ty) => expr(t, depth - 1)
  switch (type) {
    case "numeric":
      return fc.oneof(
        { weight: 2, arbitrary: leaf("numeric") },
        {
          weight: 10,
          arbitrary: fc
            .tuple(fc.constantFrom(...ARITH), sub("numeric"), sub("numeric"))
            .map(([op, left, right]): Expr => ({ _tag: "Arith", op, left, right, pos: P }))
        },
        { weight: 2, arbitrary: sub("numeric").map((arg): Expr => ({ _tag: "Neg", arg, pos: P })) },
        {
          weight: 3,
          arbitrary: fc
            .tuple(fc.constantFrom("ABS", "SIGN", "ROUND", "TRUNC", "FLOOR", "CEIL", "CEILING"), sub("numeric"))
            .map(([name, a]): Expr => ({ _tag: "Call", name, args: [a], pos: P }))
        },
        {
          weight: 1,
          arbitrary: sub("string").map((a): Expr => ({ _tag: "Call", name: "LENGTH", args: [a], pos: P }))
        },
        { weight: 2, arbitrary: variadic("numeric", depth) },
        { weight: 1, arbitrary: nullif("numeric", depth) },
        { weight: 2, arbitrary: rankCall(depth) }
      )
    case "string":
      return fc.oneof(
        { weight: 3, arbitrary: leaf("string") },
        {
          weight: 2,
          arbitrary: fc
            .tuple(fc.constantFrom("LOWER", "UPPER"), sub("string"))
            .map(([name, a]): Expr => ({ _tag: "Call", name, args: [a], pos: P }))
        },
        { weight: 2, arbitrary: variadic("string", depth) },
        { weight: 1, arbitrary: nullif("string", depth) }
      )
    case "boolean":
      return fc.oneof(
        { weight: 1, arbitrary: leaf("boolean") },
        {
          weight: 6,
          arbitrary: anyType.chain((t) =>
            fc
              .tuple(fc.constantFrom(...CMP), sub(t), sub(t))
              .map(([op, left, right]): Expr => ({ _tag: "Compare", op, left, right, pos: P }))
          )
        },
        {
          weight: 4,
          arbitrary: fc
            .tuple(fc.boolean(), sub("boolean"), sub("boolean"))
            .map(([and, left, right]): Expr => ({ _tag: and ? "And" : "Or", left, right, pos: P }))
        },
        { weight: 2, arbitrary: sub("boolean").map((arg): Expr => ({ _tag: "Not", arg, pos: P })) },
        {
          weight: 2,
          arbitrary: fc
            .tuple(fc.boolean(), fc.constantFrom<Ty>("numeric", "string"))
            .chain(([negated, t]) =>
              fc
                .tuple(sub(t), sub(t), sub(t))
                .map(([arg, low, high]): Expr => ({ _tag: "Between", negated, arg, low, high, pos: P }))
            )
        },
        {
          weight: 2,
          arbitrary: fc
            .tuple(fc.boolean(), anyType)
            .chain(([negated, t]) =>
              fc
                .tuple(sub(t), fc.array(sub(t), { minLength: 1, maxLength: 4 }))
                .map(([arg, items]): Expr => ({ _tag: "In", negated, arg, items, pos: P }))
            )
        },
        {
          weight: 2,
          arbitrary: fc.tuple(fc.boolean(), fc.boolean(), sub("string"), likePattern).map(
            ([negated, caseInsensitive, arg, pattern]): Expr => ({
              _tag: "Like",
              negated,
              caseInsensitive,
              arg,
              pattern: { _tag: "String", value: pattern, pos: P },
              pos: P
            })
          )
        },
        {
          weight: 2,
          arbitrary: fc
            .tuple(
              fc.boolean(),
              anyType.chain((t) => sub(t))
            )
            .map(([negated, arg]): Expr => ({ _tag: "IsNull", negated, arg, pos: P }))
        },
        {
          weight: 1,
          arbitrary: fc
            .tuple(fc.boolean(), fc.boolean(), sub("boolean"))
            .map(([negated, value, arg]): Expr => ({ _tag: "IsBool", negated, value, arg, pos: P }))
        },
        { weight: 1, arbitrary: variadic("boolean", depth) },
        { weight: 1, arbitrary: nullif("boolean", depth) }
      )
  }
}

// ---- rows -------------------------------------------------------------------

const numericCell = (nullable: boolean): fc.Arbitrary<number | null> =>
  fc.oneof(
    { weight: nullable ? 6 : 0, arbitrary: fc.constant(null) },
    { weight: 3, arbitrary: fc.constant(0) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(1, -1, 2, -2, 0.5, -0.5, 2.5, 3.5, -3.5, 10, 0.1, 1e12, -1e12, 1e-9, 1e150, 7, 3)
    },
    { weight: 1, arbitrary: fc.constantFrom(1e-200, 1e200, -1e299, 1e299, 5e-324, -0) },
    { weight: 3, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }) },
    { weight: 1, arbitrary: fc.integer({ min: -1000, max: 1000 }) }
  )

const stringCell = (nullable: boolean): fc.Arbitrary<string | null> =>
  fc.oneof(
    { weight: nullable ? 4 : 0, arbitrary: fc.constant(null) },
    { weight: 4, arbitrary: fc.constantFrom(...STRINGS) },
    {
      weight: 3,
      arbitrary: fc
        .array(fc.constantFrom("a", "A", "b", "B", "é", "É", "%", "_", "\\", "😀", "ch", "T", " ", "ß", "z", "Z"), {
          maxLength: 6
        })
        .map((p) => p.join(""))
    }
  )

const booleanCell = (nullable: boolean): fc.Arbitrary<boolean | null> =>
  fc.oneof({ weight: nullable ? 2 : 0, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: fc.boolean() })

/** `count` rows T0…T{count-1} (and SPY when `withSpy`). */
export const rows = (count: number): fc.Arbitrary<ReadonlyArray<Row>> =>
  fc
    .tuple(
      fc.boolean(),
      fc.array(
        fc.record({
          name: stringCell(false),
          sector: stringCell(true),
          price: numericCell(false),
          volume_today: numericCell(false),
          day_change_pct: numericCell(false),
          market_cap: numericCell(true),
          pe_ratio: numericCell(true),
          rsi_14: numericCell(true),
          eps: numericCell(true),
          golden_cross: booleanCell(false),
          above_sma_50: booleanCell(false),
          earnings_this_week: booleanCell(true)
        }),
        { minLength: count, maxLength: count }
      )
    )
    .map(([withSpy, rs]) =>
      rs.map((r, i): Row => ({ ...r, ticker: withSpy && i === 0 ? "SPY" : `T${i}`, relative_volume: 1 }))
    )
