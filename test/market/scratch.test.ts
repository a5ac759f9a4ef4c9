/**
 * The scratch row's clear: every slot null again (value 0, not present) after any writes since the
 * last clear — a few (cleared slot by slot), many (filled), or more than its list of written slots
 * holds — and a slot written NaN, a flag, or the same slot many times.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Scratch, SLOT_COUNT } from "../../src/market/indicators/scratch.js"

const write = fc.tuple(
  fc.nat({ max: SLOT_COUNT - 1 }),
  fc.oneof(fc.double(), fc.boolean(), fc.constant(Number.NaN), fc.constant(0))
)

describe("Scratch.clear", () => {
  it("leaves every slot null whatever was written since the last clear", () => {
    const r = new Scratch()
    fc.assert(
      fc.property(
        fc.array(fc.array(write, { maxLength: 6 * SLOT_COUNT }), { minLength: 1, maxLength: 4 }),
        (rounds) => {
          for (const writes of rounds) {
            for (const [s, x] of writes) typeof x === "boolean" ? r.flag(s, x) : r.put(s, x)
            r.clear()
            expect(r.ok.every((o) => o === 0)).toBe(true)
            expect(r.v.every((v) => v === 0 && !Object.is(v, -0))).toBe(true)
          }
        }
      ),
      { numRuns: 300 }
    )
  })
})
