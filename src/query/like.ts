/**
 * LIKE matching with PostgreSQL's rules: `%` matches any sequence of
 * characters, `_` exactly one character (code point), `\` makes the next
 * character literal, and the whole string must match. A pattern ending in a
 * lone `\` is an error (PostgreSQL raises one at run time; `q` refuses it at
 * compile time).
 *
 * No regular expressions: the pattern is split at `%` into segments, the
 * first anchored at the start, the last at the end, the middle ones placed
 * leftmost-first (which is optimal for `%`-separated segments). Matching is
 * O(length of string × length of pattern) in the worst case, never
 * exponential, whatever the pattern.
 */

/** One pattern element: a literal code point (as UTF-16 units) or `_`. */
type Element = string | null

interface Segment {
  readonly elements: ReadonlyArray<Element>
  /** the literal text when the segment has no `_` */
  readonly literal: string | undefined
}

export interface LikeMatcher {
  readonly test: (s: string) => boolean
}

const segmentOf = (elements: ReadonlyArray<Element>): Segment => ({
  elements,
  literal: elements.every((e) => e !== null) ? (elements as ReadonlyArray<string>).join("") : undefined
})

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff

/** Matches `seg` at unit offset `i` of `s`; returns the end offset or -1. */
const matchAt = (seg: Segment, s: string, i: number): number => {
  if (seg.literal !== undefined) return s.startsWith(seg.literal, i) ? i + seg.literal.length : -1
  let p = i
  for (const e of seg.elements) {
    if (e === null) {
      if (p >= s.length) return -1
      p += isHigh(s.charCodeAt(p)) && p + 1 < s.length ? 2 : 1
    } else {
      if (!s.startsWith(e, p)) return -1
      p += e.length
    }
  }
  return p
}

/** Unit offset where the last `count` code points of `s` start, or -1. */
const startOfLast = (s: string, count: number): number => {
  let p = s.length
  for (let k = 0; k < count; k++) {
    if (p <= 0) return -1
    p -= p >= 2 && s.charCodeAt(p - 1) >= 0xdc00 && s.charCodeAt(p - 1) <= 0xdfff && isHigh(s.charCodeAt(p - 2)) ? 2 : 1
  }
  return p
}

/** Leftmost match of `seg` at or after `from`, ending at or before `limit`; returns [start, end] or undefined. */
const findFrom = (seg: Segment, s: string, from: number, limit: number): [number, number] | undefined => {
  if (seg.literal !== undefined) {
    const at = s.indexOf(seg.literal, from)
    return at >= 0 && at + seg.literal.length <= limit ? [at, at + seg.literal.length] : undefined
  }
  for (let i = from; i <= limit; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xdc00 && c <= 0xdfff && i > 0 && isHigh(s.charCodeAt(i - 1))) continue
    const end = matchAt(seg, s, i)
    if (end >= 0 && end <= limit) return [i, end]
  }
  return undefined
}

/** Compiles `pattern`, or returns an error message. */
export const compileLike = (pattern: string): LikeMatcher | string => {
  const segments: Array<Segment> = []
  let current: Array<Element> = []
  const chars = Array.from(pattern)
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    if (c === "\\") {
      const next = chars[i + 1]
      if (next === undefined) return "LIKE pattern must not end with the escape character \\"
      current.push(next)
      i++
    } else if (c === "%") {
      segments.push(segmentOf(current))
      current = []
    } else current.push(c === "_" ? null : c)
  }
  segments.push(segmentOf(current))

  if (segments.length === 1) {
    const only = segments[0]!
    if (only.literal !== undefined) {
      const literal = only.literal
      return {
        test(s) {
          return s === literal
        }
      }
    }
    return {
      test(s) {
        return matchAt(only, s, 0) === s.length
      }
    }
  }
  const first = segments[0]!
  const last = segments[segments.length - 1]!
  const middle = segments.slice(1, -1).filter((seg) => seg.elements.length > 0)
  const lastCount = last.elements.length
  if (middle.length === 0 && first.literal !== undefined && last.literal !== undefined) {
    const head = first.literal
    const tail = last.literal
    if (tail === "")
      return {
        test(s) {
          return s.startsWith(head)
        }
      }
    if (head === "")
      return {
        test(s) {
          return s.endsWith(tail)
        }
      }
    return {
      test(s) {
        return s.length >= head.length + tail.length && s.startsWith(head) && s.endsWith(tail)
      }
    }
  }
  if (first.elements.length === 0 && last.elements.length === 0 && middle.length === 1 && middle[0]!.literal) {
    const inner = middle[0]!.literal
    return {
      test(s) {
        return s.includes(inner)
      }
    }
  }
  return {
    test(s) {
      let pos = matchAt(first, s, 0)
      if (pos < 0) return false
      const suffix = startOfLast(s, lastCount)
      if (suffix < pos || matchAt(last, s, suffix) !== s.length) return false
      for (const seg of middle) {
        const found = findFrom(seg, s, pos, suffix)
        if (found === undefined) return false
        pos = found[1]
      }
      return true
    }
  }
}
