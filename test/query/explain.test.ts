/**
 * Explain (src/query/explain.ts) against the evaluator: for generated predicates of every operator
 * and function over generated rows, the explained tree's root result is the evaluator's truth for
 * the row (`CompiledQuery.truth`), every AND/OR/NOT node's result follows from its children's by
 * SQL's three-valued logic, and the tree's text compiles to a predicate with the same answers.
 */
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { because, type ExplainNode, explainNode } from "../../src/query/explain.js"
import { compileQuery, render } from "../../src/query/index.js"
import { expr, rows } from "./generators.js"
import { context, snapshotOf } from "./support.js"

const truthCode = (r: boolean | null) => (r === true ? 2 : r === false ? 0 : 1)

/** AND: the least of its children; OR: the greatest; NOT: the complement (false < null < true) */
const logicHolds = (t: ExplainNode): void => {
  if (t.args === undefined) return
  const codes = t.args.map((c) => truthCode(c.result))
  const expected = t.op === "AND" ? Math.min(...codes) : t.op === "OR" ? Math.max(...codes) : 2 - codes[0]!
  expect(truthCode(t.result), t.expr).toBe(expected)
  t.args.forEach(logicHolds)
}

describe("explain", () => {
  it("gives the evaluator's answer at the root, and three-valued logic at every node", () => {
    fc.assert(
      fc.property(
        rows(6),
        fc.integer({ min: 1, max: 4 }).chain((d) => expr("boolean", d)),
        (data, e) => {
          const snap = snapshotOf(data)
          const ctx = context({ tickers: [...snap.tickers, "SPY", "T0", "T3", "QQQ"] })
          const q = compileQuery(render(e), ctx)
          if (Either.isLeft(q)) throw new Error(`${render(e)}: ${q.left.message}`)
          const truth = q.right.truth(snap)
          for (let row = 0; row < snap.size; row++) {
            const tree = explainNode(q.right.ir, snap, row)
            expect(truthCode(tree.result), `${q.right.text} at ${snap.tickers[row]}`).toBe(truth[row])
            logicHolds(tree)
            expect(because(tree).length).toBeGreaterThan(0)
          }
          // the tree's text is the same predicate again (spelled from the typed tree: aliases resolved)
          const again = compileQuery(explainNode(q.right.ir, snap, 0).expr, ctx)
          if (Either.isLeft(again)) throw new Error(`${explainNode(q.right.ir, snap, 0).expr}: ${again.left.message}`)
          expect([...again.right.truth(snap)], q.right.text).toEqual([...truth])
        }
      ),
      { numRuns: 300 }
    )
  })

  it("says why in a sentence a person reads", () => {
    const snap = snapshotOf([
      { ticker: "T0", name: "A", sector: "Tech", price: 10, rsi_14: 42.13, golden_cross: false, above_sma_50: true }
    ] as any)
    const ctx = context({ tickers: ["T0"] })
    const explain = (q: string) => {
      const c = compileQuery(q, ctx)
      if (Either.isLeft(c)) throw new Error(c.left.message)
      return explainNode(c.right.ir, snap, 0)
    }
    const tree = explain("rsi_14 < 30 AND price > 5")
    expect(tree).toMatchObject({
      op: "AND",
      result: false,
      args: [
        {
          expr: "rsi_14 < 30",
          op: "<",
          result: false,
          operands: [
            { expr: "rsi_14", value: 42.13 },
            { expr: "30", value: 30 }
          ]
        },
        { expr: "price > 5", result: true }
      ]
    })
    expect(because(tree)).toBe("rsi_14 = 42.13 is not < 30")
    expect(because(explain("price > 5 OR rsi_14 < 30"))).toBe("price = 10 is > 5")
    expect(because(explain("pe_ratio > 10"))).toBe("pe_ratio = NULL is unknown (NULL): > 10")
    expect(because(explain("golden_cross"))).toBe("golden_cross does not hold")
  })
})
