import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type CompiledQuery, compileQuery, render } from "../../src/query/index.js"
import { expr, rows } from "./generators.js"
import { context, snapshotOf } from "./support.js"

const tracked = [...Array.from({ length: 40 }, (_, i) => `T${i}`), "SPY", "QQQ"]
const ctx = context({ tickers: tracked })

const compile = (q: string): CompiledQuery => {
  const r = compileQuery(q, ctx)
  if (Either.isLeft(r)) throw new Error(`${q}: ${r.left.message}`)
  return r.right
}

describe("q evaluator", () => {
  it("selects exactly the TRUE rows, over any subset of rows", () => {
    fc.assert(
      fc.property(
        rows(40),
        fc.integer({ min: 1, max: 5 }).chain((d) => expr("boolean", d)),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        (data, e, keep) => {
          const snap = snapshotOf(data)
          const q = compile(render(e))
          const values = q.values(snap)
          const subset = Int32Array.from(keep.flatMap((k, i) => (k ? [i] : [])))
          const expected = Array.from(subset).filter((r) => values[r] === true)
          expect(Array.from(q.evaluate(snap, subset))).toEqual(expected)
          // evaluateInto writes the same rows into a reused, caller-owned buffer
          const buffer = new Int32Array(snap.size).fill(-7)
          const n = q.evaluateInto(snap, buffer, subset)
          expect(Array.from(buffer.subarray(0, n))).toEqual(expected)
          expect(q.evaluateInto(snap, buffer)).toBe(values.filter((v) => v === true).length)
          if (subset.length > 0) {
            const small = new Int32Array(subset.length - 1)
            expect(() => q.evaluateInto(snap, small, subset)).toThrow("output buffer too small")
          }
          // NOT q selects exactly the FALSE rows
          const negated = compile(`NOT (${q.text})`)
          expect(Array.from(negated.evaluate(snap, subset))).toEqual(
            Array.from(subset).filter((r) => values[r] === false)
          )
          // truth codes and mask agree with the values
          const truth = q.truth(snap)
          const mask = q.mask(snap)
          values.forEach((v, r) => {
            expect(truth[r]).toBe(v === null ? 1 : v ? 2 : 0)
            expect(mask[r]).toBe(v === true ? 1 : 0)
          })
        }
      ),
      { numRuns: 300 }
    )
  })

  it("answers ticker equality and ticker IN from the index, alone or in a conjunction", () => {
    const snap = snapshotOf(
      Array.from({ length: 20 }, (_, i) => ({ ticker: `T${i}`, price: i, name: `n${i}`, golden_cross: i % 2 === 0 }))
    )
    expect(compile("ticker = 'T3'").matches(snap)).toEqual(["T3"])
    expect(compile("ticker = 'T3' AND (price > 5)").matches(snap)).toEqual([])
    expect(compile("price > 5 AND ticker = 'T13'").matches(snap)).toEqual(["T13"])
    expect(compile("'T7' = ticker AND golden_cross IS FALSE").matches(snap)).toEqual(["T7"])
    expect(compile("ticker IN ('T9', 'T1', 'ZZ', NULL) AND price < 5").matches(snap)).toEqual(["T1"])
    expect(compile("ticker = 'nope'").matches(snap)).toEqual([])
    expect(compile("ticker IN ('T1', 'T1', 'T12')").matches(snap)).toEqual(["T1", "T12"])
    expect(compile("ticker IN ('T1', 'T1') AND price >= 0").matches(snap)).toEqual(["T1"])
    const at = (t: string) => snap.index.get(t)!
    const subset = Int32Array.from([at("T1"), at("T2"), at("T3")].sort((a, b) => a - b))
    expect(Array.from(compile("ticker IN ('T2', 'T9')").evaluate(snap, subset))).toEqual([at("T2")])
  })

  it("evaluates the same compiled predicate against successive snapshots", () => {
    const q = compile("price > spy.price AND NOT golden_cross")
    const a = snapshotOf([
      { ticker: "SPY", price: 10, golden_cross: false },
      { ticker: "X", price: 11, golden_cross: false }
    ])
    const b = snapshotOf([
      { ticker: "SPY", price: 12, golden_cross: false },
      { ticker: "X", price: 11, golden_cross: false },
      { ticker: "Y", price: 13, golden_cross: true }
    ])
    expect(q.matches(a)).toEqual(["X"])
    expect(q.matches(b)).toEqual([])
    expect(q.matches(a)).toEqual(["X"])
  })

  it("evaluates constant predicates", () => {
    const snap = snapshotOf([{ ticker: "A" }, { ticker: "B" }])
    expect(compile("TRUE").matches(snap)).toEqual(["A", "B"])
    expect(compile("1 / 0 IS NULL").matches(snap)).toEqual(["A", "B"])
    expect(compile("NULL").matches(snap)).toEqual([])
    expect(Array.from(compile("NULL").truth(snap))).toEqual([1, 1])
    expect(compile("spy.price IS NULL").matches(snap)).toEqual(["A", "B"])
  })
})
