/**
 * Errors of the `q` language, as data.
 *
 * Every problem found while lexing, parsing, resolving, inlining or type
 * checking becomes one `ErrorEntry` with the character position (a code-point
 * offset into the text the caller sent). Entries are gathered into one
 * `QueryError` whose `code` is the API error code:
 *
 * - mode "query" (scan `q`, subscription conditions): syntax, forbidden
 *   features, unknown names (columns, functions, tickers) are `invalid_query`;
 *   type errors and a non-boolean root are `compile_failed`; an argument a function does not
 *   accept in that position (a partition that is not a static text column) is `invalid_query`.
 * - mode "expr" (custom-signal `expr`): everything is `compile_failed`.
 * - in both modes, custom-signal inlining deeper than 5 or a cycle is
 *   `recursion_depth_exceeded`.
 */
import { Schema } from "effect"

export const QueryErrorCode = Schema.Literal("invalid_query", "compile_failed", "recursion_depth_exceeded")
export type QueryErrorCode = typeof QueryErrorCode.Type

/** Codes of individual entries (`errors[].code`). */
export const EntryCode = Schema.Literal(
  "too_long",
  "invalid_character",
  "forbidden",
  "syntax_error",
  "nesting_too_deep",
  "invalid_literal",
  "unknown_column",
  "unknown_function",
  "unknown_ticker",
  "type_mismatch",
  "wrong_arity",
  "invalid_argument",
  "not_boolean",
  "recursion_depth_exceeded",
  "cycle"
)
export type EntryCode = typeof EntryCode.Type

export const ErrorEntry = Schema.Struct({
  code: EntryCode,
  message: Schema.String,
  pos: Schema.Number,
  suggestion: Schema.optional(Schema.String)
})
export type ErrorEntry = typeof ErrorEntry.Type

export class QueryError extends Schema.TaggedError<QueryError>()("QueryError", {
  code: QueryErrorCode,
  message: Schema.String,
  errors: Schema.Array(ErrorEntry)
}) {}

export type Mode = "query" | "expr"

/** Entry codes that make a scan `q` an `invalid_query` rather than a `compile_failed`. */
const INVALID_IN_QUERY: ReadonlySet<EntryCode> = new Set<EntryCode>([
  "too_long",
  "invalid_character",
  "forbidden",
  "syntax_error",
  "nesting_too_deep",
  "invalid_literal",
  "unknown_column",
  "unknown_function",
  "unknown_ticker",
  "invalid_argument"
])

const RECURSION: ReadonlySet<EntryCode> = new Set<EntryCode>(["recursion_depth_exceeded", "cycle"])

/** Internal entry: `pos` is a UTF-16 offset until `toQueryError` converts it. */
export interface RawEntry {
  readonly code: EntryCode
  readonly message: string
  readonly pos: number
  readonly suggestion?: string | undefined
}

export const entry = (code: EntryCode, message: string, pos: number, suggestion?: string): RawEntry =>
  suggestion === undefined ? { code, message, pos } : { code, message, pos, suggestion }

/** Code-point offset of a UTF-16 offset (identical for ASCII text). */
export const codePointOffset = (text: string, utf16: number): number => {
  const end = Math.min(Math.max(utf16, 0), text.length)
  let n = 0
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) i++
    }
    n++
  }
  return n
}

export const topLevelCode = (mode: Mode, entries: ReadonlyArray<RawEntry>): QueryErrorCode => {
  if (entries.some((e) => RECURSION.has(e.code))) return "recursion_depth_exceeded"
  if (mode === "expr") return "compile_failed"
  return entries.some((e) => INVALID_IN_QUERY.has(e.code)) ? "invalid_query" : "compile_failed"
}

/** Builds the `QueryError` for `text`, converting positions to code-point offsets. */
export const toQueryError = (mode: Mode, text: string, entries: ReadonlyArray<RawEntry>): QueryError => {
  const errors = entries.map((e): ErrorEntry => {
    const pos = codePointOffset(text, e.pos)
    return e.suggestion === undefined
      ? { code: e.code, message: e.message, pos }
      : { code: e.code, message: e.message, pos, suggestion: e.suggestion }
  })
  const code = topLevelCode(mode, entries)
  const first = errors[0]
  const message =
    first === undefined
      ? "query failed to compile"
      : errors.length === 1
        ? `${first.message} (at position ${first.pos})`
        : `${first.message} (at position ${first.pos}), and ${errors.length - 1} more error(s)`
  return new QueryError({ code, message, errors }, { disableValidation: true })
}
