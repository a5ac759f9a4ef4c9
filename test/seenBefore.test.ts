import { describe, expect, it } from "vitest"
import { makeSeenBefore } from "../src/seenBefore.js"

describe("seenBefore", () => {
  it("is false on a key's first sighting and true on the next, for keys still remembered", () => {
    const seen = makeSeenBefore(1024)
    expect(seen("price > 5")).toBe(false)
    expect(seen("price > 5")).toBe(true)
    expect(seen("price > 5")).toBe(true)
    expect(seen("price > 6")).toBe(false)
    expect(seen("price > 6")).toBe(true)
  })

  it("admits nothing from a stream of distinct keys but hash collisions, and forgets old keys as slots are reused", () => {
    const seen = makeSeenBefore(4096)
    let admitted = 0
    for (let i = 0; i < 10_000; i++) if (seen(`q ${i}`)) admitted++
    // a 32-bit hash a slot: a collision of two distinct keys is about one in four billion
    expect(admitted).toBe(0)
    // 10,000 keys over 4,096 slots: most of the first ones were overwritten
    let remembered = 0
    for (let i = 0; i < 1_000; i++) if (seen(`q ${i}`)) remembered++
    expect(remembered).toBeLessThan(200)
  })
})
