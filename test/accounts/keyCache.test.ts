import { describe, expect, it } from "vitest"
import type { AuthenticatedKey } from "../../src/accounts/Accounts.js"
import { makeKeyCache } from "../../src/accounts/keyCache.js"

const key = (id: string): AuthenticatedKey => ({
  account: { id: `acc_${id}`, plan: "pro", rateLimitPerMinute: 6000, customRateLimit: null },
  keyId: `key_${id}`,
  mode: "test"
})

describe("key cache", () => {
  it("answers what was stored until it is older than the maximum age", () => {
    const cache = makeKeyCache({ maxEntries: 10, maxAgeMs: 1000 })
    cache.set("a", key("a"), "s1", 5000)
    expect(cache.get("a", "s1", 5000)?.keyId).toBe("key_a")
    expect(cache.get("a", "s1", 5999)?.keyId).toBe("key_a")
    expect(cache.get("a", "s1", 6000)).toBeUndefined()
    expect(cache.size()).toBe(0)
    // a clock that went backwards does not extend an entry's life
    cache.set("b", key("b"), "s1", 5000)
    expect(cache.get("b", "s1", 4000)).toBeUndefined()
  })

  it("misses under another stamp: an answer read before a change is never served after it", () => {
    const cache = makeKeyCache({ maxEntries: 10, maxAgeMs: 1000 })
    // a lookup read the database under s1 while a change moved the stamp to s2; it stores what it read
    cache.set("a", key("a"), "s1", 0)
    expect(cache.get("a", "s2", 0)).toBeUndefined()
    expect(cache.size()).toBe(0)
    cache.set("a", key("a"), "s2", 0)
    expect(cache.get("a", "s2", 0)?.keyId).toBe("key_a")
    cache.clear()
    expect(cache.get("a", "s2", 0)).toBeUndefined()
  })

  it("holds at most maxEntries, dropping the oldest first", () => {
    const cache = makeKeyCache({ maxEntries: 3, maxAgeMs: 1000 })
    for (const id of ["a", "b", "c", "d"]) cache.set(id, key(id), "s", 0)
    expect(cache.size()).toBe(3)
    expect(cache.get("a", "s", 0)).toBeUndefined()
    expect(cache.get("d", "s", 0)?.keyId).toBe("key_d")
  })
})
