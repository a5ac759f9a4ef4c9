/**
 * Pooled random ids (src/randomPool.ts): the length asked, base64url, never repeated across the
 * pool's refills (100,000 ids of 12 bytes walk the 4 KiB pool ~300 times).
 */
import { describe, expect, it } from "vitest"
import { randomBase64url } from "../src/randomPool.js"

describe("randomBase64url", () => {
  it("hands out fresh base64url ids of the size asked, across refills", () => {
    const seen = new Set<string>()
    for (let i = 0; i < 100_000; i++) {
      const id = randomBase64url(12)
      expect(id).toMatch(/^[A-Za-z0-9_-]{16}$/)
      seen.add(id)
    }
    expect(seen.size).toBe(100_000)
    for (const n of [1, 6, 16, 64]) expect(Buffer.from(randomBase64url(n), "base64url")).toHaveLength(n)
  })
})
