/**
 * The cross-sectional functions PCT_RANK, RANK and ZSCORE in the evaluator: ties, NULLs, partitions
 * (a single row, a NULL partition), a deviation of 0, the scope (the rows ranked among) apart from the
 * rows evaluated, the memo per snapshot and scope, explain, and the argument checks.
 */
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { rankCounters } from "../../src/query/evaluate/rank.js"
import { explainNode } from "../../src/query/explain.js"
import { compileExpression, compileQuery, type Value } from "../../src/query/index.js"
import { context, type Row, snapshotOf } from "./support.js"

const base = {
  name: "n",
  volume_today: 1,
  relative_volume: 1,
  day_change_pct: 0,
  market_cap: null,
  pe_ratio: null,
  rsi_14: null,
  eps: null,
  golden_cross: false,
  above_sma_50: false,
  earnings_this_week: null
}

const rowsOf = (cells: ReadonlyArray<readonly [string, number | null, string | null]>): ReadonlyArray<Row> =>
  cells.map(([ticker, price, sector]) => ({ ...base, ticker, price, sector }))

// tickers in row order A…F
const snap = snapshotOf(
  rowsOf([
    ["A", 10, "Tech"],
    ["B", 20, "Tech"],
    ["C", 20, "Energy"],
    ["D", null, "Tech"],
    ["E", 5, null],
    ["F", 30, "Tech"]
  ])
)

const values = (text: string, scope?: ReadonlyArray<string>, rows?: ReadonlyArray<number>): Array<Value> => {
  const r = compileExpression(text, context())
  if (Either.isLeft(r)) throw new Error(`${text}: ${r.left.message}`)
  const scopeRows = scope === undefined ? undefined : Int32Array.from(scope.map((t) => snap.index.get(t)!))
  return r.right.values(snap, rows, scopeRows)
}

const failure = (text: string) => {
  const r = compileQuery(text, context())
  if (Either.isRight(r)) throw new Error(`${text} compiled`)
  return r.left
}

describe("PCT_RANK", () => {
  it("is percent_rank() ascending among the rows with a value: ties share, NULL stays NULL", () => {
    // non-null prices 10, 20, 20, 5, 30 (n = 5): rows below / 4
    expect(values("pct_rank(price)")).toEqual([1 / 4, 2 / 4, 2 / 4, null, 0, 1])
  })

  it("ranks within the row's partition; NULL is a partition of its own, a single row is 0", () => {
    // Tech: 10, 20, 30 (D is NULL); Energy: 20 alone; NULL sector: 5 alone
    expect(values("PCT_RANK(price, sector)")).toEqual([0, 0.5, 0, null, 0, 1])
  })

  it("ranks among the scope only; rows outside it are NULL", () => {
    expect(values("pct_rank(price)", ["A", "B", "F"])).toEqual([0, 0.5, null, null, null, 1])
  })
})

describe("RANK", () => {
  it("is rank() descending: 1 is the highest, ties share a rank and leave a gap", () => {
    expect(values("rank(price)")).toEqual([4, 2, 2, null, 5, 1])
  })

  it("within partitions", () => {
    expect(values("Rank(price, sector)")).toEqual([3, 2, 1, null, 1, 1])
  })

  it("of an expression, and of a constant (every row ties)", () => {
    expect(values("rank(-price)")).toEqual([2, 3, 3, null, 1, 5])
    expect(values("rank(1)")).toEqual([1, 1, 1, 1, 1, 1])
    expect(values("rank(NULL)")).toEqual([null, null, null, null, null, null])
  })
})

describe("ZSCORE", () => {
  it("is (x − mean) / stddev_pop, rounded to 10 decimals", () => {
    const xs = [10, 20, 20, 5, 30]
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length
    const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length)
    const z = (x: number) => Math.round(((x - mean) / sd) * 1e10) / 1e10
    const got = values("zscore(price)")
    expect(got[3]).toBeNull()
    for (const [i, x] of [10, 20, 20, null, 5, 30].entries()) if (x !== null) expect(got[i]).toBe(z(x))
  })

  it("is NULL when the deviation is 0 (a single row, or equal values)", () => {
    // Energy and the NULL sector have one row each; Tech 10, 20, 30 → −1.2247…, 0, 1.2247…
    const got = values("zscore(price, sector)")
    expect(got[2]).toBeNull()
    expect(got[4]).toBeNull()
    expect(got[1]).toBe(0)
    expect(got[0]).toBe(-1.2247448714)
    expect(got[5]).toBe(1.2247448714)
    expect(values("zscore(price)", ["B", "C"])).toEqual([null, null, null, null, null, null])
  })

  it("does not overflow on extreme magnitudes", () => {
    const wide = snapshotOf(
      rowsOf([
        ["A", 1e299, null],
        ["B", -1e299, null],
        ["C", 5e-324, null]
      ])
    )
    const r = compileExpression("zscore(price)", context())
    if (Either.isLeft(r)) throw new Error(r.left.message)
    expect(r.right.values(wide)).toEqual([1.2247448714, -1.2247448714, 0])
  })
})

/** ZSCORE the way it was first computed, one partition at a time: the reference the one-pass form must match to the bit */
const zscoreReference = (cells: ReadonlyArray<readonly [number | null, string | null]>): Array<number | null> => {
  const out: Array<number | null> = cells.map(() => null)
  const parts = new Map<string | null, Array<number>>()
  cells.forEach(([x, p], i) => {
    if (x !== null) parts.set(p, [...(parts.get(p) ?? []), i])
  })
  const sum = (vs: ReadonlyArray<number>) => {
    let s = 0
    let c = 0
    for (const v of vs) {
      const t = s + v
      c += Math.abs(s) >= Math.abs(v) ? s - t + v : v - t + s
      s = t
    }
    return s + c
  }
  for (const pos of parts.values()) {
    const xs = pos.map((i) => cells[i]![0]!)
    if (Math.min(...xs) === Math.max(...xs)) continue
    const s = 2 ** Math.ceil(Math.log2(Math.max(...xs.map(Math.abs))))
    const vals = xs.map((v) => v / s)
    const mean = sum(vals) / vals.length
    const sd = Math.sqrt(sum(vals.map((v) => (v - mean) ** 2)) / vals.length)
    pos.forEach((i, k) => {
      const z = (vals[k]! - mean) / sd
      const r = (z < 0 ? -Math.round(-z * 1e10) : Math.round(z * 1e10)) / 1e10 + 0
      out[i] = Number.isNaN(r) ? null : r // NaN reads as NULL (a magnitude above 2^1023 scales to Infinity)
    })
  }
  return out
}

describe("ZSCORE in one pass over every partition", () => {
  it("agrees to the bit with a partition-at-a-time computation (ties, NULLs, a NULL partition, zeros)", () => {
    const value = fc.oneof(
      fc.constant(null),
      fc.constantFrom(0, -0, 1, 2, 2.5, -3, 1e-300, 1e300),
      fc.double({ noNaN: true, noDefaultInfinity: true })
    )
    const sector = fc.constantFrom<string | null>("Tech", "Energy", "Health", null)
    fc.assert(
      fc.property(fc.array(fc.tuple(value, sector), { minLength: 1, maxLength: 40 }), (cells) => {
        const s = snapshotOf(cells.map(([price, sec], i) => ({ ...base, ticker: `T${i}`, price, sector: sec })))
        // the rows in ticker order, as snapshotOf orders them
        const byRow = s.tickers.map((t) => cells[Number(t.slice(1))]!)
        for (const [text, part] of [
          ["zscore(price, sector)", true],
          ["zscore(price)", false]
        ] as const) {
          const r = compileExpression(text, context())
          if (Either.isLeft(r)) throw new Error(r.left.message)
          const want = zscoreReference(byRow.map(([x, p]) => [x, part ? p : null] as const))
          expect(r.right.values(s)).toEqual(want)
        }
      }),
      { numRuns: 300 }
    )
  })
})

/** a price cell: NULL, ties, -0, any double */
const cellValue = fc.oneof(fc.constant(null), fc.constantFrom(0, -0, 1, 2, 2, -3), fc.double({ noNaN: true }))
const cellSector = fc.constantFrom<string | null>("Tech", "Energy", null)

/** RANK and PCT_RANK of `cells` (price, sector), with and without the partition, against counting the rows below and above */
const expectRanksByCounting = (cells: ReadonlyArray<readonly [number | null, string | null]>) => {
  const s = snapshotOf(cells.map(([price, sec], i) => ({ ...base, ticker: `T${i}`, price, sector: sec })))
  const byRow = s.tickers.map((t) => cells[Number(t.slice(1))]!)
  for (const part of [true, false]) {
    const peers = (i: number) => byRow.filter(([x, p]) => x !== null && (!part || p === byRow[i]![1])).map(([x]) => x!)
    const rank = byRow.map(([x], i) => (x === null ? null : 1 + peers(i).filter((y) => y > x).length))
    const pct = byRow.map(([x], i) => {
      if (x === null) return null
      const k = peers(i).length
      return k === 1 ? 0 : peers(i).filter((y) => y < x).length / (k - 1)
    })
    for (const [text, want] of [
      [part ? "rank(price, sector)" : "rank(price)", rank],
      [part ? "pct_rank(price, sector)" : "pct_rank(price)", pct]
    ] as const) {
      const r = compileExpression(text, context())
      if (Either.isLeft(r)) throw new Error(r.left.message)
      expect(r.right.values(s)).toEqual(want)
    }
  }
}

describe("RANK and PCT_RANK from the one sorted order", () => {
  it("agree with counting the rows below and above in the partition (ties, NULLs, -0, a NULL partition)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(cellValue, cellSector), { minLength: 1, maxLength: 40 }), expectRanksByCounting),
      { numRuns: 300 }
    )
  })

  it("stay those of counting the rows below and above from snapshot to snapshot as a few values move, or many", () => {
    const moves = fc.array(fc.array(fc.tuple(fc.nat(), cellValue), { maxLength: 6 }), { minLength: 1, maxLength: 6 })
    fc.assert(
      fc.property(
        fc.array(fc.tuple(cellValue, cellSector), { minLength: 1, maxLength: 200 }),
        moves,
        (start, steps) => {
          let cells = start
          // the same size every step: the same scope array, so each step's order is the last one's, moved
          for (const step of [[], ...steps]) {
            cells = cells.map((c) => [...c] as [number | null, string | null])
            for (const [at, x] of step) cells[at % cells.length]![0] = x
            expectRanksByCounting(cells)
          }
        }
      ),
      { numRuns: 300 }
    )
  })
})

describe("the scope and the rows evaluated", () => {
  it("ranks among the scope whatever subset of rows is evaluated", () => {
    const q = compileQuery("rank(price) = 1", context())
    if (Either.isLeft(q)) throw new Error(q.left.message)
    expect(q.right.crossSectional).toBe(true)
    // only A and B evaluated, F (the highest) in scope: neither is ranked 1
    expect(q.right.matches(snap, Int32Array.from([0, 1]))).toEqual([])
    // the same rows, ranked among A and B only: B is the highest
    expect(q.right.matches(snap, Int32Array.from([0, 1]), Int32Array.from([0, 1]))).toEqual(["B"])
    // an AND narrowing to one ticker still ranks it among the whole scope
    const one = compileQuery("ticker = 'B' AND rank(price) <= 2", context())
    if (Either.isLeft(one)) throw new Error(one.left.message)
    expect(one.right.matches(snap)).toEqual(["B"])
    expect(one.right.matches(snap, undefined, Int32Array.from([1, 2, 5]))).toEqual(["B"])
    expect(one.right.matches(snap, undefined, Int32Array.from([0, 2, 4]))).toEqual([])
  })

  it("a query without one is not cross-sectional", () => {
    const q = compileQuery("price > 1", context())
    if (Either.isLeft(q)) throw new Error(q.left.message)
    expect(q.right.crossSectional).toBe(false)
  })

  it("computes a ranking once per snapshot, scope and call, shared by every predicate", () => {
    const texts = [
      "pct_rank(price, sector) > 0.5",
      "PCT_RANK(price, sector) < 0.2 AND price > 1",
      "pct_rank(price,sector)>=0"
    ]
    const qs = texts.map((t) => {
      const q = compileQuery(t, context())
      if (Either.isLeft(q)) throw new Error(q.left.message)
      return q.right
    })
    const fresh = snapshotOf(
      rowsOf([
        ["A", 1, "X"],
        ["B", 2, "X"],
        ["C", 3, "Y"]
      ])
    )
    const scope = Int32Array.from([0, 1, 2])
    const before = rankCounters.computed
    for (const q of qs) q.evaluate(fresh, undefined, scope)
    expect(rankCounters.computed - before).toBe(1)
    // another scope array is another ranking
    for (const q of qs) q.evaluate(fresh)
    expect(rankCounters.computed - before).toBe(2)
  })
})

describe("explain", () => {
  it("shows the rank's value at the row, ranked among the scope", () => {
    const q = compileQuery("pct_rank(price, sector) > 0.4", context())
    if (Either.isLeft(q)) throw new Error(q.left.message)
    const b = snap.index.get("B")!
    expect(explainNode(q.right.ir, snap, b)).toMatchObject({
      op: ">",
      result: true,
      operands: [{ expr: "PCT_RANK(price, sector)", value: 0.5 }, { value: 0.4 }]
    })
    // among A and B only, B is the highest of Tech
    expect(explainNode(q.right.ir, snap, b, Int32Array.from([0, 1]))).toMatchObject({
      result: true,
      operands: [{ value: 1 }, { value: 0.4 }]
    })
  })
})

describe("checks", () => {
  it("refuses a partition that is not a static text column, naming the argument and its position", () => {
    for (const [text, pos] of [
      ["pct_rank(price, price) > 0.5", 16],
      ["rank(price, 'sector') > 1", 12],
      ["rank(price, name) > 1", 12],
      ["zscore(price, lower(sector)) > 1", 14]
    ] as const) {
      const e = failure(text)
      expect(e.code, text).toBe("invalid_query")
      expect(e.errors, text).toMatchObject([{ code: "invalid_argument", pos }])
      expect(e.message).toContain("second argument (the partition) must be one of the static text columns")
    }
  })

  it("takes a numeric argument and one or two arguments", () => {
    expect(failure("rank(sector) > 1")).toMatchObject({ code: "compile_failed", errors: [{ code: "type_mismatch" }] })
    expect(failure("rank() > 1")).toMatchObject({ errors: [{ code: "wrong_arity" }] })
    expect(failure("rank(price, sector, sector) > 1").message).toContain("takes 1 to 2 argument(s)")
    expect(failure("zscore(prise) > 1")).toMatchObject({ errors: [{ code: "unknown_column", suggestion: "price" }] })
  })
})

describe("a call read at a few rows", () => {
  it("has the values of the call over its whole scope (ties, NULLs, -0, partitions, a scope apart from the rows)", () => {
    const calls = ["pct_rank(price)", "rank(price)", "zscore(price)"].flatMap((c) => [c, c.replace(")", ", sector)")])
    fc.assert(
      fc.property(
        fc.array(fc.tuple(cellValue, cellSector), { minLength: 8, maxLength: 80 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 2 }),
        fc.boolean(),
        (cells, picks, scoped) => {
          const rowsOfCells = () =>
            cells.map(([price, sec], i) => ({ ...base, ticker: `T${String(i).padStart(3, "0")}`, price, sector: sec }))
          const n = cells.length
          const scope = scoped ? Int32Array.from({ length: n }, (_, i) => i).filter((i) => i % 3 !== 1) : undefined
          const rows = [...new Set(picks.map((p) => p % n))].sort((a, b) => a - b)
          for (const text of calls) {
            const r = compileExpression(text, context())
            if (Either.isLeft(r)) throw new Error(r.left.message)
            // two snapshots of the same rows: the memo of one does not serve the other; at most 2 rows of a
            // scope of 5 or more are read at those rows alone (up to half of it)
            const whole = r.right.values(snapshotOf(rowsOfCells()), undefined, scope)
            const before = rankCounters.sparseRows
            const few = r.right.values(snapshotOf(rowsOfCells()), rows, scope)
            expect(rankCounters.sparseRows - before).toBe(rows.length)
            expect(few).toEqual(rows.map((i) => whole[i]))
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("is computed over the whole scope once the rows read alone at a snapshot pass half of it", () => {
    const q = compileQuery("pct_rank(price) > 0.5", context())
    if (Either.isLeft(q)) throw new Error(q.left.message)
    const fresh = snapshotOf(rowsOf(Array.from({ length: 8 }, (_, i) => [`T${i}`, i, "X"] as const)))
    const before = { ...rankCounters }
    // two rows, then two more: half of the 8 read alone; the next read computes the ranking
    expect([...q.right.evaluate(fresh, Int32Array.from([6, 7]))]).toEqual([6, 7])
    q.right.evaluate(fresh, Int32Array.from([0, 1]))
    expect(rankCounters.sparseRows - before.sparseRows).toBe(4)
    expect(rankCounters.computed - before.computed).toBe(0)
    expect([...q.right.evaluate(fresh, Int32Array.from([2, 5]))]).toEqual([5])
    expect(rankCounters.computed - before.computed).toBe(1)
    expect(rankCounters.sparseRows - before.sparseRows).toBe(4)
  })
})
