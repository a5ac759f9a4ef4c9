/**
 * Custom signals: the catalog (built-ins and the account's own, paged), and
 * creating, changing and deleting one — the name rules, lengths, compiling
 * `expr` with the account's other signals (Pro and above), the plan's cap, the
 * refusal to delete a signal others reference.
 */
import { Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { PLAN_LIMITS } from "../../accounts/plans.js"
import { builtinSignalEntry, columnByName, SIGNALS } from "../../market/catalog.js"
import { Market } from "../../market/Market.js"
import type { TickerDirectory } from "../../market/tickers/index.js"
import { type CompiledQuery, signalsOf } from "../../query/index.js"
import { type CustomSignal, CustomSignals } from "../../store/customSignals.js"
import { nowIso } from "../common/clock.js"
import { compileConsuming, compileContext, type QueryRejected } from "../common/compile.js"
import { requireFeature } from "../common/features.js"
import { pageSize } from "../common/params.js"
import { cursorCodec, readCursor, stringPosition } from "../cursor.js"
import {
  AlreadyExists,
  BadRequest,
  type CustomSignalsTierRequired,
  NameCollision,
  NotFound,
  orUnavailable,
  ResourceLimitReached,
  SignalReferenced
} from "../errors.js"
import { identifiersIn, isIdentifier, MAX_DESCRIPTION, MAX_EXPR, NAME } from "./matching.js"

const requireCustomPlan = (key: AuthenticatedKey) => requireFeature(key, "customSignals", "custom signals")

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

export const signalCatalog = (
  key: AuthenticatedKey,
  urlParams: {
    readonly kind?: string | undefined
    readonly limit?: number | undefined
    readonly cursor?: string | undefined
  }
) =>
  Effect.gen(function* () {
    const repo = yield* CustomSignals
    const kind = urlParams.kind
    if (kind !== undefined && kind !== "builtin" && kind !== "custom") {
      return yield* new BadRequest({ message: `kind must be builtin or custom (got ${JSON.stringify(kind)})` })
    }
    const limit = yield* pageSize(urlParams.limit, 200, 50)
    const binding = { endpoint: "signals_catalog", account: key.account.id, kind: kind ?? null, limit }
    const after = yield* readCursor(yield* cursorCodec, binding, urlParams.cursor, stringPosition)
    const countCustom = yield* orUnavailable(repo.count(key.account.id))
    const page =
      kind === "builtin" ? { signals: [], more: false } : yield* orUnavailable(repo.list(key.account.id, after, limit))
    const last = page.signals[page.signals.length - 1]
    return {
      as_of: yield* nowIso,
      count_builtin: SIGNALS.length,
      count_custom: countCustom,
      next_cursor: page.more && last !== undefined ? (yield* cursorCodec).encode(binding, last.name) : null,
      signals: [...page.signals.map(entryOf), ...(kind === "custom" ? [] : SIGNALS.map(builtinSignalEntry))]
    }
  })

export const createSignal = (
  key: AuthenticatedKey,
  payload: { readonly name: string; readonly expr: string; readonly description?: string | null | undefined }
) =>
  Effect.gen(function* () {
    const repo = yield* CustomSignals
    const market = yield* Market
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

export const updateSignal = (
  key: AuthenticatedKey,
  path: { readonly signal: string },
  payload: { readonly expr?: string | undefined; readonly description?: string | null | undefined }
) =>
  Effect.gen(function* () {
    const repo = yield* CustomSignals
    const market = yield* Market
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

export const removeSignal = (
  key: AuthenticatedKey,
  path: { readonly signal: string },
  urlParams: { readonly force?: string | undefined }
) =>
  Effect.gen(function* () {
    const repo = yield* CustomSignals
    const name = path.signal
    if (columnByName.has(name.toLowerCase())) return yield* builtinReadOnly(name.toLowerCase())
    yield* requireCustomPlan(key)
    const existing = yield* orUnavailable(repo.all(key.account.id))
    if (!existing.some((s) => s.name === name)) {
      return yield* new NotFound({ message: `this account has no custom signal ${JSON.stringify(name)}` })
    }
    if (urlParams.force !== "true") {
      const referencing = existing.filter((s) => s.name !== name && identifiersIn(s.expr).has(name)).map((s) => s.name)
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
