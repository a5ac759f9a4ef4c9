import { describe, expect, it } from "vitest"
import { makeResponseCache } from "../../../src/api/direct/cache.js"

const entry = (publication: number, size: number) => ({
  publication,
  body: new Uint8Array(size)
})

describe("direct answers cache", () => {
  it("serves an entry only under the publication it was filled in, and a new one empties it", () => {
    const cache = makeResponseCache()
    cache.set("a", entry(1, 10))
    cache.set("b", entry(1, 10))
    expect(cache.get("a", 1)?.body.length).toBe(10)
    expect(cache.get("a", 2)).toBeUndefined()
    expect(cache.size()).toBe(1)
    cache.set("c", entry(2, 5))
    expect(cache.get("b", 1)).toBeUndefined()
    expect(cache.size()).toBe(1)
    expect(cache.bytes()).toBe(5)
  })

  it("keeps at most its entries and bytes, the least recently used leaving first", () => {
    const cache = makeResponseCache(3, 100)
    for (const k of ["a", "b", "c"]) cache.set(k, entry(1, 10))
    expect(cache.get("a", 1)).toBeDefined() // a is now the most recent
    cache.set("d", entry(1, 10))
    expect(cache.get("b", 1)).toBeUndefined()
    expect(["a", "c", "d"].every((k) => cache.get(k, 1) !== undefined)).toBe(true)
    cache.set("big", entry(1, 90))
    expect(cache.bytes()).toBeLessThanOrEqual(100)
    expect(cache.get("big", 1)).toBeDefined()
    cache.set("big", entry(1, 20))
    expect(cache.bytes()).toBe(20 + (cache.size() - 1) * 10)
  })
})
