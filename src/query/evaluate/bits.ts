/**
 * Row sets as bitsets (bit `r & 31` of word `r >> 5` for row r), and the
 * sorted index that answers `column op constant` over the whole snapshot as
 * one: a conjunction of comparisons is then a few word-wide ANDs, with no
 * per-row branch at all (a row-by-row comparison of random thresholds
 * mispredicts about half of its branches; see docs/benchmarks.md).
 *
 * The sorted index of a numeric column is per snapshot column (a WeakMap on
 * the column, as columns.ts keeps its NULL-encoded copy): the rows with a
 * value, in ascending value order, and the bitsets of every prefix of that
 * order at a step of BLOCK positions (~220 KB a column of the whole market). `column > k` is the rows
 * past a binary search's position: two stored prefixes combined word by word,
 * and fewer than BLOCK rows set or cleared at each end of the range.
 *
 * The index is built on a column's second comparison: the first is one branch-free pass over the
 * rows (~20 µs for the whole market, where the sort is a few ms) — a snapshot compared once (a day
 * of a dry-run or a backtest, an as-of scan) never pays for an index it would not reuse.
 */
import type { Snapshot } from "../../market/snapshot.js"
import type { CompareOp } from "../ast.js"
import { numericColumn } from "./columns.js"

export type Bits = Uint32Array

export const emptyBits = (n: number): Bits => new Uint32Array((n + 31) >>> 5)

/** Every row of `n`. */
export const allBits = (n: number): Bits => {
  const bits = emptyBits(n)
  bits.fill(0xffffffff)
  if ((n & 31) !== 0) bits[bits.length - 1] = (1 << (n & 31)) - 1
  return bits
}

/** Bits of the listed rows. */
export const bitsOfRows = (n: number, rows: ArrayLike<number>, count = rows.length): Bits => {
  const bits = emptyBits(n)
  for (let i = 0; i < count; i++) {
    const r = rows[i]!
    bits[r >>> 5]! |= 1 << (r & 31)
  }
  return bits
}

/** `a &= b` */
export const andInto = (a: Bits, b: Bits): Bits => {
  for (let i = 0; i < a.length; i++) a[i]! &= b[i]!
  return a
}

/** `a |= b` */
export const orInto = (a: Bits, b: Bits): Bits => {
  for (let i = 0; i < a.length; i++) a[i]! |= b[i]!
  return a
}

/** rows set */
export const countBits = (bits: Bits): number => {
  let c = 0
  for (let i = 0; i < bits.length; i++) {
    let v = bits[i]!
    v -= (v >>> 1) & 0x55555555
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333)
    c += (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number
  }
  return c
}

/** The rows set, ascending, into `out` (room for every row set); returns how many. */
export const rowsOfBits = (bits: Bits, out: Int32Array): number => {
  let c = 0
  for (let i = 0; i < bits.length; i++) {
    let v = bits[i]!
    while (v !== 0) {
      const low = v & -v
      out[c++] = (i << 5) + (31 - Math.clz32(low))
      v ^= low
    }
  }
  return c
}

export const hasBit = (bits: Bits, r: number): boolean => (bits[r >>> 5]! & (1 << (r & 31))) !== 0

/** positions of the index between two stored prefixes */
const BLOCK = 128

interface SortedColumn {
  /** rows with a value, by value ascending */
  readonly perm: Int32Array
  /** the column's values (NaN for NULL), by row */
  readonly values: Float64Array
  /** the rows with a value */
  readonly valid: Bits
  /** `prefix[j]`: the rows at positions [0, j × BLOCK) of `perm` */
  readonly prefix: ReadonlyArray<Bits>
}

const sortedCache = new WeakMap<Float64Array, SortedColumn>()
/** columns compared once, by a pass over their rows: the next comparison builds the index */
const scanned = new WeakSet<Float64Array>()

const sortedOf = (v: Float64Array): SortedColumn => {
  const hit = sortedCache.get(v)
  if (hit !== undefined) return hit
  let m = 0
  const rows = new Int32Array(v.length)
  for (let r = 0; r < v.length; r++) {
    rows[m] = r
    m += +(v[r] === v[r])
  }
  const perm = rows.slice(0, m).sort((x, y) => v[x]! - v[y]!)
  const prefix: Array<Bits> = []
  const running = emptyBits(v.length)
  for (let i = 0; i < m; i++) {
    if (i % BLOCK === 0) prefix.push(running.slice())
    const r = perm[i]!
    running[r >>> 5]! |= 1 << (r & 31)
  }
  prefix.push(running.slice())
  const made = { perm, values: v, valid: running, prefix }
  sortedCache.set(v, made)
  return made
}

/** first position of the index whose value is ≥ k (`strict`: > k) */
const bound = (s: SortedColumn, k: number, strict: boolean): number => {
  const { perm, values } = s
  let lo = 0
  let hi = perm.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const v = values[perm[mid]!]!
    if (strict ? v <= k : v < k) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * rows whose value lies at positions [from, to) of the index, or (`outside`) elsewhere: the stored
 * prefixes below each end, word by word, then fewer than BLOCK rows set or cleared at each end
 */
const rangeBits = (s: SortedColumn, from: number, to: number, outside: boolean): Bits => {
  const { perm, prefix } = s
  const f = (from / BLOCK) | 0
  const t = (to / BLOCK) | 0
  const upper = prefix[t]!
  const lower = prefix[f]!
  const bits = new Uint32Array(upper.length)
  for (let w = 0; w < bits.length; w++) bits[w] = upper[w]! & ~lower[w]!
  for (let i = t * BLOCK; i < to; i++) {
    const r = perm[i]!
    bits[r >>> 5]! |= 1 << (r & 31)
  }
  for (let i = f * BLOCK; i < from; i++) {
    const r = perm[i]!
    bits[r >>> 5]! &= ~(1 << (r & 31))
  }
  if (outside) {
    const valid = s.valid
    for (let w = 0; w < bits.length; w++) bits[w] = valid[w]! & ~bits[w]!
  }
  return bits
}

/** Rows of `v` (NaN: NULL) where `v op k` is TRUE, by one pass over them, 32 rows a word and no branch per row. */
export const scanBits = (v: Float64Array, op: CompareOp, k: number): Bits => {
  const n = v.length
  const bits = emptyBits(n)
  for (let w = 0; w < bits.length; w++) {
    const from = w << 5
    const to = Math.min(n, from + 32)
    let word = 0
    // one loop per operator: no branch on it per row (a NaN compares false, and <> needs a value)
    switch (op) {
      case ">":
        for (let r = from; r < to; r++) word |= +(v[r]! > k) << (r - from)
        break
      case ">=":
        for (let r = from; r < to; r++) word |= +(v[r]! >= k) << (r - from)
        break
      case "<":
        for (let r = from; r < to; r++) word |= +(v[r]! < k) << (r - from)
        break
      case "<=":
        for (let r = from; r < to; r++) word |= +(v[r]! <= k) << (r - from)
        break
      case "=":
        for (let r = from; r < to; r++) word |= +(v[r]! === k) << (r - from)
        break
      case "<>":
        for (let r = from; r < to; r++) {
          const x = v[r]!
          word |= (+(x !== k) & +(x === x)) << (r - from)
        }
        break
    }
    bits[w] = word
  }
  return bits
}

/** Rows where `column op k` is TRUE (a NULL value never is); `k` is not NaN. */
export const compareBits = (snap: Snapshot, column: string, op: CompareOp, k: number): Bits => {
  // the NULL-encoded copy is itself one per snapshot column: it keys the index
  const v = numericColumn(snap, column)
  if (!sortedCache.has(v) && !scanned.has(v)) {
    scanned.add(v)
    return scanBits(v, op, k)
  }
  const s = sortedOf(v)
  const m = s.perm.length
  switch (op) {
    case ">":
      return rangeBits(s, bound(s, k, true), m, false)
    case ">=":
      return rangeBits(s, bound(s, k, false), m, false)
    case "<":
      return rangeBits(s, 0, bound(s, k, false), false)
    case "<=":
      return rangeBits(s, 0, bound(s, k, true), false)
    case "=":
      return rangeBits(s, bound(s, k, false), bound(s, k, true), false)
    case "<>":
      return rangeBits(s, bound(s, k, false), bound(s, k, true), true)
  }
}

const truthCache = new WeakMap<Uint8Array, Array<Bits | undefined>>()

/** Rows whose truth code (0 FALSE, 1 NULL, 2 TRUE) is `want`, in a boolean column's truth codes (one per snapshot column). */
export const truthBits = (t: Uint8Array, want: 0 | 2): Bits => {
  let byWant = truthCache.get(t)
  if (byWant === undefined) {
    byWant = []
    truthCache.set(t, byWant)
  }
  let bits = byWant[want]
  if (bits === undefined) {
    bits = emptyBits(t.length)
    for (let r = 0; r < t.length; r++) bits[r >>> 5]! |= +(t[r] === want) << (r & 31)
    byWant[want] = bits
  }
  return bits.slice()
}
