/**
 * The scan: compile `q` for the account, pick the snapshot (live, or the
 * daily state as of `asof`), restrict it to the universe's rows, evaluate,
 * then page through the matches in (order value, ticker) order. See
 * docs/scan.md.
 */
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Either } from "effect"
import type { MarketData } from "../../market/engine/MarketData.js"
import { epochDay, isoDate } from "../../market/indicators/days.js"
import type { Snapshot } from "../../market/snapshot.js"
import { Tickers } from "../../market/tickers/index.js"
import { Rules } from "../../store/rules.js"
import { VigilApi } from "../Api.js"
import { Cursors } from "../cursor.js"
import { BadRequest, NotFound, unavailable } from "../errors.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { dayOf, resolveUniverse, rowsOfTickers } from "../universes/resolve.js"
import { compileFor } from "../v2/query.js"
import { FROZEN_FIELDS, isoAsOf, liveSnapshot, marketData, pageSize, parseDate, renderRow } from "../v2/shared.js"
import { type OrderValue, pageOf, valueAt } from "./order.js"
import {
  DEFAULT_DIR,
  DEFAULT_ORDER,
  MAX_Q_LENGTH,
  rowColumns,
  validateDir,
  validateFields,
  validateOrder
} from "./params.js"

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

const badCursor = (why: string) => new BadRequest({ message: `cursor: ${why}` })

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

export const runScan = (input: ScanInput, requireAsof: boolean) =>
  Effect.gen(function* () {
    const key = yield* CurrentKey
    const accountId = key.account.id
    let saved:
      | {
          readonly q: string
          readonly universe: string | null
          readonly order: string
          readonly dir: string
          readonly fields: ReadonlyArray<string>
        }
      | undefined
    if (input.rule !== undefined) {
      const rules = yield* Rules
      const found = yield* rules
        .get(accountId, input.rule)
        .pipe(Effect.catchTag("SqlError", () => Effect.fail(unavailable())))
      if (found === undefined) {
        return yield* new NotFound({ message: `rule ${JSON.stringify(input.rule)} not found` })
      }
      saved = found
    }
    const q = input.q ?? saved?.q
    if (q === undefined || q.trim() === "") {
      return yield* new BadRequest({ message: "q is required: a WHERE-style expression such as price > 10" })
    }
    if (q.length > MAX_Q_LENGTH) {
      return yield* new BadRequest({
        code: "invalid_query",
        message: `q is ${q.length} characters; at most ${MAX_Q_LENGTH} are allowed`
      })
    }
    const universe = input.universe ?? saved?.universe ?? undefined
    const order = yield* validateOrder(input.order ?? saved?.order ?? DEFAULT_ORDER)
    const dir = yield* validateDir(input.dir ?? saved?.dir ?? DEFAULT_DIR)
    const fields = input.fields !== undefined ? yield* validateFields(input.fields) : [...(saved?.fields ?? [])]
    const limit = yield* pageSize(input.limit, 100, 50)
    if (requireAsof && input.asof === undefined) {
      return yield* new BadRequest({ message: "asof is required on /v2/scan/history: a date YYYY-MM-DD" })
    }
    const asof = input.asof === undefined ? undefined : yield* parseDate("asof", input.asof)
    const directory = yield* Tickers
    const compiled = yield* compileFor(q, directory, key.account)

    // the snapshot and the scan's day
    let md: MarketData | undefined
    let snapshot: Snapshot
    let day: number
    if (asof !== undefined) {
      md = yield* marketData
      const today = isoDate(dayOf(md.latest.asOf))
      if (asof > today) {
        return yield* new BadRequest({ message: `asof ${asof} is in the future (today is ${today})` })
      }
      snapshot = md.snapshotAsOf(asof)
      day = epochDay(asof)
    } else {
      snapshot = yield* liveSnapshot
      day = dayOf(snapshot.asOf)
    }

    // the universe's rows
    let rows: Int32Array | undefined
    let scope: { universe: string; size: number } | undefined
    if (universe !== undefined) {
      if (md === undefined) md = yield* marketData
      const tickers = yield* resolveUniverse(md, accountId, universe, day, asof !== undefined)
      rows = rowsOfTickers(snapshot, tickers)
      scope = { universe, size: tickers.length }
    }

    // the cursor: bound to the account and every parameter of the walk
    const codec = yield* (yield* Cursors).codec.pipe(Effect.catchTag("SqlError", () => Effect.fail(unavailable())))
    const binding = {
      endpoint: "scan",
      account: accountId,
      q,
      universe: universe ?? null,
      asof: asof ?? null,
      order,
      dir,
      fields,
      limit,
      rule: input.rule ?? null
    }
    const column = snapshot.columns.get(order)!
    let after: { value: OrderValue; ticker: string } | undefined
    if (input.cursor !== undefined) {
      const decoded = codec.decode(binding, input.cursor)
      if (Either.isLeft(decoded)) return yield* badCursor(decoded.left)
      after = decodePosition(decoded.right, column.kind)
      if (after === undefined) return yield* badCursor("cursor is invalid or was altered")
    }

    const matches = compiled.evaluate(snapshot, rows)
    const page = pageOf(snapshot, matches, order, dir === "desc", limit, after)
    const columns = rowColumns(order, fields)
    const rowDays = asof !== undefined ? (snapshot as { rowDays?: Int32Array }).rowDays : undefined
    const results = page.rows.map((r) => {
      const row = renderRow(snapshot, r, columns)
      if (rowDays !== undefined) row.date = isoDate(rowDays[r]!)
      return row
    })
    const last = page.rows[page.rows.length - 1]
    const next_cursor =
      page.more && last !== undefined ? codec.encode(binding, [valueAt(column, last), snapshot.tickers[last]!]) : null
    return {
      as_of: asof ?? isoAsOf(snapshot),
      query: {
        q,
        limit,
        order,
        dir,
        fields,
        full: fields.includes("*"),
        universe: universe ?? null,
        ...(asof !== undefined ? { asof } : {}),
        ...(input.rule !== undefined ? { rule: input.rule } : {})
      },
      count: results.length,
      total: matches.length,
      next_cursor,
      results,
      _meta: {
        ...(asof !== undefined ? { resolution: "daily" as const, frozen_fields: [...FROZEN_FIELDS] } : {}),
        ...(scope !== undefined ? { scope } : {})
      }
    }
  })

export const ScanHttpLive = HttpApiBuilder.group(VigilApi, "scan", (handlers) =>
  handlers
    .handle("scan", ({ payload }) => runScan(payload, false))
    .handle("scanGet", ({ urlParams }) => runScan(urlParams, false))
    .handle("history", ({ payload }) => runScan(payload, true))
    .handle("historyGet", ({ urlParams }) => runScan(urlParams, true))
)
