/**
 * The scalar semantics of `q`, shared by the evaluator's kernels and by
 * constant folding. Each function mirrors, operation for operation, the SQL
 * that `sql.ts` emits for the same operator, so that both backends compute the
 * same IEEE-754 double (see docs/query-language.md, "Semantics").
 *
 * Representation: a numeric NULL is NaN (NaN never appears in data, and no
 * operation below produces NaN from non-NaN inputs); a string NULL is `null`;
 * a boolean is a truth code: 0 FALSE, 1 NULL (unknown), 2 TRUE, so that AND is
 * `min`, OR is `max` and NOT is `2 - x`.
 */

/** Magnitude at and above which a numeric result is an overflow (NULL). */
export const BIG = 1e300
/** Products and quotients whose magnitude falls below about this flush to 0. */
export const SMALL = 1e-300

export type Truth = 0 | 1 | 2

/** Range check applied to every arithmetic result: |x| ≥ 1e300 is NULL. */
export const inRange = (x: number): number => (x > -BIG && x < BIG ? x : Number.NaN)

export const add = (a: number, b: number): number => inRange(a + b)
export const sub = (a: number, b: number): number => inRange(a - b)

export const mul = (a: number, b: number): number => {
  const ab = Math.abs(b)
  let r: number
  if (ab > 1) {
    if (Math.abs(a) > BIG / ab) return Number.NaN
    r = a * b
  } else if (ab < 1 && b !== 0) {
    if (Math.abs(a) < SMALL / ab) return 0
    r = a * b
  } else r = a * b
  return inRange(r)
}

export const div = (a: number, b: number): number => {
  if (b === 0) return Number.NaN
  const ab = Math.abs(b)
  let r: number
  if (ab < 1) {
    if (Math.abs(a) > BIG * ab) return Number.NaN
    r = a / b
  } else if (ab > 1) {
    if (Math.abs(a) < SMALL * ab) return 0
    r = a / b
  } else r = a / b
  return inRange(r)
}

/** `a % b` = a − b·trunc(a / b), with `/` as above (NULL when b = 0). */
export const mod = (a: number, b: number): number => {
  const q = div(a, b)
  return q === q ? inRange(a - b * Math.trunc(q)) : Number.NaN
}

/** ROUND: half to even, as PostgreSQL's `round(double precision)` (C `rint`). */
export const rint = (x: number): number => {
  const r = Math.round(x)
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r
}

/** SIGN: -1, 0 or 1 (never -0), as PostgreSQL's `sign(double precision)`. */
export const sign = (x: number): number => (x > 0 ? 1 : x < 0 ? -1 : x === 0 ? 0 : Number.NaN)

/** Byte-wise (UTF-8, i.e. code point) order, as `COLLATE "C"`. */
export const compareStrings = (a: string, b: string): number => {
  if (a === b) return 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x !== y) {
      // surrogate pairs encode code points above U+FFFF: they sort after U+E000..U+FFFF
      const kx = x >= 0xd800 ? (x >= 0xe000 ? x - 0x800 : x + 0x2000) : x
      const ky = y >= 0xd800 ? (y >= 0xe000 ? y - 0x800 : y + 0x2000) : y
      return kx < ky ? -1 : 1
    }
  }
  return a.length < b.length ? -1 : 1
}

const UPPER_ASCII = /[A-Z]/g
const LOWER_ASCII = /[a-z]/g
const hasUpper = /[A-Z]/
const hasLower = /[a-z]/

/** ASCII-only lower-casing: only A–Z change (as `translate(x, 'A…Z', 'a…z')`). */
export const lowerAscii = (s: string): string =>
  hasUpper.test(s) ? s.replace(UPPER_ASCII, (c) => String.fromCharCode(c.charCodeAt(0) + 32)) : s

/** ASCII-only upper-casing: only a–z change. */
export const upperAscii = (s: string): string =>
  hasLower.test(s) ? s.replace(LOWER_ASCII, (c) => String.fromCharCode(c.charCodeAt(0) - 32)) : s

/** Number of characters (code points), as PostgreSQL's `char_length`. */
export const charLength = (s: string): number => {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      n--
      i++
    }
  }
  return n
}
