import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, TestClock } from "effect"
import { Accounts, keyPrefix } from "../../src/accounts/Accounts.js"
import { generateApiKey, hashApiKey, isWellFormedKey } from "../../src/accounts/apiKeys.js"
import { backends } from "../support/backends.js"

describe("API keys", () => {
  it("have the brand, the mode and at least 128 bits of randomness", () => {
    const keys = Array.from({ length: 200 }, () => generateApiKey("live"))
    for (const key of keys) {
      expect(key).toMatch(/^vigil_live_[0-9A-Za-z]{43}$/)
      expect(isWellFormedKey(key)).toBe(true)
    }
    expect(new Set(keys).size).toBe(keys.length)
    // 43 base62 characters carry 43 * log2(62) ≈ 256 bits
    expect(43 * Math.log2(62)).toBeGreaterThan(128)
    expect(generateApiKey("test")).toMatch(/^vigil_test_/)
  })

  it("refuses malformed keys before any lookup", () => {
    for (const bad of [
      "",
      "vigil_prod_x",
      "vigil_test_short",
      "other_test_" + "a".repeat(43),
      "vigil_test_" + "-".repeat(43)
    ]) {
      expect(isWellFormedKey(bad)).toBe(false)
    }
  })
})

for (const backend of backends()) {
  describe(`accounts (${backend.name})`, () => {
    // Layer.fresh: it.layer memoizes layers by reference across the file, so each backend needs its own instance
    it.layer(
      Layer.fresh(Accounts.Default).pipe(Layer.provide(backend.authChanges), Layer.provideMerge(backend.layer())),
      { timeout: 60_000 }
    )((it) => {
      it.effect("creates an account with a key that authenticates; only the hash is stored", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts
          const sql = yield* SqlClient.SqlClient
          const created = yield* accounts.create("pro", "live")
          expect(created.apiKey).toMatch(/^vigil_live_/)
          const auth = yield* accounts.authenticate(created.apiKey)
          expect(
            Option.map(auth, (a) => [a.account.id, a.account.plan, a.keyId, a.account.rateLimitPerMinute])
          ).toEqual(Option.some([created.accountId, "pro", created.keyId, 6000]))
          const stored = yield* sql<{ key_hash: Uint8Array }>`SELECT key_hash FROM api_keys WHERE id = ${created.keyId}`
          expect(Buffer.from(stored[0].key_hash).equals(hashApiKey(created.apiKey))).toBe(true)
          const dump = JSON.stringify(yield* sql`SELECT * FROM api_keys`)
          expect(dump).not.toContain(created.apiKey)
        })
      )

      it.effect("refuses unknown and revoked keys at once", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts
          const created = yield* accounts.create("hobby")
          expect(Option.isNone(yield* accounts.authenticate(generateApiKey("test")))).toBe(true)
          const second = yield* accounts.createKey(created.accountId, "live")
          expect(Option.isSome(second)).toBe(true)
          expect(yield* accounts.revokeKey(created.keyId)).toBe(true)
          expect(yield* accounts.revokeKey(created.keyId)).toBe(false)
          expect(Option.isNone(yield* accounts.authenticate(created.apiKey))).toBe(true)
          // the account's other key keeps working
          const other = Option.getOrThrow(second)
          expect(Option.isSome(yield* accounts.authenticate(other.apiKey))).toBe(true)
        })
      )

      it.effect("lists an account's keys by prefix with their last use, and revokes only its own", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts
          const a = yield* accounts.create("pro", "test")
          const b = yield* accounts.create("pro", "test")
          const live = Option.getOrThrow(yield* accounts.createKey(a.accountId, "live"))
          expect(live.prefix).toBe(live.apiKey.slice(0, "vigil_live_".length + 4))
          expect(keyPrefix(a.apiKey)).toMatch(/^vigil_test_[0-9A-Za-z]{4}$/)
          // used: written by the next flush (every 30 s, and as the service stops)
          yield* TestClock.adjust("90 seconds")
          expect(Option.isSome(yield* accounts.authenticate(live.apiKey))).toBe(true)
          yield* accounts.flushUses
          const keys = yield* accounts.listKeys(a.accountId)
          expect(keys.map((k) => [k.id, k.prefix, k.mode, k.revokedAt])).toEqual(
            expect.arrayContaining([
              [a.keyId, keyPrefix(a.apiKey), "test", null],
              [live.keyId, live.prefix, "live", null]
            ])
          )
          expect(keys).toHaveLength(2)
          expect(keys.find((k) => k.id === live.keyId)?.lastUsedAt).toBe(90)
          expect(keys.find((k) => k.id === a.keyId)?.lastUsedAt).toBeNull()
          expect(JSON.stringify(keys)).not.toContain(live.apiKey)
          // another account's key is not this account's to revoke
          expect(yield* accounts.revokeOwnKey(b.accountId, live.keyId)).toBe(false)
          expect(Option.isSome(yield* accounts.authenticate(live.apiKey))).toBe(true)
          expect(yield* accounts.revokeOwnKey(a.accountId, live.keyId)).toBe(true)
          expect(Option.isNone(yield* accounts.authenticate(live.apiKey))).toBe(true)
          expect((yield* accounts.listKeys(a.accountId)).find((k) => k.id === live.keyId)?.revokedAt).not.toBeNull()
        })
      )

      it.effect("changes plans; an enterprise account's own rate limit overrides the plan's", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts
          const created = yield* accounts.create("free")
          const ent = Option.getOrThrow(yield* accounts.update(created.accountId, "enterprise", 250_000))
          expect([ent.plan, ent.rateLimitPerMinute]).toEqual(["enterprise", 250_000])
          const scale = Option.getOrThrow(yield* accounts.update(created.accountId, "scale"))
          expect(scale.rateLimitPerMinute).toBe(60_000)
          expect(Option.isNone(yield* accounts.update("acc_missing", "pro"))).toBe(true)
          expect(Option.isNone(yield* accounts.createKey("acc_missing", "test"))).toBe(true)
        })
      )
    })
  })
}
