/**
 * The function set of `q`. Every function is total (never raises an error in
 * either backend) and has the same result in the evaluator and in PostgreSQL.
 * Names are case-insensitive; `CEILING` is an alias of `CEIL`.
 */
import { charLength, lowerAscii, rint, sign, upperAscii } from "./semantics.js"

export type FnName =
  | "ABS"
  | "SIGN"
  | "ROUND"
  | "TRUNC"
  | "FLOOR"
  | "CEIL"
  | "LENGTH"
  | "LOWER"
  | "UPPER"
  | "COALESCE"
  | "LEAST"
  | "GREATEST"
  | "NULLIF"
  | "PCT_RANK"
  | "RANK"
  | "ZSCORE"

/** the cross-sectional functions: a row's value depends on every row in the evaluation's scope */
export type RankFnName = "PCT_RANK" | "RANK" | "ZSCORE"

export const isRankFn = (name: FnName): name is RankFnName =>
  name === "PCT_RANK" || name === "RANK" || name === "ZSCORE"

/** the columns a cross-sectional function may partition by: static text columns of the ticker row */
export const PARTITION_COLUMNS: ReadonlyArray<string> = ["sector", "industry", "exchange", "asset_type"]

export type FnShape =
  /** (numeric) → numeric, NULL in → NULL out */
  | "numeric"
  /** (string) → numeric */
  | "length"
  /** (string) → string */
  | "string"
  /** (T, T, …) → T for any one type T */
  | "variadic"
  /** (T, T) → T */
  | "nullif"
  /** (numeric [, partition column]) → numeric, over the rows in scope */
  | "rank"

export interface FnSpec {
  readonly name: FnName
  readonly shape: FnShape
  readonly minArgs: number
  readonly maxArgs: number
  readonly signature: string
  readonly description: string
}

const spec = (
  name: FnName,
  shape: FnShape,
  minArgs: number,
  maxArgs: number,
  signature: string,
  description: string
): FnSpec => ({ name, shape, minArgs, maxArgs, signature, description })

const MANY = 100

export const FUNCTIONS: ReadonlyArray<FnSpec> = [
  spec("ABS", "numeric", 1, 1, "ABS(numeric) → numeric", "absolute value; NULL → NULL"),
  spec("SIGN", "numeric", 1, 1, "SIGN(numeric) → numeric", "-1, 0 or 1; NULL → NULL"),
  spec(
    "ROUND",
    "numeric",
    1,
    1,
    "ROUND(numeric) → numeric",
    "nearest integer, halves to even (2.5 → 2, 3.5 → 4); NULL → NULL"
  ),
  spec("TRUNC", "numeric", 1, 1, "TRUNC(numeric) → numeric", "integer part, towards zero; NULL → NULL"),
  spec("FLOOR", "numeric", 1, 1, "FLOOR(numeric) → numeric", "largest integer not above; NULL → NULL"),
  spec("CEIL", "numeric", 1, 1, "CEIL(numeric) → numeric (alias CEILING)", "smallest integer not below; NULL → NULL"),
  spec("LENGTH", "length", 1, 1, "LENGTH(string) → numeric", "number of characters (code points); NULL → NULL"),
  spec("LOWER", "string", 1, 1, "LOWER(string) → string", "A–Z to a–z, every other character unchanged; NULL → NULL"),
  spec("UPPER", "string", 1, 1, "UPPER(string) → string", "a–z to A–Z, every other character unchanged; NULL → NULL"),
  spec(
    "COALESCE",
    "variadic",
    1,
    MANY,
    "COALESCE(T, T, …) → T",
    "first argument that is not NULL; NULL when all are NULL"
  ),
  spec("LEAST", "variadic", 1, MANY, "LEAST(T, T, …) → T", "smallest argument, ignoring NULLs; NULL when all are NULL"),
  spec(
    "GREATEST",
    "variadic",
    1,
    MANY,
    "GREATEST(T, T, …) → T",
    "largest argument, ignoring NULLs; NULL when all are NULL"
  ),
  spec("NULLIF", "nullif", 2, 2, "NULLIF(T, T) → T", "NULL when the arguments are equal, else the first argument"),
  spec(
    "PCT_RANK",
    "rank",
    1,
    2,
    "PCT_RANK(numeric [, partition]) → numeric",
    "percent rank (0–1, ascending) among the rows in scope with a value, optionally within the row's partition; NULL → NULL"
  ),
  spec(
    "RANK",
    "rank",
    1,
    2,
    "RANK(numeric [, partition]) → numeric",
    "rank (1 = highest, ties share a rank) among the rows in scope with a value, optionally within the row's partition; NULL → NULL"
  ),
  spec(
    "ZSCORE",
    "rank",
    1,
    2,
    "ZSCORE(numeric [, partition]) → numeric",
    "(x − mean) / population standard deviation among the rows in scope with a value (10 decimals); NULL when x is NULL or the deviation is 0"
  )
]

const BY_NAME: ReadonlyMap<string, FnSpec> = new Map([
  ...FUNCTIONS.map((f): [string, FnSpec] => [f.name, f]),
  ["CEILING", FUNCTIONS.find((f) => f.name === "CEIL")!]
])

export const FUNCTION_NAMES: ReadonlyArray<string> = [...BY_NAME.keys()]

export const functionSpec = (name: string): FnSpec | undefined => BY_NAME.get(name.toUpperCase())

/** Scalar implementation of the one-argument numeric functions. */
export const numericFn = (name: FnName): ((x: number) => number) => {
  switch (name) {
    case "ABS":
      return Math.abs
    case "SIGN":
      return sign
    case "ROUND":
      return rint
    case "TRUNC":
      return Math.trunc
    case "FLOOR":
      return Math.floor
    case "CEIL":
      return Math.ceil
    default:
      throw new Error(`not a numeric function: ${name}`)
  }
}

/** Scalar implementation of the one-argument string functions. */
export const stringFn = (name: FnName): ((s: string) => string) => {
  switch (name) {
    case "LOWER":
      return lowerAscii
    case "UPPER":
      return upperAscii
    default:
      throw new Error(`not a string function: ${name}`)
  }
}

export { charLength }
