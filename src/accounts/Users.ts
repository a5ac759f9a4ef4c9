/**
 * Dashboard users (issue 18): an email and a password (kept only as its scrypt hash,
 * `passwords.ts`), each of one account. Sign-in checks the password in constant time and locks an
 * email out after `LOCKOUT_AFTER` wrong passwords in a row: for `LOCKOUT_BASE_MS`, doubling with
 * every further wrong one, at most `LOCKOUT_MAX_MS`; a right password resets the count. The lock is
 * in the store, so every instance applies it. Times are the Effect `Clock`'s.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Data, Effect, Option } from "effect"
import { isUniqueViolation } from "../store/sqlErrors.js"
import { Accounts } from "./Accounts.js"
import { randomId } from "./apiKeys.js"
import { generatePassword, hashPassword, verifyPassword } from "./passwords.js"
import type { Plan } from "./plans.js"

export const LOCKOUT_AFTER = 5
export const LOCKOUT_BASE_MS = 15 * 60_000
export const LOCKOUT_MAX_MS = 24 * 3_600_000

export class EmailTaken extends Data.TaggedError("EmailTaken")<{ readonly email: string }> {}
export class AccountMissing extends Data.TaggedError("AccountMissing")<{ readonly accountId: string }> {}

export interface DashboardUser {
  readonly id: string
  readonly accountId: string
  readonly email: string
}

export type SignIn =
  | { readonly _tag: "SignedIn"; readonly user: DashboardUser }
  | { readonly _tag: "WrongPassword"; readonly lockedUntil: number | undefined }
  | { readonly _tag: "Locked"; readonly until: number }

interface UserRow {
  readonly id: string
  readonly account_id: string
  readonly email: string
  readonly password_hash: string
  readonly failed_attempts: number
  readonly locked_until: number | string
}

/** how long the `failures`-th wrong password in a row locks the email out (0: not yet) */
export const lockoutMs = (failures: number): number =>
  failures < LOCKOUT_AFTER ? 0 : Math.min(LOCKOUT_MAX_MS, LOCKOUT_BASE_MS * 2 ** (failures - LOCKOUT_AFTER))

/** a hash to check a password against when the email is unknown: the answer takes as long either way */
let decoy: string | undefined

export class Users extends Effect.Service<Users>()("vigil/Users", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const accounts = yield* Accounts

    /**
     * A user of `accountId`, or of a new account on `plan`; the password given (already checked
     * by the caller) or a generated one, answered once.
     */
    const create = (input: {
      readonly email: string
      readonly password: string | undefined
      readonly accountId: string | undefined
      readonly plan: Plan
    }) =>
      Effect.gen(function* () {
        const password = input.password ?? generatePassword()
        const hash = yield* Effect.orDie(hashPassword(password))
        const now = yield* Clock.currentTimeMillis
        const id = randomId("usr")
        const user = yield* Effect.gen(function* () {
          let accountId = input.accountId
          if (accountId === undefined) {
            accountId = yield* accounts.createBare(input.plan)
          } else if (Option.isNone(yield* accounts.find(accountId))) {
            return yield* new AccountMissing({ accountId })
          }
          yield* sql`INSERT INTO dashboard_users ${sql.insert({
            id,
            account_id: accountId,
            email: input.email,
            password_hash: hash,
            created_at: now
          })}`.pipe(Effect.catchIf(isUniqueViolation, () => new EmailTaken({ email: input.email })))
          return { id, accountId, email: input.email }
        }).pipe(sql.withTransaction)
        return { user, password }
      })

    const byEmail = (email: string) =>
      Effect.map(
        sql<UserRow>`SELECT id, account_id, email, password_hash, failed_attempts, locked_until
          FROM dashboard_users WHERE email = ${email}`,
        (rows) => rows[0]
      )

    /** Checks an email's password, applying (and moving) the lockout. */
    const signIn = (email: string, password: string): Effect.Effect<SignIn, SqlError> =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const row = yield* byEmail(email)
        if (row === undefined) {
          decoy ??= yield* Effect.orDie(hashPassword(generatePassword()))
          yield* Effect.orDie(verifyPassword(password, decoy))
          return { _tag: "WrongPassword", lockedUntil: undefined } as const
        }
        const lockedUntil = Number(row.locked_until)
        if (lockedUntil > now) return { _tag: "Locked", until: lockedUntil } as const
        if (yield* Effect.orDie(verifyPassword(password, row.password_hash))) {
          if (row.failed_attempts > 0) {
            yield* sql`UPDATE dashboard_users SET failed_attempts = 0, locked_until = 0 WHERE id = ${row.id}`
          }
          return { _tag: "SignedIn", user: { id: row.id, accountId: row.account_id, email: row.email } } as const
        }
        // counted in the row (not from what was read): concurrent wrong passwords each count
        const counted = yield* sql<{ failed_attempts: number }>`UPDATE dashboard_users
          SET failed_attempts = failed_attempts + 1 WHERE id = ${row.id} RETURNING failed_attempts`
        const failures = counted[0]?.failed_attempts ?? row.failed_attempts + 1
        const lock = lockoutMs(failures)
        if (lock === 0) return { _tag: "WrongPassword", lockedUntil: undefined } as const
        yield* sql`UPDATE dashboard_users SET locked_until = ${now + lock} WHERE id = ${row.id}`
        return { _tag: "WrongPassword", lockedUntil: now + lock } as const
      })

    return { create, signIn } as const
  })
}) {}
