/**
 * Opaque pagination cursors: base64url of a small JSON payload followed by a
 * 16-byte HMAC-SHA256 tag. The payload carries the position (e.g. the last
 * row's order value and ticker) and a digest of everything that defines the
 * walk — the endpoint, the account, every query parameter and the page size —
 * so a tampered cursor, or one passed with changed parameters, is refused
 * (400). The key is a secret shared by every instance (in the database).
 */

import { createHmac, hash, timingSafeEqual } from "node:crypto"
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Either, Layer } from "effect"
import { Readiness } from "../observability/Readiness.js"
import { sharedSecret } from "../store/serviceSecrets.js"
import { BadRequest, orUnavailable, type ServiceUnavailable } from "./errors.js"

const TAG_BYTES = 16

/** Canonical JSON: object keys sorted, so equal parameter sets give equal digests. */
const canonical = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null)
  let out: string
  if (Array.isArray(value)) {
    out = "["
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + canonical(value[i])
    return `${out}]`
  }
  // built in one pass (each scan's cursor binds its parameters): no entry arrays
  const keys = Object.keys(value).sort()
  out = "{"
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k]
    if (v === undefined) continue
    out += `${out.length === 1 ? "" : ","}${JSON.stringify(k)}:${canonical(v)}`
  }
  return `${out}}`
}

export interface CursorCodec {
  /** A cursor for `position` within the walk described by `binding`. */
  readonly encode: (binding: unknown, position: unknown) => string
  /** The position of a cursor, if it is authentic and was made for this same `binding`. */
  readonly decode: (binding: unknown, token: string) => Either.Either<unknown, string>
}

export const makeCursorCodec = (key: Uint8Array): CursorCodec => {
  const tag = (payload: Buffer) => createHmac("sha256", key).update(payload).digest().subarray(0, TAG_BYTES)
  const digest = (binding: unknown) => hash("sha256", canonical(binding), "base64url").slice(0, 22)
  return {
    encode: (binding, position) => {
      const payload = Buffer.from(JSON.stringify({ b: digest(binding), p: position }), "utf8")
      return Buffer.concat([payload, tag(payload)]).toString("base64url")
    },
    decode: (binding, token) => {
      if (typeof token !== "string" || token.length === 0 || token.length > 4096 || !/^[A-Za-z0-9_-]+$/.test(token)) {
        return Either.left("cursor is not a cursor this API issued")
      }
      const bytes = Buffer.from(token, "base64url")
      if (bytes.length <= TAG_BYTES) return Either.left("cursor is not a cursor this API issued")
      const payload = bytes.subarray(0, bytes.length - TAG_BYTES)
      const given = bytes.subarray(bytes.length - TAG_BYTES)
      if (!timingSafeEqual(given, tag(payload))) return Either.left("cursor is invalid or was altered")
      let parsed: { b?: unknown; p?: unknown }
      try {
        parsed = JSON.parse(payload.toString("utf8"))
      } catch {
        return Either.left("cursor is invalid or was altered")
      }
      if (parsed.b !== digest(binding)) {
        return Either.left("cursor does not belong to this query: pass the same parameters and limit as the first page")
      }
      return Either.right(parsed.p)
    }
  }
}

/** The 400 of a cursor that is not authentic, was made for other parameters, or holds no position. */
export const invalidCursor = (why = "cursor is invalid or was altered") => new BadRequest({ message: `cursor: ${why}` })

/**
 * The position of a request's `cursor` (undefined when there is none), read by `position` from
 * what the cursor carries: 400 `bad_request` (`invalidCursor`) when it is not authentic, was
 * made for other parameters, or carries what `position` does not read (undefined). Every
 * paginated endpoint reads its cursor here.
 */
export const readCursor = <P>(
  codec: CursorCodec,
  binding: unknown,
  token: string | undefined,
  position: (carried: unknown) => P | undefined
): Either.Either<P | undefined, BadRequest> => {
  if (token === undefined) return Either.right(undefined)
  const decoded = codec.decode(binding, token)
  if (Either.isLeft(decoded)) return Either.left(invalidCursor(decoded.left))
  const read = position(decoded.right)
  return read === undefined ? Either.left(invalidCursor()) : Either.right(read)
}

/** A cursor position that is a string (an id), or undefined. */
export const stringPosition = (carried: unknown): string | undefined =>
  typeof carried === "string" ? carried : undefined

/** A cursor position that is an integer, or undefined. */
export const integerPosition = (carried: unknown): number | undefined =>
  typeof carried === "number" && Number.isInteger(carried) ? carried : undefined

/** The codec, keyed by the shared secret (read once, after the migrations ran). */
export class Cursors extends Context.Tag("vigil/Cursors")<
  Cursors,
  {
    readonly codec: Effect.Effect<CursorCodec, SqlError>
    /** the codec once `codec` has read the secret (undefined before), for answers made without a fiber */
    readonly loaded: () => CursorCodec | undefined
  }
>() {
  static readonly layer = Layer.effect(
    Cursors,
    Effect.gen(function* () {
      const readiness = yield* Readiness
      const sql = yield* SqlClient.SqlClient
      let loaded: CursorCodec | undefined
      const codec = yield* Effect.cached(
        readiness.await("migrations").pipe(
          Effect.zipRight(sharedSecret("cursor_hmac_key")),
          Effect.map(makeCursorCodec),
          Effect.tap((made) => {
            loaded = made
          }),
          Effect.provideService(SqlClient.SqlClient, sql)
        )
      )
      return { codec, loaded: () => loaded }
    })
  )
}

/** The codec, or 503 when the database cannot give its secret. */
export const cursorCodec: Effect.Effect<CursorCodec, ServiceUnavailable, Cursors> = Effect.flatMap(Cursors, (c) =>
  orUnavailable(c.codec)
)

/** A `[created_at, id]` keyset position, or undefined. */
export const timeAndIdPosition = (carried: unknown): readonly [number, string] | undefined =>
  Array.isArray(carried) && carried.length === 2 && typeof carried[0] === "number" && typeof carried[1] === "string"
    ? [carried[0], carried[1]]
    : undefined

/**
 * A keyset page, the one way list endpoints page: the position of the request's `cursor` (by
 * `position`, 400 when invalid), `limit + 1` rows read after it (`read`), `limit` of them kept,
 * and the next cursor made from the last kept row (`keyOf`) when there are more.
 */
export const keysetPage = <A, P, E, R>(page: {
  readonly binding: unknown
  readonly cursor: string | undefined
  readonly limit: number
  readonly position: (carried: unknown) => P | undefined
  readonly keyOf: (row: A) => P
  readonly read: (after: P | undefined, count: number) => Effect.Effect<ReadonlyArray<A>, E, R>
}): Effect.Effect<
  { readonly rows: ReadonlyArray<A>; readonly next_cursor: string | null },
  E | BadRequest | ServiceUnavailable,
  R | Cursors
> =>
  Effect.gen(function* () {
    const codec = yield* cursorCodec
    const after = yield* readCursor(codec, page.binding, page.cursor, page.position)
    const read = yield* page.read(after, page.limit + 1)
    const rows = read.slice(0, page.limit)
    const last = rows[rows.length - 1]
    const more = read.length > page.limit && last !== undefined
    return { rows, next_cursor: more ? codec.encode(page.binding, page.keyOf(last)) : null }
  })
