import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { compileExpression, compileQuery, type Value } from "../../src/query/index.js"
import { compileLike } from "../../src/query/like.js"
import { compareStrings } from "../../src/query/semantics.js"
import { context, snapshotOf } from "./support.js"

const row = snapshotOf([
  {
    ticker: "ONE",
    name: "Société Générale",
    sector: null,
    price: 10,
    volume_today: 0,
    relative_volume: 1,
    day_change_pct: -0.5,
    market_cap: null,
    pe_ratio: null,
    rsi_14: 50,
    eps: 2,
    golden_cross: true,
    above_sma_50: false,
    earnings_this_week: null
  }
])

const value = (q: string): Value => {
  const r = compileExpression(q, context())
  if (Either.isLeft(r)) throw new Error(`${q}: ${r.left.message}`)
  return r.right.values(row)[0]!
}

describe("q semantics", () => {
  it("computes in doubles: literals are float8, 5/2 is 2.5", () => {
    expect(value("5 / 2")).toBe(2.5)
    expect(value("1 / 3")).toBe(1 / 3)
    expect(value("0.1 + 0.2")).toBe(0.1 + 0.2)
    expect(value("price * 3")).toBe(30)
    expect(value("-price")).toBe(-10)
  })

  it("makes division and modulo by zero NULL instead of failing", () => {
    expect(value("price / 0")).toBeNull()
    expect(value("price / volume_today")).toBeNull()
    expect(value("price % 0")).toBeNull()
    expect(value("(price / 0) IS NULL")).toBe(true)
  })

  it("defines % as a - b * trunc(a / b)", () => {
    expect(value("7 % 3")).toBe(1)
    expect(value("-7 % 3")).toBe(-1)
    expect(value("7 % -3")).toBe(1)
    expect(value("7.5 % 2")).toBe(1.5)
  })

  it("turns overflow into NULL and underflow into 0", () => {
    expect(value("1e200 * 1e200")).toBeNull()
    expect(value("9e299 + 9e299")).toBeNull()
    expect(value("1e-200 * 1e-200")).toBe(0)
    expect(value("1e200 / 1e-200")).toBeNull()
    expect(value("1e-200 / 1e200")).toBe(0)
    expect(value("1e150 * 1e149")).toBe(1e150 * 1e149)
  })

  it("rounds halves to even; TRUNC, FLOOR, CEIL, SIGN, ABS", () => {
    expect([value("ROUND(2.5)"), value("ROUND(3.5)"), value("ROUND(-2.5)"), value("ROUND(2.6)")]).toEqual([2, 4, -2, 3])
    expect([value("TRUNC(-2.7)"), value("FLOOR(-2.5)"), value("CEIL(-2.5)"), value("CEILING(2.1)")]).toEqual([
      -2, -3, -2, 3
    ])
    expect([value("SIGN(-3)"), value("SIGN(0)"), value("SIGN(day_change_pct)"), value("ABS(-4)")]).toEqual([
      -1, 0, -1, 4
    ])
    expect(value("ABS(pe_ratio)")).toBeNull()
  })

  it("follows three-valued logic", () => {
    expect(value("NULL AND FALSE")).toBe(false)
    expect(value("NULL AND TRUE")).toBeNull()
    expect(value("NULL OR TRUE")).toBe(true)
    expect(value("NULL OR FALSE")).toBeNull()
    expect(value("NOT NULL")).toBeNull()
    expect(value("pe_ratio > 1")).toBeNull()
    expect(value("NOT (pe_ratio > 1)")).toBeNull()
    expect(value("NULL = NULL")).toBeNull()
    expect(value("pe_ratio IS NULL")).toBe(true)
    expect(value("earnings_this_week IS NOT TRUE")).toBe(true)
    expect(value("earnings_this_week IS FALSE")).toBe(false)
    expect(value("price IN (1, NULL)")).toBeNull()
    expect(value("price IN (10, NULL)")).toBe(true)
    expect(value("price NOT IN (1, NULL)")).toBeNull()
    expect(value("price BETWEEN 1 AND NULL")).toBeNull()
    expect(value("price BETWEEN 20 AND NULL")).toBe(false)
    expect(value("price NOT BETWEEN 20 AND NULL")).toBe(true)
    // a predicate that is NULL does not match, and neither does its negation
    const q = compileQuery("NOT (pe_ratio > 1)", context())
    if (Either.isLeft(q)) throw q.left
    expect(q.right.matches(row)).toEqual([])
  })

  it("handles the NULL-skipping functions", () => {
    expect(value("COALESCE(pe_ratio, market_cap, 7)")).toBe(7)
    expect(value("LEAST(pe_ratio, 3, price)")).toBe(3)
    expect(value("GREATEST(pe_ratio, NULL)")).toBeNull()
    expect(value("NULLIF(price, 10)")).toBeNull()
    expect(value("NULLIF(price, pe_ratio)")).toBe(10)
  })

  it('compares strings byte-wise (COLLATE "C")', () => {
    expect(value("'Z' < 'a'")).toBe(true)
    expect(value("'z' < 'é'")).toBe(true)
    expect(value("'\uffff' < '😀'")).toBe(true)
    expect(value("'ab' < 'abc'")).toBe(true)
    expect(value("GREATEST('b', 'B', 'a')")).toBe("b")
    expect(compareStrings("\ue000", "😀")).toBe(-1)
    expect(compareStrings("😀", "\ud83d\ude01")).toBe(-1)
  })

  it("folds ASCII case only: ILIKE, LOWER, UPPER", () => {
    expect(value("'ABC' ILIKE 'abc'")).toBe(true)
    expect(value("'ÉCOLE' ILIKE 'école'")).toBe(false)
    expect(value("'ÉCOLE' ILIKE 'École'")).toBe(true)
    expect(value("name ILIKE 'SOCIÉTÉ%'")).toBe(false)
    expect(value("name ILIKE 'SOCIé%'")).toBe(true)
    expect(value("LOWER('ÀB')")).toBe("Àb")
    expect(value("UPPER('àb')")).toBe("àB")
    expect(value("LENGTH('😀é')")).toBe(2)
  })

  it("matches LIKE patterns as PostgreSQL does", () => {
    const like = (s: string, p: string) => {
      const m = compileLike(p)
      if (typeof m === "string") throw new Error(m)
      return m.test(s)
    }
    expect(like("abc", "a%")).toBe(true)
    expect(like("abc", "%c")).toBe(true)
    expect(like("abc", "%b%")).toBe(true)
    expect(like("abc", "a_c")).toBe(true)
    expect(like("a😀c", "a_c")).toBe(true)
    expect(like("ac", "a_c")).toBe(false)
    expect(like("a%c", "a\\%c")).toBe(true)
    expect(like("abc", "a\\%c")).toBe(false)
    expect(like("a\nb", "a_b")).toBe(true)
    expect(like("", "%")).toBe(true)
    expect(like("", "")).toBe(true)
    expect(like("x", "")).toBe(false)
    expect(like("aXbXc", "%b%c")).toBe(true)
    expect(like("abab", "%ab_b")).toBe(true)
    expect(like("xabb", "%ab_b")).toBe(false)
    expect(like("xabcb", "%ab_b")).toBe(true)
    expect(like("ababb", "%ab_b")).toBe(false)
    expect(compileLike("abc\\")).toBeTypeOf("string")
    // pathological patterns stay fast
    const started = performance.now()
    expect(like("a".repeat(4000), `${"%a".repeat(1000)}b`)).toBe(false)
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it("reads a cross-ticker value from the same snapshot, NULL when absent", () => {
    const snap = snapshotOf([
      { ticker: "SPY", relative_volume: 1.5, price: 500 },
      { ticker: "X", relative_volume: 2, price: 5 },
      { ticker: "Y", relative_volume: 1, price: 5 }
    ])
    const q = compileQuery("relative_volume > spy.relative_volume", context())
    if (Either.isLeft(q)) throw q.left
    expect(q.right.matches(snap)).toEqual(["X"])
    const absent = compileQuery(
      "relative_volume > qqq.relative_volume OR qqq.price IS NULL",
      context({ tickers: ["QQQ"] })
    )
    if (Either.isLeft(absent)) throw absent.left
    expect(absent.right.matches(snap)).toEqual(["SPY", "X", "Y"])
  })

  it("reads a column the snapshot lacks as NULL", () => {
    const snap = snapshotOf([{ ticker: "A", price: 1 }], [])
    const q = compileQuery("pe_ratio IS NULL AND golden_cross IS NULL AND sector IS NULL AND ticker = 'A'", context())
    if (Either.isLeft(q)) throw q.left
    expect(q.right.matches(snap)).toEqual(["A"])
  })
})
