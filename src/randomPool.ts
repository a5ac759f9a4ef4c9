/**
 * Random ids from a pooled CSPRNG buffer, refilled 4 KiB at a time: a
 * `randomBytes(n)` call per id (a request id, a webhook's, an event's) cost
 * ~7% of a small request's CPU (docs/benchmarks.md, "What a request costs").
 * The bytes are `crypto.randomFillSync`'s, as unpredictable as `randomBytes`;
 * each is handed out once. For ids only: secrets (signing secrets, API keys,
 * session tokens) take `randomBytes` of their own.
 */
import { randomFillSync } from "node:crypto"

const pool = Buffer.alloc(4096)
let offset = pool.length

/** `bytes` (at most 64) fresh random bytes as base64url. */
export const randomBase64url = (bytes: number): string => {
  if (offset + bytes > pool.length) {
    randomFillSync(pool)
    offset = 0
  }
  const text = pool.toString("base64url", offset, offset + bytes)
  offset += bytes
  return text
}
