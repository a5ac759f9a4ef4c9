import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { compileQuery, type QueryError } from "../../src/query/index.js"
import { context, snapshotOf } from "./support.js"

const compile = (q: string, signals: Record<string, string>, extra: { mode?: "query" | "expr"; self?: string } = {}) =>
  compileQuery(q, context({ signals, ...extra }))

const ok = (q: string, signals: Record<string, string>) => {
  const r = compile(q, signals)
  if (Either.isLeft(r)) throw new Error(r.left.message)
  return r.right
}

const failure = (
  q: string,
  signals: Record<string, string>,
  extra: { mode?: "query" | "expr"; self?: string } = {}
) => {
  const r = compile(q, signals, extra)
  if (Either.isRight(r)) throw new Error(`expected ${q} to fail`)
  return r.left as QueryError
}

const chain = (n: number): Record<string, string> => {
  const s: Record<string, string> = { s1: "price > 1" }
  for (let i = 2; i <= n; i++) s[`s${i}`] = `s${i - 1} AND price < ${i * 100}`
  return s
}

describe("q custom signals", () => {
  it("inlines the account's signals, parenthesized, and renders the expansion", () => {
    const c = ok("hot OR cheap", { hot: "relative_volume > 2 OR day_change_pct > 0.05", cheap: "pe_ratio < 10" })
    expect(c.text).toBe("(relative_volume > 2 OR day_change_pct > 0.05) OR (pe_ratio < 10)")
    expect(c.signals).toEqual(["cheap", "hot"])
    expect(c.columns).toEqual(["day_change_pct", "pe_ratio", "relative_volume"])
    // the frozen text compiles on its own, without the signals, to the same predicate
    const frozen = ok(c.text, {})
    expect(frozen.key).toBe(c.key)
    const snap = snapshotOf([
      { ticker: "A", relative_volume: 3, day_change_pct: 0, pe_ratio: 20, price: 1 },
      { ticker: "B", relative_volume: 1, day_change_pct: 0, pe_ratio: 5, price: 1 },
      { ticker: "C", relative_volume: 1, day_change_pct: 0, pe_ratio: null, price: 1 }
    ])
    expect(c.matches(snap)).toEqual(["A", "B"])
    expect(frozen.matches(snap)).toEqual(["A", "B"])
  })

  it("binds an inlined signal as a unit (parentheses are kept)", () => {
    const c = ok("NOT loose", { loose: "price > 1 OR price < -1" })
    expect(c.text).toBe("NOT (price > 1 OR price < -1)")
  })

  it("inlines recursively up to depth 5 and refuses depth 6", () => {
    expect(Either.isRight(compile("s5", chain(5)))).toBe(true)
    expect(failure("price > 0 AND s6", chain(6))).toMatchObject({
      code: "recursion_depth_exceeded",
      errors: [{ code: "recursion_depth_exceeded", pos: 14 }]
    })
    // in a custom signal's own expr the body is level 1: four more levels fit
    expect(Either.isRight(compile("s4", chain(4), { mode: "expr", self: "new_one" }))).toBe(true)
    expect(failure("s5", chain(5), { mode: "expr", self: "new_one" })).toMatchObject({
      code: "recursion_depth_exceeded"
    })
  })

  it("detects cycles and reports the path", () => {
    const err = failure("price > 1 AND a", { a: "b OR price > 2", b: "c", c: "a AND price > 3" })
    expect(err.code).toBe("recursion_depth_exceeded")
    expect(err.errors[0]).toMatchObject({ code: "cycle", pos: 14 })
    expect(err.errors[0]!.message).toContain("a → b → c → a")
    // a signal being patched to reference (through another) itself
    const patched = failure("other AND price > 1", { me: "price > 0", other: "me" }, { mode: "expr", self: "me" })
    expect(patched.errors[0]).toMatchObject({ code: "cycle" })
    expect(patched.errors[0]!.message).toContain("me → other → me")
  })

  it("reports errors inside a signal's body at the reference, naming the signal", () => {
    const err = failure("price > 1 AND broken", { broken: "gone_signal AND price > 1" })
    expect(err).toMatchObject({ code: "invalid_query", errors: [{ code: "unknown_column", pos: 14 }] })
    expect(err.errors[0]!.message).toContain("custom signal 'broken'")
    const typed = failure("numeric_one", { numeric_one: "price + 1" })
    expect(typed).toMatchObject({ code: "compile_failed", errors: [{ code: "not_boolean" }] })
  })

  it("does not resolve a name that is a column, and suggests signal names", () => {
    expect(ok("price > 1", { price: "FALSE" }).text).toBe("price > 1")
    expect(failure("hott", { hot: "price > 1" }).errors[0]!.suggestion).toBe("hot")
  })

  it("qualifies a signal by a ticker: every column of its body is read from that ticker's row", () => {
    const c = ok("relative_volume > 1 AND spy.trending", { trending: "price > 400 AND NOT golden_cross" })
    expect(c.text).toBe("relative_volume > 1 AND (SPY.price > 400 AND NOT SPY.golden_cross)")
    const snap = snapshotOf([
      { ticker: "SPY", price: 500, golden_cross: false, relative_volume: 1 },
      { ticker: "X", price: 1, golden_cross: true, relative_volume: 2 }
    ])
    expect(c.matches(snap)).toEqual(["X"])
  })
})
