/**
 * Dashboard users (issue 18, item 2): passwords kept only as scrypt hashes and checked in constant
 * time; an email locked out after LOCKOUT_AFTER wrong passwords, for a time that doubles, on the
 * Effect Clock; emails unique without case.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Layer, TestClock } from "effect"
import { Accounts } from "../../src/accounts/Accounts.js"
import { localAuthChanges } from "../../src/accounts/authChanges.js"
import {
  generatePassword,
  hashPassword,
  normalizeEmail,
  passwordProblem,
  verifyPassword
} from "../../src/accounts/passwords.js"
import { LOCKOUT_AFTER, LOCKOUT_BASE_MS, LOCKOUT_MAX_MS, lockoutMs, Users } from "../../src/accounts/Users.js"
import { backends } from "../support/backends.js"

describe("dashboard passwords", () => {
  it.effect("are hashed with scrypt and a salt of their own, and verified only by the right password", () =>
    Effect.gen(function* () {
      const a = yield* hashPassword("correct horse battery")
      const b = yield* hashPassword("correct horse battery")
      expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/)
      expect(a).not.toBe(b)
      expect(a).not.toContain("correct")
      expect(yield* verifyPassword("correct horse battery", a)).toBe(true)
      expect(yield* verifyPassword("correct horse batterY", a)).toBe(false)
      expect(yield* verifyPassword("correct horse battery", "sha256$abc")).toBe(false)
      expect(yield* verifyPassword("x", "scrypt$0$8$1$AAAA$AAAA")).toBe(false)
    })
  )

  it("are generated with 20 base62 characters, chosen ones at least 12 characters", () => {
    const made = Array.from({ length: 50 }, generatePassword)
    for (const p of made) expect(p).toMatch(/^[0-9A-Za-z]{20}$/)
    expect(new Set(made).size).toBe(50)
    expect(passwordProblem("short")).toBe("password must be at least 12 characters (got 5)")
    expect(passwordProblem(" ".repeat(12))).toBe("password must not be blank")
    expect(passwordProblem("x".repeat(257))).toBe("password must be at most 256 characters")
    expect(passwordProblem("twelve chars")).toBeUndefined()
  })

  it("takes emails lower-cased and trimmed, and nothing that is not one", () => {
    expect(normalizeEmail("  Ann.Lee@Example.COM ")).toBe("ann.lee@example.com")
    for (const bad of ["", "ann", "ann@", "@example.com", "ann@example", "a b@example.com", "ann@@example.com"]) {
      expect([bad, normalizeEmail(bad)]).toEqual([bad, undefined])
    }
  })

  it("lock out for a time that doubles from the fifth wrong one, at most a day", () => {
    expect([1, 2, 3, 4].map(lockoutMs)).toEqual([0, 0, 0, 0])
    expect(lockoutMs(LOCKOUT_AFTER)).toBe(LOCKOUT_BASE_MS)
    expect(lockoutMs(LOCKOUT_AFTER + 2)).toBe(4 * LOCKOUT_BASE_MS)
    expect(lockoutMs(LOCKOUT_AFTER + 30)).toBe(LOCKOUT_MAX_MS)
  })
})

for (const backend of backends()) {
  describe(`dashboard users (${backend.name})`, () => {
    it.layer(
      // fresh: it.layer memoizes layers by reference across the file (each backend its own instances);
      // the in-process key-change stamp: PostgreSQL's probes every 2 s would run through the TestClock's jump
      Layer.fresh(Users.Default.pipe(Layer.provideMerge(Accounts.Default))).pipe(
        Layer.provide(localAuthChanges),
        Layer.provideMerge(backend.layer())
      ),
      { timeout: 60_000 }
    )((it) => {
      it.effect("sign in with the right password, are locked out after wrong ones, and unlock on time", () =>
        Effect.gen(function* () {
          const users = yield* Users
          const sql = yield* SqlClient.SqlClient
          // the TestClock's own start (a jump of years would run every 30 s flush of the keys' last use on the way)
          const now = yield* Clock.currentTimeMillis
          const { user, password } = yield* users.create({
            email: "ann@example.com",
            password: undefined,
            accountId: undefined,
            plan: "pro"
          })
          const stored = yield* sql<{
            password_hash: string
          }>`SELECT password_hash FROM dashboard_users WHERE id = ${user.id}`
          expect(stored[0]!.password_hash).toMatch(/^scrypt\$/)
          expect(stored[0]!.password_hash).not.toContain(password)
          expect(yield* users.signIn("ann@example.com", password)).toEqual({ _tag: "SignedIn", user })

          for (let k = 1; k < LOCKOUT_AFTER; k++) {
            expect(yield* users.signIn("ann@example.com", `wrong ${k}`)).toEqual({
              _tag: "WrongPassword",
              lockedUntil: undefined
            })
          }
          expect(yield* users.signIn("ann@example.com", "wrong again")).toEqual({
            _tag: "WrongPassword",
            lockedUntil: now + LOCKOUT_BASE_MS
          })
          // locked: even the right password is refused, saying until when
          expect(yield* users.signIn("ann@example.com", password)).toEqual({
            _tag: "Locked",
            until: now + LOCKOUT_BASE_MS
          })
          yield* TestClock.adjust(Duration.millis(LOCKOUT_BASE_MS))
          // one more wrong one after the lock: twice as long
          expect(yield* users.signIn("ann@example.com", "wrong still")).toEqual({
            _tag: "WrongPassword",
            lockedUntil: now + 3 * LOCKOUT_BASE_MS
          })
          yield* TestClock.adjust(Duration.millis(2 * LOCKOUT_BASE_MS))
          expect(yield* users.signIn("ann@example.com", password)).toEqual({ _tag: "SignedIn", user })
          // the count starts again
          expect(yield* users.signIn("ann@example.com", "wrong")).toEqual({
            _tag: "WrongPassword",
            lockedUntil: undefined
          })

          // an unknown email: the same answer as a wrong password
          expect(yield* users.signIn("bob@example.com", password)).toEqual({
            _tag: "WrongPassword",
            lockedUntil: undefined
          })
          // a second user of the same account; an email taken; an account that does not exist
          const again = yield* users.create({
            email: "carl@example.com",
            password: "a long enough password",
            accountId: user.accountId,
            plan: "free"
          })
          expect(again.user.accountId).toBe(user.accountId)
          expect(again.password).toBe("a long enough password")
          const taken = yield* Effect.flip(
            users.create({ email: "ann@example.com", password: undefined, accountId: undefined, plan: "free" })
          )
          expect(taken._tag).toBe("EmailTaken")
          const missing = yield* Effect.flip(
            users.create({ email: "dan@example.com", password: undefined, accountId: "acc_nope", plan: "free" })
          )
          expect(missing._tag).toBe("AccountMissing")
          // nothing half-written: the refused creates left no account and no user
          const count = yield* sql<{ n: number | string }>`SELECT count(*) AS n FROM dashboard_users`
          expect(Number(count[0]!.n)).toBe(2)
        })
      )
    })
  })
}
