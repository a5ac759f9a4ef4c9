/** A signal's matches, live or as of a date, optionally within a universe, paged. */
import { Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { epochDay } from "../../market/indicators/days.js"
import { Market } from "../../market/Market.js"
import type { Snapshot } from "../../market/snapshot.js"
import { asOfSnapshot, isoAsOf, liveSnapshot, marketData } from "../common/market.js"
import { pageSize, parseDate } from "../common/params.js"
import { FROZEN_FIELDS } from "../common/rows.js"
import { cursorCodec, readCursor } from "../cursor.js"
import { BadRequest } from "../errors.js"
import { dayOf, resolveUniverse, rowsOfTickers } from "../universes/resolve.js"
import { booleanMatches, type Match, numericMatches, parseCondition, rowMatches, startAfter } from "./matching.js"
import { resolveSignal } from "./resolve.js"

export const signalMatches = (
  key: AuthenticatedKey,
  path: { readonly signal: string },
  urlParams: {
    readonly condition?: string | undefined
    readonly asof?: string | undefined
    readonly universe?: string | undefined
    readonly limit?: number | undefined
    readonly cursor?: string | undefined
  }
) =>
  Effect.gen(function* () {
    const market = yield* Market
    const limit = yield* pageSize(urlParams.limit, 200, 50)
    const resolved = yield* resolveSignal(path.signal, key, market.directory)
    const numeric = resolved.kind === "builtin" && resolved.column.type === "numeric"
    let condition: ReturnType<typeof parseCondition>
    if (numeric) {
      if (urlParams.condition === undefined || urlParams.condition.trim() === "") {
        return yield* new BadRequest({
          message: `${path.signal.toLowerCase()} is a numeric signal: condition is required, e.g. condition=>70`
        })
      }
      condition = parseCondition(urlParams.condition)
      if (condition === undefined) {
        return yield* new BadRequest({
          message: `condition must be <op><value> with op one of >, >=, =, !=, <, <= (got ${JSON.stringify(urlParams.condition)})`
        })
      }
    }
    let snapshot: Snapshot
    let asof: string | undefined
    if (urlParams.asof !== undefined) {
      asof = yield* parseDate("asof", urlParams.asof)
      const md = yield* marketData
      snapshot = yield* asOfSnapshot(md, key, asof)
    } else {
      snapshot = yield* liveSnapshot
    }
    let rows: Int32Array | undefined
    if (urlParams.universe !== undefined) {
      const day = asof !== undefined ? epochDay(asof) : dayOf(snapshot.asOf)
      const md = yield* marketData
      rows = rowsOfTickers(
        snapshot,
        yield* resolveUniverse(md, key.account.id, urlParams.universe, day, asof !== undefined)
      )
    }
    const matches: Array<Match> =
      resolved.kind === "custom"
        ? rowMatches(snapshot, resolved.compiled.evaluate(snapshot, rows, rows))
        : numeric
          ? numericMatches(snapshot, resolved.column, condition!, rows)
          : booleanMatches(snapshot, resolved.column, rows)
    const signal = resolved.kind === "custom" ? resolved.name : resolved.column.name
    const binding = {
      endpoint: "signal_matches",
      account: key.account.id,
      signal,
      condition: condition?.text ?? null,
      asof: asof ?? null,
      universe: urlParams.universe ?? null,
      limit
    }
    const start =
      (yield* readCursor(yield* cursorCodec, binding, urlParams.cursor, (carried) =>
        startAfter(matches, numeric, carried)
      )) ?? 0
    const page = matches.slice(start, start + limit)
    const last = page[page.length - 1]
    const more = start + limit < matches.length && last !== undefined
    const names = snapshot.columns.get("name")
    return {
      as_of: asof ?? isoAsOf(snapshot),
      signal,
      condition: condition?.text ?? null,
      count: page.length,
      total: matches.length,
      next_cursor: more
        ? (yield* cursorCodec).encode(binding, numeric ? [last.value, last.ticker] : last.ticker)
        : null,
      results: page.map((m) => ({
        ticker: m.ticker,
        name: names !== undefined && names.kind === "string" ? (names.values[m.row] ?? "") : "",
        value: m.value
      })),
      ...(asof !== undefined ? { _meta: { resolution: "daily" as const, frozen_fields: [...FROZEN_FIELDS] } } : {})
    }
  })
