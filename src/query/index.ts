/**
 * The `q` language: a read-only SQL WHERE-style expression over the columns
 * of the ticker row, the account's custom signals and cross-ticker
 * references. See docs/query-language.md.
 */
export type * from "./ast.js"
export {
  type CompiledExpression,
  type CompiledQuery,
  compileExpression,
  compileMatcher,
  compileQuery,
  flat,
  type Matcher,
  type Predicate
} from "./compile.js"
export { type Columns, type CompileContext, columnsOf, type Signals, signalsOf } from "./context.js"
export {
  type EntryCode,
  type ErrorEntry,
  type Mode,
  QueryError,
  type QueryErrorCode
} from "./errors.js"
export { allRows } from "./evaluate/arena.js"
export { type Bits, countBits, hasBit, rowsOfBits } from "./evaluate/bits.js"
export { type FnSpec, FUNCTIONS } from "./functions.js"
export { MAX_INLINE_DEPTH } from "./inline.js"
export type { Node, Type, Value } from "./ir.js"
export { MAX_LENGTH } from "./lexer.js"
export { parse } from "./parser.js"
export { render } from "./render.js"
export type { SqlFragment, SqlOptions } from "./sql.js"
