/**
 * The scan's rules that need no database and no fiber, shared by the API's
 * handler (Http.ts) and the request path's direct answers (../direct): the
 * parameters validated in the order the API words its 400s, and the answer —
 * cursor, evaluation, page and rows — from a compiled `q` and a snapshot.
 */
import { Either, type Schema } from "effect"
import { isoDate } from "../../market/indicators/days.js"
import type { Snapshot } from "../../market/snapshot.js"
import type { Matcher } from "../../query/index.js"
import { type OrderValue, pageOf, valueAt } from "../../query/order.js"
import { isoAsOf } from "../common/market.js"
import { pageSize, parseDate } from "../common/params.js"
import { FROZEN_FIELDS, renderRow, renderRowsJson } from "../common/rows.js"
import { type CursorCodec, readCursor } from "../cursor.js"
import { BadRequest, InvalidQuery } from "../errors.js"
import type { ScanResponse } from "./Api.js"
import {
  DEFAULT_DIR,
  DEFAULT_ORDER,
  MAX_Q_LENGTH,
  rowColumns,
  validateDir,
  validateFields,
  validateOrder
} from "./params.js"

/** A scan request's parameters as sent (body or query string). */
export interface ScanInput {
  readonly q?: string | undefined
  readonly universe?: string | undefined
  readonly asof?: string | undefined
  readonly order?: string | undefined
  readonly dir?: string | undefined
  readonly fields?: string | ReadonlyArray<string> | undefined
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
  readonly rule?: string | undefined
}

/** What a saved rule gives a scan that names it (explicit parameters override it). */
export interface SavedScan {
  readonly q: string
  readonly universe: string | null
  readonly order: string
  readonly dir: string
  readonly fields: ReadonlyArray<string>
}

/** A scan's parameters, validated, defaults applied. */
export interface ScanParameters {
  readonly q: string
  readonly universe: string | undefined
  readonly asof: string | undefined
  readonly order: string
  readonly dir: "asc" | "desc"
  readonly fields: ReadonlyArray<string>
  readonly limit: number
  readonly cursor: string | undefined
  readonly rule: string | undefined
}

/** A screen's `q` as given: 400 when absent or blank, 400 `invalid_query` when longer than allowed. */
export const requireQ = (q: string | undefined): Either.Either<string, BadRequest | InvalidQuery> =>
  q === undefined || q.trim() === ""
    ? Either.left(new BadRequest({ message: "q is required: a WHERE-style expression such as price > 10" }))
    : q.length > MAX_Q_LENGTH
      ? Either.left(new InvalidQuery({ message: `q is ${q.length} characters; at most ${MAX_Q_LENGTH} are allowed` }))
      : Either.right(q)

/** The parameters of a scan, or the 400 naming the first one that is wrong. */
export const scanParameters = (
  input: ScanInput,
  saved: SavedScan | undefined,
  requireAsof: boolean
): Either.Either<ScanParameters, BadRequest | InvalidQuery> =>
  Either.gen(function* () {
    const q = yield* requireQ(input.q ?? saved?.q)
    const order = yield* validateOrder(input.order ?? saved?.order ?? DEFAULT_ORDER)
    const dir = yield* validateDir(input.dir ?? saved?.dir ?? DEFAULT_DIR)
    const fields = input.fields !== undefined ? yield* validateFields(input.fields) : [...(saved?.fields ?? [])]
    const limit = yield* pageSize(input.limit, 100, 50)
    if (requireAsof && input.asof === undefined) {
      return yield* Either.left(new BadRequest({ message: "asof is required on /v2/scan/history: a date YYYY-MM-DD" }))
    }
    const asof = input.asof === undefined ? undefined : yield* parseDate("asof", input.asof)
    return {
      q,
      universe: input.universe ?? saved?.universe ?? undefined,
      asof,
      order,
      dir,
      fields,
      limit,
      cursor: input.cursor,
      rule: input.rule
    }
  })

export type ScanAnswer = Schema.Schema.Type<typeof ScanResponse>

/** What the answer is computed from, once the parameters are valid. */
export interface ScanSource {
  readonly accountId: string
  /** the compiled `q` (its matches are all the answer reads) */
  readonly compiled: Matcher
  /** the live snapshot, or the daily state as of `asof` */
  readonly snapshot: Snapshot
  /** the universe's rows (ascending), when scoped: the rows matched and ranked among */
  readonly rows: Int32Array | undefined
  readonly scope: { readonly universe: string; readonly size: number } | undefined
  readonly codec: CursorCodec
}

const decodePosition = (
  raw: unknown,
  kind: "numeric" | "boolean" | "string"
): { value: OrderValue; ticker: string } | undefined => {
  if (!Array.isArray(raw) || raw.length !== 2 || typeof raw[1] !== "string") return undefined
  const value = raw[0]
  if (value === null) return { value, ticker: raw[1] }
  if (kind === "string" ? typeof value === "string" : typeof value === "number" && Number.isFinite(value)) {
    return { value, ticker: raw[1] }
  }
  return undefined
}

/**
 * The page of a scan as the JSON text of a `ScanResponse`: the matches of `q` in (order value,
 * ticker) order after the cursor's position, rendered; 400 for a cursor this walk did not issue.
 * The cursor is bound to the account and every parameter of the walk.
 */
export const scanAnswer = (p: ScanParameters, source: ScanSource): Either.Either<string, BadRequest> => {
  const { snapshot, codec } = source
  const binding = {
    endpoint: "scan",
    account: source.accountId,
    q: p.q,
    universe: p.universe ?? null,
    asof: p.asof ?? null,
    order: p.order,
    dir: p.dir,
    fields: p.fields,
    limit: p.limit,
    rule: p.rule ?? null
  }
  const column = snapshot.columns.get(p.order)!
  const after = readCursor(codec, binding, p.cursor, (carried) => decodePosition(carried, column.kind))
  if (Either.isLeft(after)) return Either.left(after.left)

  // the universe is also the scope cross-sectional functions (PCT_RANK, RANK, ZSCORE) rank among
  const matches = source.compiled.matchBits(snapshot, source.rows, source.rows)
  const page = pageOf(snapshot, matches, p.order, p.dir === "desc", p.limit, after.right)
  const columns = rowColumns(p.order, p.fields)
  const rowDays = p.asof !== undefined ? (snapshot as { rowDays?: Int32Array }).rowDays : undefined
  const results =
    rowDays === undefined
      ? renderRowsJson(snapshot, page.rows, columns)
      : JSON.stringify(
          page.rows.map((r) => {
            const row = renderRow(snapshot, r, columns)
            row.date = isoDate(rowDays[r]!)
            return row
          })
        )
  const last = page.rows[page.rows.length - 1]
  const nextCursor =
    page.more && last !== undefined ? codec.encode(binding, [valueAt(column, last), snapshot.tickers[last]!]) : null
  const query: ScanAnswer["query"] = {
    q: p.q,
    limit: p.limit,
    order: p.order,
    dir: p.dir,
    fields: p.fields,
    full: p.fields.includes("*"),
    universe: p.universe ?? null,
    ...(p.asof !== undefined ? { asof: p.asof } : {}),
    ...(p.rule !== undefined ? { rule: p.rule } : {})
  }
  const meta: ScanAnswer["_meta"] = {
    ...(p.asof !== undefined ? { resolution: "daily" as const, frozen_fields: [...FROZEN_FIELDS] } : {}),
    ...(source.scope !== undefined ? { scope: source.scope } : {})
  }
  // ScanResponse's keys in its order, as its encoding and `JSON.stringify` would write them
  return Either.right(
    `{"as_of":${JSON.stringify(p.asof ?? isoAsOf(snapshot))},"query":${JSON.stringify(query)},"count":${page.rows.length},"total":${matches.count},"next_cursor":${JSON.stringify(nextCursor)},"results":${results},"_meta":${JSON.stringify(meta)}}`
  )
}
