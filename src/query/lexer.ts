/**
 * The tokenizer of `q`: one linear pass over the text that also enforces the
 * safety rules of the spec: more than 4000 characters, semicolons, comments
 * (`--`, `/* *\/`), write / DDL / subquery keywords, NUL characters and lone
 * surrogates are refused before any parsing happens. String literals are data
 * (`name LIKE '%;--%'` is fine): the rules apply to tokens, not to the
 * contents of literals.
 */
import { entry, type RawEntry } from "./errors.js"

export const MAX_LENGTH = 4000
/** Largest magnitude a numeric literal may have (see docs/query-language.md, "Numbers"). */
export const MAX_MAGNITUDE = 1e300
/** Deepest parenthesis nesting accepted. */
export const MAX_PAREN_DEPTH = 64

export type TokenKind = "num" | "str" | "ident" | "qident" | "kw" | "op" | "eof"

export interface Token {
  readonly kind: TokenKind
  /** ident: lower case; qident: as written; kw: upper case; op: the operator; num: source text */
  readonly text: string
  /** num: the value; str: the decoded string */
  readonly value: number | string | undefined
  /** UTF-16 offset of the first character */
  readonly pos: number
  /** true when the token is immediately followed by `.` and a name (a ticker qualifier) */
  readonly qualifier: boolean
}

/** Keywords of the language (reserved: use the quoted form `"…"` for a name that clashes). */
export const KEYWORDS: ReadonlySet<string> = new Set([
  "AND",
  "OR",
  "NOT",
  "IN",
  "IS",
  "NULL",
  "TRUE",
  "FALSE",
  "BETWEEN",
  "LIKE",
  "ILIKE"
])

/** Statement, write, DDL and subquery keywords: refused with `invalid_query` / `forbidden`. */
export const FORBIDDEN: ReadonlySet<string> = new Set([
  "INSERT",
  "UPDATE",
  "DELETE",
  "DROP",
  "ALTER",
  "CREATE",
  "TRUNCATE",
  "GRANT",
  "REVOKE",
  "MERGE",
  "UPSERT",
  "REPLACE",
  "COPY",
  "EXECUTE",
  "EXEC",
  "CALL",
  "DO",
  "BEGIN",
  "COMMIT",
  "ROLLBACK",
  "SAVEPOINT",
  "RELEASE",
  "VACUUM",
  "ANALYZE",
  "REINDEX",
  "CLUSTER",
  "LOCK",
  "SET",
  "RESET",
  "SHOW",
  "LISTEN",
  "NOTIFY",
  "UNLISTEN",
  "PREPARE",
  "DEALLOCATE",
  "DISCARD",
  "LOAD",
  "IMPORT",
  "COMMENT",
  "SECURITY",
  "REFRESH",
  "CHECKPOINT",
  "RENAME",
  "SELECT",
  "FROM",
  "WHERE",
  "UNION",
  "INTERSECT",
  "EXCEPT",
  "WITH",
  "VALUES",
  "TABLE",
  "INTO",
  "JOIN",
  "EXISTS",
  "RETURNING",
  "ANY",
  "ALL",
  "SOME",
  "ORDER",
  "GROUP",
  "HAVING",
  "LIMIT",
  "OFFSET",
  "FETCH"
])

/** SQL words that are not part of `q`: refused with a clear `syntax_error`. */
export const UNSUPPORTED: ReadonlySet<string> = new Set([
  "CASE",
  "WHEN",
  "THEN",
  "ELSE",
  "END",
  "CAST",
  "AS",
  "ESCAPE",
  "SIMILAR",
  "DISTINCT",
  "ARRAY",
  "COLLATE",
  "OVERLAPS",
  "SYMMETRIC"
])

export type LexResult =
  | { readonly ok: true; readonly tokens: ReadonlyArray<Token> }
  | { readonly ok: false; readonly error: RawEntry }

const isIdentStart = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95
const isIdentPart = (c: number) => isIdentStart(c) || (c >= 48 && c <= 57)
const isDigit = (c: number) => c >= 48 && c <= 57
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11

/** Offset of the first character past `MAX_LENGTH` code points, or -1 when the text is short enough. */
const overLength = (text: string): number => {
  if (text.length <= MAX_LENGTH) return -1
  let n = 0
  for (let i = 0; i < text.length; i++) {
    if (n === MAX_LENGTH) return i
    const c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) i++
    n++
  }
  return -1
}

/** Offset of a NUL or a lone surrogate, or -1. */
const badCharacter = (text: string): number => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0) return i
    if (c >= 0xd800 && c <= 0xdfff) {
      if (c <= 0xdbff && i + 1 < text.length) {
        const d = text.charCodeAt(i + 1)
        if (d >= 0xdc00 && d <= 0xdfff) {
          i++
          continue
        }
      }
      return i
    }
  }
  return -1
}

/** appends a token (module-level rather than a closure per call: see NAMED_CLOSURES in evaluate/plan.ts) */
const push = (
  tokens: Array<Token>,
  kind: TokenKind,
  text: string,
  value: number | string | undefined,
  pos: number,
  qualifier = false
) => tokens.push({ kind, text, value, pos, qualifier })

const fail = (error: RawEntry): LexResult => ({ ok: false, error })

const describe = (text: string, i: number): string => {
  const cp = text.codePointAt(i) ?? 0
  return cp < 32 || cp === 127 ? `U+${cp.toString(16).toUpperCase().padStart(4, "0")}` : `'${String.fromCodePoint(cp)}'`
}

/** Tokenizes `text`; the last token is always `eof`. */
export const lex = (text: string): LexResult => {
  const over = overLength(text)
  if (over >= 0) return fail(entry("too_long", `query is longer than ${MAX_LENGTH} characters`, over))
  const bad = badCharacter(text)
  if (bad >= 0) return fail(entry("invalid_character", "NUL characters and unpaired surrogates are not allowed", bad))
  const tokens: Array<Token> = []
  const n = text.length
  let depth = 0
  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    if (isSpace(c)) {
      i++
      continue
    }
    const start = i
    // comments and semicolons
    if (c === 45 /* - */ && text.charCodeAt(i + 1) === 45) {
      return fail(entry("forbidden", "comments (--) are not allowed", i))
    }
    if (c === 47 /* / */ && text.charCodeAt(i + 1) === 42 /* * */) {
      return fail(entry("forbidden", "comments (/* */) are not allowed", i))
    }
    if (c === 59 /* ; */) return fail(entry("forbidden", "semicolons are not allowed", i))
    // string literal
    if (c === 39 /* ' */) {
      let value = ""
      let j = i + 1
      for (;;) {
        const k = text.indexOf("'", j)
        if (k < 0) return fail(entry("syntax_error", "unterminated string literal", start))
        value += text.slice(j, k)
        if (text.charCodeAt(k + 1) === 39) {
          value += "'"
          j = k + 2
          continue
        }
        i = k + 1
        break
      }
      push(tokens, "str", text.slice(start, i), value, start)
      continue
    }
    // quoted name
    if (c === 34 /* " */) {
      let value = ""
      let j = i + 1
      for (;;) {
        const k = text.indexOf('"', j)
        if (k < 0) return fail(entry("syntax_error", "unterminated quoted name", start))
        value += text.slice(j, k)
        if (text.charCodeAt(k + 1) === 34) {
          value += '"'
          j = k + 2
          continue
        }
        i = k + 1
        break
      }
      if (value.length === 0) return fail(entry("syntax_error", "empty quoted name", start))
      push(tokens, "qident", value, value, start, text.charCodeAt(i) === 46)
      continue
    }
    // number
    if (isDigit(c) || (c === 46 /* . */ && isDigit(text.charCodeAt(i + 1)))) {
      while (i < n && isDigit(text.charCodeAt(i))) i++
      if (text.charCodeAt(i) === 46) {
        i++
        while (i < n && isDigit(text.charCodeAt(i))) i++
      }
      const e = text.charCodeAt(i)
      if (e === 101 || e === 69) {
        let j = i + 1
        const sign = text.charCodeAt(j)
        if (sign === 43 || sign === 45) j++
        if (isDigit(text.charCodeAt(j))) {
          while (j < n && isDigit(text.charCodeAt(j))) j++
          i = j
        }
      }
      if (i < n && (isIdentPart(text.charCodeAt(i)) || text.charCodeAt(i) === 46)) {
        return fail(entry("syntax_error", `invalid number '${text.slice(start, i + 1)}'`, start))
      }
      const source = text.slice(start, i)
      const value = Number(source)
      if (!(Math.abs(value) < MAX_MAGNITUDE)) {
        return fail(entry("invalid_literal", `number ${source} is out of range (magnitude must be below 1e300)`, start))
      }
      push(tokens, "num", source, value, start)
      continue
    }
    // words
    if (isIdentStart(c)) {
      while (i < n && isIdentPart(text.charCodeAt(i))) i++
      const word = text.slice(start, i)
      const qualifier =
        text.charCodeAt(i) === 46 && (isIdentStart(text.charCodeAt(i + 1)) || text.charCodeAt(i + 1) === 34)
      if (qualifier) {
        push(tokens, "ident", word.toLowerCase(), word, start, true)
        continue
      }
      const upper = word.toUpperCase()
      if (KEYWORDS.has(upper)) push(tokens, "kw", upper, undefined, start)
      else if (FORBIDDEN.has(upper))
        return fail(entry("forbidden", `${upper} is not allowed: q is a read-only filter expression`, start))
      else if (UNSUPPORTED.has(upper)) return fail(entry("syntax_error", `${upper} is not supported in q`, start))
      else push(tokens, "ident", word.toLowerCase(), word, start)
      continue
    }
    // operators
    const d = text.charCodeAt(i + 1)
    switch (c) {
      case 60 /* < */:
        if (d === 61 || d === 62) {
          push(tokens, "op", d === 61 ? "<=" : "<>", undefined, start)
          i += 2
        } else {
          push(tokens, "op", "<", undefined, start)
          i++
        }
        continue
      case 62 /* > */:
        if (d === 61) {
          push(tokens, "op", ">=", undefined, start)
          i += 2
        } else {
          push(tokens, "op", ">", undefined, start)
          i++
        }
        continue
      case 33 /* ! */:
        if (d === 61) {
          push(tokens, "op", "<>", undefined, start)
          i += 2
          continue
        }
        return fail(entry("syntax_error", "unexpected character '!'", start))
      case 58 /* : */:
        return fail(entry("syntax_error", "type casts (::) are not supported", start))
      case 40 /* ( */:
        depth++
        if (depth > MAX_PAREN_DEPTH) {
          return fail(entry("nesting_too_deep", `parentheses nested deeper than ${MAX_PAREN_DEPTH}`, start))
        }
        push(tokens, "op", "(", undefined, start)
        i++
        continue
      case 41 /* ) */:
        depth--
        push(tokens, "op", ")", undefined, start)
        i++
        continue
      case 61 /* = */:
      case 43 /* + */:
      case 45 /* - */:
      case 42 /* * */:
      case 47 /* / */:
      case 37 /* % */:
      case 44 /* , */:
      case 46 /* . */:
        push(tokens, "op", text[i]!, undefined, start)
        i++
        continue
      default:
        return fail(entry("syntax_error", `unexpected character ${describe(text, i)}`, start))
    }
  }
  push(tokens, "eof", "", undefined, n)
  return { ok: true, tokens }
}
