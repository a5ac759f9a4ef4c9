import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect, Layer } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { PLAN_LIMITS } from "../../accounts/plans.js"
import { builtinSignalEntry, type ColumnDef, columnByName, isAvailableAt, SIGNALS } from "../../market/catalog.js"
import { DAY_MS, epochDay, isoDate } from "../../market/indicators/days.js"
import { Market } from "../../market/Market.js"
import type { Snapshot } from "../../market/snapshot.js"
import type { TickerDirectory } from "../../market/tickers/index.js"
import { type CompiledQuery, type Signals, signalsOf } from "../../query/index.js"
import { type CustomSignal, CustomSignals } from "../../store/customSignals.js"
import { VigilApi } from "../Api.js"
import { accountSignals, compileConsuming, compileContext, type QueryRejected } from "../common/compile.js"
import { requireFeature } from "../common/features.js"
import { isoAsOf, liveSnapshot, marketData } from "../common/market.js"
import { pageSize, parseDate } from "../common/params.js"
import { FROZEN_FIELDS } from "../common/rows.js"
import { Cursors, integerPosition, readCursor, stringPosition } from "../cursor.js"
import {
  AlreadyExists,
  BadRequest,
  type CustomSignalsTierRequired,
  HistoryWindowExceeded,
  NameCollision,
  NotFound,
  orUnavailable,
  ResourceLimitReached,
  SignalNotAvailableAtInterval,
  SignalReferenced,
  TickerNotInMinuteTier
} from "../errors.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { dayOf, resolveUniverse, rowsOfTickers } from "../universes/resolve.js"
import { signalEvents } from "./events.js"
import { columnPage, customPage, type HistoryInterval, INTERVALS, minuteTier, nextTo, type Window } from "./history.js"
import {
  booleanMatches,
  identifiersIn,
  isIdentifier,
  MAX_DESCRIPTION,
  MAX_EXPR,
  type Match,
  NAME,
  numericMatches,
  parseCondition,
  rowMatches,
  startAfter
} from "./matching.js"
import { SignalStats } from "./SignalStats.js"
import { signalStats } from "./stats.js"

const requireCustomPlan = (key: AuthenticatedKey) => requireFeature(key, "customSignals", "custom signals")

const nowIso = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

const entryOf = (s: CustomSignal) => ({
  name: s.name,
  kind: "expression" as const,
  description: s.description,
  expr: s.expr,
  created_at: s.createdAt,
  updated_at: s.updatedAt
})

const builtinReadOnly = (name: string) =>
  new BadRequest({ message: `${name} is a built-in signal; built-in signals cannot be changed or deleted` })

const checkLengths = (expr: string | undefined, description: string | null | undefined) => {
  if (expr !== undefined && expr.trim() === "")
    return Effect.fail(new BadRequest({ message: "expr must not be empty" }))
  if (expr !== undefined && expr.length > MAX_EXPR) {
    return Effect.fail(new BadRequest({ message: `expr is ${expr.length} characters; the maximum is ${MAX_EXPR}` }))
  }
  if (description !== undefined && description !== null && description.length > MAX_DESCRIPTION) {
    return Effect.fail(
      new BadRequest({
        message: `description is ${description.length} characters; the maximum is ${MAX_DESCRIPTION}`
      })
    )
  }
  return Effect.void
}

/**
 * Compiles a custom signal's `expr` in "expr" mode: the account's other
 * signals inlined (this one included under its own name, so a reference to
 * itself is a cycle), the root boolean.
 */
const compileExpr = (
  directory: TickerDirectory,
  key: AuthenticatedKey,
  name: string,
  expr: string,
  existing: ReadonlyArray<CustomSignal>
): Effect.Effect<CompiledQuery, QueryRejected | CustomSignalsTierRequired> => {
  const defs = new Map(existing.filter((s) => s.name !== name).map((s) => [s.name, s.expr]))
  defs.set(name, expr)
  const ctx = { ...compileContext(directory, signalsOf(defs), "expr"), self: name }
  return compileConsuming(expr, ctx, key.account.plan, "expr")
}

type Resolved =
  | { readonly kind: "builtin"; readonly column: ColumnDef }
  | { readonly kind: "custom"; readonly name: string; readonly compiled: CompiledQuery }

/** A signal by path name: a built-in signal column, else one of the account's custom signals (Pro to consume). */
const resolveSignal = (raw: string, key: AuthenticatedKey, directory: TickerDirectory) =>
  Effect.gen(function* () {
    const name = raw.toLowerCase()
    const column = columnByName.get(name)
    if (column !== undefined) {
      if (!column.signal) {
        return yield* new NotFound({ message: `${name} is a string column, not a signal` })
      }
      return { kind: "builtin", column } as Resolved
    }
    const signals: Signals = yield* accountSignals(key.account.id)
    if (signals.get(name) === undefined) {
      return yield* new NotFound({
        message: `no signal ${JSON.stringify(raw)}: not a built-in nor a custom signal of this account`
      })
    }
    const compiled = yield* compileConsuming(
      name,
      compileContext(directory, signals),
      key.account.plan,
      `signal ${name}`
    )
    return { kind: "custom", name, compiled } as Resolved
  })

/** An instant from `from`/`to`: a date means the start (from) or the end (to) of that UTC day. */
const parseBound = (name: string, raw: string, end: boolean) =>
  Effect.map(parseDate(name, raw), (date) => {
    if (raw.trim().length === 10) return Date.parse(`${date}T00:00:00Z`) + (end ? DAY_MS - 1 : 0)
    return Date.parse(raw.trim())
  })

const isInterval = (s: string): s is HistoryInterval => (INTERVALS as ReadonlyArray<string>).includes(s)

export const SignalsHttpLive = HttpApiBuilder.group(VigilApi, "signals", (handlers) =>
  Effect.gen(function* () {
    const repo = yield* CustomSignals
    const cursors = yield* Cursors
    const market = yield* Market
    const codec = orUnavailable(cursors.codec)

    return handlers
      .handle("catalog", ({ urlParams }) =>
        Effect.gen(function* () {
          const key = yield* CurrentKey
          const kind = urlParams.kind
          if (kind !== undefined && kind !== "builtin" && kind !== "custom") {
            return yield* new BadRequest({ message: `kind must be builtin or custom (got ${JSON.stringify(kind)})` })
          }
          const limit = yield* pageSize(urlParams.limit, 200, 50)
          const binding = { endpoint: "signals_catalog", account: key.account.id, kind: kind ?? null, limit }
          const after = yield* readCursor(yield* codec, binding, urlParams.cursor, stringPosition)
          const countCustom = yield* orUnavailable(repo.count(key.account.id))
          const page =
            kind === "builtin"
              ? { signals: [], more: false }
              : yield* orUnavailable(repo.list(key.account.id, after, limit))
          const last = page.signals[page.signals.length - 1]
          return {
            as_of: yield* nowIso,
            count_builtin: SIGNALS.length,
            count_custom: countCustom,
            next_cursor: page.more && last !== undefined ? (yield* codec).encode(binding, last.name) : null,
            signals: [...page.signals.map(entryOf), ...(kind === "custom" ? [] : SIGNALS.map(builtinSignalEntry))]
          }
        })
      )
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          const key = yield* CurrentKey
          yield* requireCustomPlan(key)
          const { name, expr } = payload
          if (!NAME.test(name)) {
            return yield* new BadRequest({
              message: `name must match ^[a-z][a-z0-9_]{0,63}$ (lower-case letter first; letters, digits, underscore; at most 64) (got ${JSON.stringify(name)})`
            })
          }
          if (columnByName.has(name)) {
            return yield* new NameCollision({
              message: `${name} is a built-in column; choose another name`
            })
          }
          if (!isIdentifier(name)) {
            return yield* new BadRequest({ message: `${name} is a reserved word of the expression language` })
          }
          yield* checkLengths(expr, payload.description)
          const existing = yield* orUnavailable(repo.all(key.account.id))
          if (existing.some((s) => s.name === name)) {
            return yield* new AlreadyExists({ message: `this account already has a signal ${name}` })
          }
          yield* compileExpr(market.directory, key, name, expr, existing)
          const cap = PLAN_LIMITS[key.account.plan].customSignals
          const created = yield* orUnavailable(
            repo.create(key.account.id, { name, expr, description: payload.description ?? null }, cap)
          ).pipe(
            Effect.catchTags({
              CustomSignalExists: () =>
                Effect.fail(new AlreadyExists({ message: `this account already has a signal ${name}` })),
              CustomSignalLimitReached: (e) =>
                Effect.fail(
                  new ResourceLimitReached({
                    message: `the ${key.account.plan} plan allows ${e.limit} custom signals; delete one or upgrade`,
                    details: { limit: e.limit }
                  })
                )
            })
          )
          return { as_of: yield* nowIso, signal: entryOf(created) }
        })
      )
      .handle("update", ({ path, payload }) =>
        Effect.gen(function* () {
          const key = yield* CurrentKey
          const name = path.signal
          if (columnByName.has(name.toLowerCase())) return yield* builtinReadOnly(name.toLowerCase())
          yield* requireCustomPlan(key)
          if (payload.expr === undefined && payload.description === undefined) {
            return yield* new BadRequest({ message: "nothing to change: give expr and/or description" })
          }
          yield* checkLengths(payload.expr, payload.description)
          const existing = yield* orUnavailable(repo.all(key.account.id))
          if (!existing.some((s) => s.name === name)) {
            return yield* new NotFound({ message: `this account has no custom signal ${JSON.stringify(name)}` })
          }
          if (payload.expr !== undefined) yield* compileExpr(market.directory, key, name, payload.expr, existing)
          const updated = yield* orUnavailable(
            repo.update(key.account.id, name, { expr: payload.expr, description: payload.description })
          )
          if (updated._tag === "None") {
            return yield* new NotFound({ message: `this account has no custom signal ${JSON.stringify(name)}` })
          }
          return { as_of: yield* nowIso, signal: entryOf(updated.value) }
        })
      )
      .handle("remove", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const key = yield* CurrentKey
          const name = path.signal
          if (columnByName.has(name.toLowerCase())) return yield* builtinReadOnly(name.toLowerCase())
          yield* requireCustomPlan(key)
          const existing = yield* orUnavailable(repo.all(key.account.id))
          if (!existing.some((s) => s.name === name)) {
            return yield* new NotFound({ message: `this account has no custom signal ${JSON.stringify(name)}` })
          }
          if (urlParams.force !== "true") {
            const referencing = existing
              .filter((s) => s.name !== name && identifiersIn(s.expr).has(name))
              .map((s) => s.name)
            if (referencing.length > 0) {
              return yield* new SignalReferenced({
                message: `${name} is referenced by ${referencing.join(", ")}; pass force=true to delete it anyway`,
                referencing_signals: referencing
              })
            }
          }
          if (!(yield* orUnavailable(repo.remove(key.account.id, name)))) {
            return yield* new NotFound({ message: `this account has no custom signal ${JSON.stringify(name)}` })
          }
          return { as_of: yield* nowIso, ok: true as const }
        })
      )
      .handle("matches", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const key = yield* CurrentKey
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
            snapshot = md.snapshotAsOf(asof)
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
              ? rowMatches(snapshot, resolved.compiled.evaluate(snapshot, rows))
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
            (yield* readCursor(yield* codec, binding, urlParams.cursor, (carried) =>
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
              ? (yield* codec).encode(binding, numeric ? [last.value, last.ticker] : last.ticker)
              : null,
            results: page.map((m) => ({
              ticker: m.ticker,
              name: names !== undefined && names.kind === "string" ? (names.values[m.row] ?? "") : "",
              value: m.value
            })),
            ...(asof !== undefined
              ? { _meta: { resolution: "daily" as const, frozen_fields: [...FROZEN_FIELDS] } }
              : {})
          }
        })
      )
      .handle("history", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const key = yield* CurrentKey
          const interval = path.interval
          if (!isInterval(interval)) {
            return yield* new BadRequest({
              message: `interval must be one of 1m, 1h, 1d, 1w (got ${JSON.stringify(interval)})`
            })
          }
          const limit = yield* pageSize(urlParams.limit, 1000, 252)
          const meta = market.directory.lookup(path.ticker)
          if (meta === undefined) return yield* new NotFound({ message: `ticker ${path.ticker} is not tracked` })
          const resolved = yield* resolveSignal(path.signal, key, market.directory)
          const intraday = interval === "1m" || interval === "1h"
          const signal = resolved.kind === "custom" ? resolved.name : resolved.column.name
          if (resolved.kind === "builtin" && !isAvailableAt(resolved.column, interval)) {
            return yield* new SignalNotAvailableAtInterval({
              message: `${signal} is a daily-only column: use 1d or 1w (minute-tier columns only at ${interval})`
            })
          }
          if (resolved.kind === "custom") {
            if (resolved.compiled.tickers.length > 0) {
              return yield* new BadRequest({
                message: `${signal} references other tickers (${resolved.compiled.tickers.join(", ")}); such signals have no per-ticker history`
              })
            }
            const daily = resolved.compiled.columns.filter((c) => {
              const def = columnByName.get(c)
              return def !== undefined && def.type !== "string" && !isAvailableAt(def, interval)
            })
            if (daily.length > 0) {
              return yield* new SignalNotAvailableAtInterval({
                message: `${signal} uses daily-only columns (${daily.join(", ")}): use 1d or 1w`
              })
            }
          }
          const md = yield* marketData
          const live = yield* liveSnapshot
          if (intraday && !minuteTier(live).has(meta.ticker)) {
            return yield* new TickerNotInMinuteTier({
              message: `${meta.ticker} is not among the top 200 tickers by 30-day dollar volume that have minute bars; use 1d or 1w`
            })
          }
          const now = yield* Clock.currentTimeMillis
          const today = Math.floor(now / DAY_MS)
          const maxDays = PLAN_LIMITS[key.account.plan].maxHistoryDays
          const planStartDay = maxDays === null ? Number.NEGATIVE_INFINITY : today - maxDays
          const coverageStartMs = intraday
            ? live.asOf - (md.options.minuteHistoryDays ?? 730) * DAY_MS
            : md.earliestDay * DAY_MS
          const windowStartMs = Math.max(planStartDay * DAY_MS, Math.floor(coverageStartMs / DAY_MS) * DAY_MS)
          const exceeded = (earliestMs: number, why: string) =>
            new HistoryWindowExceeded({
              message: why,
              details: { max_history_days: maxDays, earliest_allowed_from: isoDate(Math.floor(earliestMs / DAY_MS)) }
            })
          let fromMs = windowStartMs
          if (urlParams.from !== undefined) {
            fromMs = yield* parseBound("from", urlParams.from, false)
            if (fromMs < planStartDay * DAY_MS) {
              return yield* exceeded(
                planStartDay * DAY_MS,
                `from ${urlParams.from} is before the ${key.account.plan} plan's history window (${maxDays} days)`
              )
            }
            if (fromMs < Math.floor(coverageStartMs / DAY_MS) * DAY_MS) {
              return yield* exceeded(
                coverageStartMs,
                `from ${urlParams.from} is before the data available at ${interval}`
              )
            }
          }
          const toMs = urlParams.to !== undefined ? yield* parseBound("to", urlParams.to, true) : now
          if (toMs < fromMs) {
            if (urlParams.from === undefined && toMs >= 0) {
              return yield* exceeded(windowStartMs, `to ${urlParams.to} is before the history window`)
            }
            return yield* new BadRequest({ message: "to is before from" })
          }
          const binding = {
            endpoint: "signal_history",
            account: key.account.id,
            signal,
            ticker: meta.ticker,
            interval,
            from: urlParams.from ?? null,
            to: urlParams.to ?? null,
            limit
          }
          let window: Window = {
            interval,
            from: intraday ? fromMs : Math.ceil(fromMs / DAY_MS),
            to: intraday ? toMs : Math.floor(toMs / DAY_MS),
            limit
          }
          const position = yield* readCursor(yield* codec, binding, urlParams.cursor, integerPosition)
          if (position !== undefined) window = { ...window, to: Math.min(window.to, nextTo(interval, position)) }
          const page =
            window.to < window.from
              ? { points: [], more: false }
              : resolved.kind === "custom"
                ? customPage(md, meta, resolved.compiled, window)
                : columnPage(md, meta.ticker, resolved.column.name, window)
          const oldest = page.points[0]
          return {
            as_of: isoAsOf(live),
            ticker: meta.ticker,
            signal,
            interval,
            count: page.points.length,
            next_cursor: page.more && oldest !== undefined ? (yield* codec).encode(binding, oldest.key) : null,
            bars: page.points.map((p) => ({
              t: intraday ? new Date(p.key).toISOString() : isoDate(p.key),
              v: p.v
            }))
          }
        })
      )
      .handle("events", signalEvents)
      .handle("stats", (request) => signalStats(request, resolveSignal))
  })
).pipe(Layer.provide(SignalStats.Default))
