import { createHash, createHmac, randomBytes } from "node:crypto"
import { Effect, Either, Layer } from "effect"
import { describe, expect, it } from "vitest"
import {
  Cursors,
  integerPosition,
  keysetPage,
  makeCursorCodec,
  readCursor,
  stringPosition
} from "../../src/api/cursor.js"

describe("cursors", () => {
  it("keep their format: base64url of the payload and the first 16 bytes of its HMAC (cursors issued before stay valid)", () => {
    const key = Buffer.alloc(32, 7)
    const token = makeCursorCodec(key).encode({ q: "price > 1", endpoint: "scan", limit: 50 }, ["1.5", "AAPL"])
    const canonical = '{"endpoint":"scan","limit":50,"q":"price > 1"}'
    const b = createHash("sha256").update(canonical).digest("base64url").slice(0, 22)
    const payload = Buffer.from(JSON.stringify({ b, p: ["1.5", "AAPL"] }))
    const tag = createHmac("sha256", key).update(payload).digest().subarray(0, 16)
    expect(token).toBe(Buffer.concat([payload, tag]).toString("base64url"))
  })

  const codec = makeCursorCodec(randomBytes(32))
  const binding = { endpoint: "scan", account: "acc_1", q: "price > 10", limit: 50, order: "price", dir: "desc" }

  it("round-trips a position and is opaque base64url", () => {
    const token = codec.encode(binding, ["123.5", "AAPL"])
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(codec.decode(binding, token)).toEqual(Either.right(["123.5", "AAPL"]))
    // parameter order does not matter
    expect(codec.decode({ ...binding, dir: "desc", order: "price" }, token)).toEqual(Either.right(["123.5", "AAPL"]))
  })

  it("refuses a cursor used with changed parameters or page size", () => {
    const token = codec.encode(binding, 5)
    expect(Either.isLeft(codec.decode({ ...binding, limit: 20 }, token))).toBe(true)
    expect(Either.isLeft(codec.decode({ ...binding, q: "price > 11" }, token))).toBe(true)
    expect(Either.isLeft(codec.decode({ ...binding, account: "acc_2" }, token))).toBe(true)
  })

  it("refuses any tampering, garbage, and another key's cursors", () => {
    const token = codec.encode(binding, 5)
    const bytes = Buffer.from(token, "base64url")
    for (let i = 0; i < bytes.length; i += 3) {
      const copy = Buffer.from(bytes)
      copy[i] ^= 1
      expect(Either.isLeft(codec.decode(binding, copy.toString("base64url")))).toBe(true)
    }
    for (const junk of ["", "abc", "!!!", "a".repeat(5000), token.slice(0, -2)]) {
      expect(Either.isLeft(codec.decode(binding, junk))).toBe(true)
    }
    expect(Either.isLeft(makeCursorCodec(randomBytes(32)).decode(binding, token))).toBe(true)
  })

  it("reads every endpoint's cursor one way: absent, a position, or one 400 shape naming the problem", () => {
    const message = (e: Either.Either<unknown, { message: string; code: string }>) =>
      Either.isLeft(e) ? `${e.left.code}: ${e.left.message}` : "read"
    expect(readCursor(codec, binding, undefined, stringPosition)).toEqual(Either.right(undefined))
    expect(readCursor(codec, binding, codec.encode(binding, "id_1"), stringPosition)).toEqual(Either.right("id_1"))
    expect(readCursor(codec, binding, codec.encode(binding, 7), integerPosition)).toEqual(Either.right(7))
    // what the cursor carries is not a position of this endpoint
    expect(message(readCursor(codec, binding, codec.encode(binding, 7.5), integerPosition))).toBe(
      "bad_request: cursor: cursor is invalid or was altered"
    )
    expect(message(readCursor(codec, binding, codec.encode(binding, 7), stringPosition))).toBe(
      "bad_request: cursor: cursor is invalid or was altered"
    )
    // not authentic, or made for other parameters
    expect(message(readCursor(codec, binding, "garbage!", stringPosition))).toBe(
      "bad_request: cursor: cursor is not a cursor this API issued"
    )
    expect(message(readCursor(codec, { ...binding, limit: 1 }, codec.encode(binding, "x"), stringPosition))).toBe(
      "bad_request: cursor: cursor does not belong to this query: pass the same parameters and limit as the first page"
    )
  })
})

describe("keysetPage", () => {
  const codec = makeCursorCodec(new Uint8Array(32).fill(7))
  const cursors = Layer.succeed(Cursors, { codec: Effect.succeed(codec), loaded: () => codec })
  const ids = Array.from({ length: 7 }, (_, i) => `id_${i}`)
  let reads = 0
  const pageAfter = (cursor: string | undefined, binding: unknown = { endpoint: "t", limit: 3 }) =>
    Effect.runPromise(
      keysetPage({
        binding,
        cursor,
        limit: 3,
        position: stringPosition,
        keyOf: (id: string) => id,
        read: (after, count) => {
          reads++
          return Effect.succeed(ids.filter((id) => after === undefined || id > after).slice(0, count))
        }
      }).pipe(Effect.provide(cursors), Effect.either)
    )

  it("walks every row once, `limit` at a time, the last page without a cursor", async () => {
    const seen: Array<string> = []
    let cursor: string | undefined
    for (let i = 0; i < 5; i++) {
      const page = await pageAfter(cursor)
      if (Either.isLeft(page)) throw new Error(page.left.message)
      seen.push(...page.right.rows)
      if (page.right.next_cursor === null) break
      cursor = page.right.next_cursor
    }
    expect(seen).toEqual(ids)
    expect(reads).toBe(3)
  })

  it("refuses a cursor made for other parameters with the one 400", async () => {
    const first = await pageAfter(undefined)
    if (Either.isLeft(first) || first.right.next_cursor === null) throw new Error("no cursor")
    const other = await pageAfter(first.right.next_cursor, { endpoint: "t", limit: 4 })
    expect(Either.isLeft(other) && other.left).toMatchObject({ _tag: "BadRequest", code: "bad_request" })
    expect(Either.isLeft(other) && other.left.message).toMatch(/^cursor: /)
  })
})
