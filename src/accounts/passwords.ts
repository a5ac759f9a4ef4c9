/**
 * Dashboard passwords: scrypt (N = 2^15, r = 8, p = 1, 32-byte output, a 16-byte random salt),
 * stored as `scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>`, so the cost can rise later and old
 * hashes still verify. Hashing runs on libuv's thread pool (not the event loop); comparison is in
 * constant time. A generated password is 20 base62 characters (~119 bits).
 */
import { randomBytes, randomInt, scrypt, timingSafeEqual } from "node:crypto"
import { Effect } from "effect"

const N = 2 ** 15
const R = 8
const P = 1
const KEY_LENGTH = 32
/** scrypt needs 128 · N · r bytes of memory; Node's default cap (32 MiB) is exactly that: allow twice */
const MAX_MEMORY = 256 * N * R

export const PASSWORD_MIN = 12
export const PASSWORD_MAX = 256

const derive = (password: string, salt: Buffer, n: number, r: number, p: number, length: number) =>
  Effect.async<Buffer, Error>((resume) => {
    scrypt(password.normalize("NFC"), salt, length, { N: n, r, p, maxmem: 256 * n * r }, (error, key) =>
      resume(error === null ? Effect.succeed(key) : Effect.fail(error))
    )
  })

/** The stored form of a password. */
export const hashPassword = (password: string): Effect.Effect<string, Error> =>
  Effect.suspend(() => {
    const salt = randomBytes(16)
    return Effect.map(
      derive(password, salt, N, R, P, KEY_LENGTH),
      (key) => `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`
    )
  })

/** Whether `password` is the one `stored` was made from (false for a malformed stored value). */
export const verifyPassword = (password: string, stored: string): Effect.Effect<boolean, Error> =>
  Effect.suspend(() => {
    const [scheme, n, r, p, salt, hash] = stored.split("$")
    const expected = Buffer.from(hash ?? "", "base64")
    const cost = [Number(n), Number(r), Number(p)] as const
    if (scheme !== "scrypt" || expected.length === 0 || !cost.every((x) => Number.isInteger(x) && x > 0)) {
      return Effect.succeed(false)
    }
    if (256 * cost[0] * cost[1] > 4 * MAX_MEMORY) return Effect.succeed(false)
    return Effect.map(
      derive(password, Buffer.from(salt ?? "", "base64"), cost[0], cost[1], cost[2], expected.length),
      (key) => timingSafeEqual(key, expected)
    )
  })

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** A password to show once: 20 base62 characters drawn uniformly. */
export const generatePassword = (): string => Array.from({ length: 20 }, () => ALPHABET[randomInt(62)]).join("")

/** Why a chosen password is not taken, or undefined. */
export const passwordProblem = (password: string): string | undefined =>
  password.length < PASSWORD_MIN
    ? `password must be at least ${PASSWORD_MIN} characters (got ${password.length})`
    : password.length > PASSWORD_MAX
      ? `password must be at most ${PASSWORD_MAX} characters`
      : password.trim().length === 0
        ? "password must not be blank"
        : undefined

const EMAIL = /^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/

/** An email address as stored and compared: trimmed, lower-cased; undefined when it is not one. */
export const normalizeEmail = (email: string): string | undefined => {
  const e = email.trim().toLowerCase()
  return e.length <= 254 && EMAIL.test(e) ? e : undefined
}
