/**
 * The request guard in front of every endpoint (src/api/bodyGuard.ts): a JSON
 * text is refused exactly when it nests deeper than MAX_JSON_DEPTH or one of
 * its strings (or keys) holds a NUL, whatever the escapes around it.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { jsonHazard, MAX_JSON_DEPTH } from "../../src/api/bodyGuard.js"

const depth = (v: unknown): number =>
  v !== null && typeof v === "object" ? 1 + Math.max(0, ...Object.values(v as Record<string, unknown>).map(depth)) : 0

const hasNul = (v: unknown): boolean =>
  typeof v === "string"
    ? v.includes("\u0000")
    : v !== null && typeof v === "object"
      ? Object.entries(v as Record<string, unknown>).some(([k, x]) => k.includes("\u0000") || hasNul(x))
      : false

const nest = (v: unknown, n: number): unknown => (n === 0 ? v : nest(n % 2 === 0 ? [v] : { a: v }, n - 1))

describe("jsonHazard", () => {
  it("refuses exactly the JSON texts nested too deep or holding a NUL", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "\\", '"', "\u0000", "u", "0", "[", "{", "é") })
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        text,
        fc.integer(),
        fc.constant(null),
        fc.array(tie("node"), { maxLength: 3 }),
        fc.dictionary(text, tie("node"), { maxKeys: 3 })
      )
    })).node
    fc.assert(
      fc.property(value, fc.constantFrom(0, 1, 30, 62, 63, 64, 65, 200), (v, extra) => {
        const whole = nest(v, extra)
        const refused = jsonHazard(JSON.stringify(whole)) !== undefined
        expect(refused).toBe(depth(whole) > MAX_JSON_DEPTH || hasNul(whole))
      }),
      { numRuns: 2_000 }
    )
  })

  it("scans a megabyte of nesting in one pass, without recursion", () => {
    expect(jsonHazard(`${"[".repeat(500_000)}${"]".repeat(500_000)}`)).toMatch(/deeper than 64/)
    expect(jsonHazard(`{"q":"${"\\\\u0000".repeat(1_000)}"}`)).toBeUndefined()
    expect(jsonHazard('{"q":"a\\u0000"}')).toMatch(/NUL/)
  })
})
