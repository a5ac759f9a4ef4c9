/**
 * Column kernels: tight loops over the rows of a selection (`sel[0..m)`, row
 * indexes in ascending order), shared by every compiled predicate so that
 * they stay hot and monomorphic. Each writes `out[row]` for the selected rows
 * only, or (the `sel*` kernels) appends the selected rows that satisfy a
 * condition to `out` and returns how many.
 *
 * The `sel*` kernels are branch-free (`out[c] = r; c += +cond`): `out` must
 * have room for `m` rows, and a slot past the count may be overwritten. With
 * a branch per row, a comparison that holds for about half the rows in no
 * particular order mispredicts half the time, which made a pass over 10,000
 * different predicates about three times slower.
 *
 * Encodings: numeric NaN = NULL; truth codes 0 FALSE, 1 NULL, 2 TRUE; string null = NULL.
 */
import type { ArithOp, CompareOp } from "../ast.js"
import { add, charLength, compareStrings, div, mod, mul, rint, sign, sub } from "../semantics.js"

type Strs = ReadonlyArray<string | null>

export const negate = (op: CompareOp): CompareOp => {
  switch (op) {
    case "=":
      return "<>"
    case "<>":
      return "="
    case "<":
      return ">="
    case "<=":
      return ">"
    case ">":
      return "<="
    case ">=":
      return "<"
  }
}

/** the operator with its operands swapped: `k op x` ≡ `x flip(op) k` */
export const flip = (op: CompareOp): CompareOp => {
  switch (op) {
    case "=":
    case "<>":
      return op
    case "<":
      return ">"
    case "<=":
      return ">="
    case ">":
      return "<"
    case ">=":
      return "<="
  }
}

// ---- numeric ---------------------------------------------------------------

export const arithVV = (
  op: ArithOp,
  a: Float64Array,
  b: Float64Array,
  out: Float64Array,
  sel: Int32Array,
  m: number
) => {
  switch (op) {
    case "+":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = add(a[r]!, b[r]!)
      }
      return
    case "-":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = sub(a[r]!, b[r]!)
      }
      return
    case "*":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = mul(a[r]!, b[r]!)
      }
      return
    case "/":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = div(a[r]!, b[r]!)
      }
      return
    case "%":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = mod(a[r]!, b[r]!)
      }
      return
  }
}

export const arithVK = (op: ArithOp, a: Float64Array, k: number, out: Float64Array, sel: Int32Array, m: number) => {
  switch (op) {
    case "+":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = add(a[r]!, k)
      }
      return
    case "-":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = sub(a[r]!, k)
      }
      return
    case "*":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = mul(a[r]!, k)
      }
      return
    case "/":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = div(a[r]!, k)
      }
      return
    case "%":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = mod(a[r]!, k)
      }
      return
  }
}

export const arithKV = (op: ArithOp, k: number, b: Float64Array, out: Float64Array, sel: Int32Array, m: number) => {
  switch (op) {
    case "+":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = add(k, b[r]!)
      }
      return
    case "-":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = sub(k, b[r]!)
      }
      return
    case "*":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = mul(k, b[r]!)
      }
      return
    case "/":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = div(k, b[r]!)
      }
      return
    case "%":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = mod(k, b[r]!)
      }
      return
  }
}

export const negV = (a: Float64Array, out: Float64Array, sel: Int32Array, m: number) => {
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    out[r] = -a[r]!
  }
}

export const numericFnV = (fn: string, a: Float64Array, out: Float64Array, sel: Int32Array, m: number) => {
  switch (fn) {
    case "ABS":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = Math.abs(a[r]!)
      }
      return
    case "SIGN":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = sign(a[r]!)
      }
      return
    case "ROUND":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = rint(a[r]!)
      }
      return
    case "TRUNC":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = Math.trunc(a[r]!)
      }
      return
    case "FLOOR":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = Math.floor(a[r]!)
      }
      return
    case "CEIL":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[r] = Math.ceil(a[r]!)
      }
      return
    default:
      throw new Error(`not a numeric function: ${fn}`)
  }
}

export const lengthV = (a: Strs, out: Float64Array, sel: Int32Array, m: number) => {
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    const s = a[r]
    out[r] = s === null || s === undefined ? Number.NaN : charLength(s)
  }
}

/** numeric comparison against a constant (k is not NaN) → truth codes */
export const cmpNumVK = (op: CompareOp, a: Float64Array, k: number, out: Uint8Array, sel: Int32Array, m: number) => {
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    const x = a[r]!
    let t: boolean
    switch (op) {
      case "=":
        t = x === k
        break
      case "<>":
        t = x !== k
        break
      case "<":
        t = x < k
        break
      case "<=":
        t = x <= k
        break
      case ">":
        t = x > k
        break
      case ">=":
        t = x >= k
        break
    }
    out[r] = x !== x ? 1 : t ? 2 : 0
  }
}

export const cmpNumVV = (
  op: CompareOp,
  a: Float64Array,
  b: Float64Array,
  out: Uint8Array,
  sel: Int32Array,
  m: number
) => {
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    const x = a[r]!
    const y = b[r]!
    let t: boolean
    switch (op) {
      case "=":
        t = x === y
        break
      case "<>":
        t = x !== y
        break
      case "<":
        t = x < y
        break
      case "<=":
        t = x <= y
        break
      case ">":
        t = x > y
        break
      case ">=":
        t = x >= y
        break
    }
    out[r] = x !== x || y !== y ? 1 : t ? 2 : 0
  }
}

/** rows where `a op k` is TRUE (NaN never qualifies; k is not NaN) */
export const selNumVK = (op: CompareOp, a: Float64Array, k: number, sel: Int32Array, m: number, out: Int32Array) => {
  let c = 0
  switch (op) {
    case "=":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[c] = r
        c += +(a[r] === k)
      }
      break
    case "<>":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        const x = a[r]!
        out[c] = r
        c += +(x < k) + +(x > k)
      }
      break
    case "<":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[c] = r
        c += +(a[r]! < k)
      }
      break
    case "<=":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[c] = r
        c += +(a[r]! <= k)
      }
      break
    case ">":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[c] = r
        c += +(a[r]! > k)
      }
      break
    case ">=":
      for (let j = 0; j < m; j++) {
        const r = sel[j]!
        out[c] = r
        c += +(a[r]! >= k)
      }
      break
  }
  return c
}

export const selNumVV = (
  op: CompareOp,
  a: Float64Array,
  b: Float64Array,
  sel: Int32Array,
  m: number,
  out: Int32Array
) => {
  let c = 0
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    const x = a[r]!
    const y = b[r]!
    let t: boolean
    switch (op) {
      case "=":
        t = x === y
        break
      case "<>":
        t = x < y || x > y
        break
      case "<":
        t = x < y
        break
      case "<=":
        t = x <= y
        break
      case ">":
        t = x > y
        break
      case ">=":
        t = x >= y
        break
    }
    out[c] = r
    c += +t
  }
  return c
}

// ---- strings ---------------------------------------------------------------

const holds = (op: CompareOp, c: number): boolean =>
  op === "=" ? c === 0 : op === "<>" ? c !== 0 : op === "<" ? c < 0 : op === "<=" ? c <= 0 : op === ">" ? c > 0 : c >= 0

export const cmpStrVK = (op: CompareOp, a: Strs, k: string, out: Uint8Array, sel: Int32Array, m: number) => {
  if (op === "=" || op === "<>") {
    const want = op === "=" ? 2 : 0
    const other = 2 - want
    for (let j = 0; j < m; j++) {
      const r = sel[j]!
      const x = a[r]
      out[r] = x === null || x === undefined ? 1 : x === k ? want : other
    }
    return
  }
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    const x = a[r]
    out[r] = x === null || x === undefined ? 1 : holds(op, compareStrings(x, k)) ? 2 : 0
  }
}

export const cmpStrVV = (op: CompareOp, a: Strs, b: Strs, out: Uint8Array, sel: Int32Array, m: number) => {
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    const x = a[r]
    const y = b[r]
    out[r] =
      x === null || x === undefined || y === null || y === undefined ? 1 : holds(op, compareStrings(x, y)) ? 2 : 0
  }
}

export const selStrEqK = (a: Strs, k: string, sel: Int32Array, m: number, out: Int32Array) => {
  let c = 0
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    out[c] = r
    c += +(a[r] === k)
  }
  return c
}

// ---- truth codes -----------------------------------------------------------

/** rows whose truth code is `want` */
export const selTruth = (t: Uint8Array, want: number, sel: Int32Array, m: number, out: Int32Array) => {
  let c = 0
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    out[c] = r
    c += +(t[r] === want)
  }
  return c
}

/** comparison of truth codes (FALSE < TRUE) */
export const cmpTruthVV = (
  op: CompareOp,
  a: Uint8Array,
  b: Uint8Array,
  out: Uint8Array,
  sel: Int32Array,
  m: number
) => {
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    const x = a[r]!
    const y = b[r]!
    out[r] = x === 1 || y === 1 ? 1 : holds(op, x - y) ? 2 : 0
  }
}

// ---- dense variants (the selection is every row 0..n-1) -----------------------------

export const selNumVKDense = (op: CompareOp, a: Float64Array, k: number, n: number, out: Int32Array) => {
  let c = 0
  switch (op) {
    case "=":
      for (let r = 0; r < n; r++) {
        out[c] = r
        c += +(a[r] === k)
      }
      break
    case "<>":
      for (let r = 0; r < n; r++) {
        const x = a[r]!
        out[c] = r
        c += +(x < k) + +(x > k)
      }
      break
    case "<":
      for (let r = 0; r < n; r++) {
        out[c] = r
        c += +(a[r]! < k)
      }
      break
    case "<=":
      for (let r = 0; r < n; r++) {
        out[c] = r
        c += +(a[r]! <= k)
      }
      break
    case ">":
      for (let r = 0; r < n; r++) {
        out[c] = r
        c += +(a[r]! > k)
      }
      break
    case ">=":
      for (let r = 0; r < n; r++) {
        out[c] = r
        c += +(a[r]! >= k)
      }
      break
  }
  return c
}

export const selTruthDense = (t: Uint8Array, want: number, n: number, out: Int32Array) => {
  let c = 0
  for (let r = 0; r < n; r++) {
    out[c] = r
    c += +(t[r] === want)
  }
  return c
}

// ---- dictionary-encoded strings -------------------------------------------------------

/** rows whose code is `id` */
export const selCode = (codes: Int32Array, id: number, sel: Int32Array, m: number, out: Int32Array, dense: boolean) => {
  let c = 0
  if (dense) {
    for (let r = 0; r < m; r++) {
      out[c] = r
      c += +(codes[r] === id)
    }
  } else {
    for (let j = 0; j < m; j++) {
      const r = sel[j]!
      out[c] = r
      c += +(codes[r] === id)
    }
  }
  return c
}

/** rows whose code is in `table` (table[code] === 1); NULL (-1) never */
export const selCodeIn = (
  codes: Int32Array,
  table: Uint8Array,
  sel: Int32Array,
  m: number,
  out: Int32Array,
  dense: boolean
) => {
  let c = 0
  if (dense) {
    for (let r = 0; r < m; r++) {
      out[c] = r
      c += +(table[codes[r]!] === 1)
    }
  } else {
    for (let j = 0; j < m; j++) {
      const r = sel[j]!
      out[c] = r
      c += +(table[codes[r]!] === 1)
    }
  }
  return c
}

/** truth codes of `code ∈ table`: NULL code → 1, member → hit, else miss */
export const codeInTruth = (
  codes: Int32Array,
  table: Uint8Array,
  hit: number,
  miss: number,
  out: Uint8Array,
  sel: Int32Array,
  m: number
) => {
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    const code = codes[r]!
    out[r] = code < 0 ? 1 : table[code] === 1 ? hit : miss
  }
}

// ---- NULL-aware numeric functions -------------------------------------------------------

/** COALESCE / LEAST / GREATEST over numeric vectors (NaN = NULL; equal values keep the first) */
export const foldNumeric = (
  fn: "COALESCE" | "LEAST" | "GREATEST",
  args: ReadonlyArray<Float64Array>,
  out: Float64Array,
  sel: Int32Array,
  m: number
) => {
  const first = args[0]!
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    out[r] = first[r]!
  }
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!
    for (let j = 0; j < m; j++) {
      const r = sel[j]!
      const cur = out[r]!
      const x = a[r]!
      if (x !== x) continue
      if (cur !== cur || (fn === "LEAST" ? x < cur : fn === "GREATEST" ? x > cur : false)) out[r] = x
    }
  }
}

export const nullifNumeric = (a: Float64Array, b: Float64Array, out: Float64Array, sel: Int32Array, m: number) => {
  for (let j = 0; j < m; j++) {
    const r = sel[j]!
    const x = a[r]!
    out[r] = x === b[r] ? Number.NaN : x
  }
}
