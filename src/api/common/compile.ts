/**
 * Compiling `q` and conditions in requests: the catalog's columns, tracked
 * tickers for cross-ticker references, the account's custom signals, and the
 * mapping of `QueryError` onto the API's 400 envelope (`invalid_query`,
 * `compile_failed`, `recursion_depth_exceeded`, with `errors[]`), and the
 * plan rule for consuming custom signals (`compileConsuming`, the one place
 * every scan, signal read, subscription, rule and custom signal goes through).
 */
import { Effect, Either } from "effect"
import type { Account } from "../../accounts/Accounts.js"
import type { Plan } from "../../accounts/plans.js"
import { CATALOG } from "../../market/catalog.js"
import type { TickerDirectory } from "../../market/tickers/index.js"
import {
  type CompileContext,
  type CompiledQuery,
  columnsOf,
  compileMatcher,
  compileQuery,
  type Matcher,
  type Mode,
  type QueryError,
  type Signals
} from "../../query/index.js"
import { makeSeenBefore } from "../../seenBefore.js"
import { SignalResolver } from "../../signals/SignalResolver.js"
import {
  CompileFailed,
  type CustomSignalsTierRequired,
  InvalidQuery,
  orUnavailable,
  RecursionDepthExceeded,
  type ServiceUnavailable
} from "../errors.js"
import { requireFeature } from "./features.js"

/** Every column of the ticker row, for compiling. */
export const catalogColumns = columnsOf(CATALOG)

export const compileContext = (
  directory: TickerDirectory,
  signals?: Signals,
  mode: Mode = "query"
): CompileContext => ({
  columns: catalogColumns,
  tickers: (symbol) => directory.lookup(symbol)?.ticker,
  signals,
  mode
})

const QUERY_ERRORS = {
  invalid_query: InvalidQuery,
  compile_failed: CompileFailed,
  recursion_depth_exceeded: RecursionDepthExceeded
} as const

/** The 400s of an expression that does not compile. */
export type QueryRejected = InvalidQuery | CompileFailed | RecursionDepthExceeded

/** The 400 for a `q` that does not compile: the spec's code, a message naming the problem, `errors[]`. */
export const queryRejection = (e: QueryError, parameter = "q"): QueryRejected =>
  new QUERY_ERRORS[e.code]({ message: `${parameter}: ${e.message}`, details: { errors: e.errors } })

/**
 * Compiles `text` in `ctx` for an account on `plan`: 400 when it does not compile, and 403
 * `custom_signals_tier_required` when it consumes (inlines) any custom signal and the plan is below
 * Pro, downgraded accounts included. A name that is not one of the account's custom signals is a
 * column name as written, so such text compiles (or fails) the same on every plan.
 */
export const compileConsuming = (
  text: string,
  ctx: CompileContext,
  plan: Plan,
  parameter: string
): Effect.Effect<CompiledQuery, QueryRejected | CustomSignalsTierRequired> => {
  const compiled = compileQuery(text, ctx)
  if (Either.isLeft(compiled)) return Effect.fail(queryRejection(compiled.left, parameter))
  const signals = compiled.right.signals
  if (signals.length === 0) return Effect.succeed(compiled.right)
  return Effect.as(
    requireFeature(plan, "customSignals", `consuming custom signals (${signals.join(", ")})`),
    compiled.right
  )
}

/** The account's custom signals, or 503 when the database cannot answer. */
export const accountSignals = (accountId: string): Effect.Effect<Signals, ServiceUnavailable, SignalResolver> =>
  Effect.flatMap(SignalResolver, (r) => orUnavailable(r.signalsFor(accountId)))

/** How many signal-free compilations are kept per directory (least recently used out). */
const COMPILED_CACHE_SIZE = 512

/**
 * Compilations of `q`s that name no custom signal: they depend only on the text, the (static)
 * catalog and the (immutable) ticker directory, and a compiled query is reused read-only, so
 * repeated scans skip parsing, checking and planning.
 */
const compiledCache = new WeakMap<TickerDirectory, Map<string, CompiledQuery>>()

/**
 * A text is cached from its second compilation on (seenBefore.ts): a stream of `q`s each sent once
 * (thresholds moved per request) kept 512 compilations alive only to evict them, work for the
 * garbage collector that made each compile ~15 µs dearer.
 */
const seenBefore = makeSeenBefore()

const cacheOf = (directory: TickerDirectory): Map<string, CompiledQuery> => {
  let cache = compiledCache.get(directory)
  if (cache === undefined) {
    cache = new Map()
    compiledCache.set(directory, cache)
  }
  return cache
}

/** the cached compilation of `text`, most recently used now */
const cached = (cache: Map<string, CompiledQuery>, text: string): CompiledQuery | undefined => {
  const hit = cache.get(text)
  if (hit !== undefined) {
    cache.delete(text)
    cache.set(text, hit)
  }
  return hit
}

/** compiled now, and kept when `text` was seen before */
const compileAndKeep = (cache: Map<string, CompiledQuery>, text: string, directory: TickerDirectory) => {
  const compiled = compileQuery(text, compileContext(directory))
  if (Either.isLeft(compiled)) return undefined
  if (cache.size >= COMPILED_CACHE_SIZE) cache.delete(cache.keys().next().value as string)
  cache.set(text, compiled.right)
  return compiled.right
}

/**
 * `text` compiled through the cache: the cached compilation, or one made now and kept when `text`
 * was seen before, or else what `once` makes of a text seen once (undefined when it does not compile).
 */
const throughCache = <A>(
  text: string,
  directory: TickerDirectory,
  once: (text: string, ctx: CompileContext) => Either.Either<A, QueryError>
): CompiledQuery | A | undefined => {
  const cache = cacheOf(directory)
  const hit = cached(cache, text)
  if (hit !== undefined) return hit
  if (seenBefore(text)) return compileAndKeep(cache, text, directory)
  return Either.getOrUndefined(once(text, compileContext(directory)))
}

/** The compilation of a `q` that names no custom signal (cached), or undefined when it does not compile without them. */
export const compileWithoutSignals = (text: string, directory: TickerDirectory): CompiledQuery | undefined =>
  throughCache(text, directory, compileQuery)

/**
 * The matches of a `q` that names no custom signal, or undefined when it does not compile without
 * them: the cached compilation, or — for a `q` not seen before, answered once and dropped — a
 * compilation to its matches only (`compileMatcher`: no canonical texts, no references).
 */
export const matcherWithoutSignals = (text: string, directory: TickerDirectory): Matcher | undefined =>
  throughCache(text, directory, compileMatcher)

/**
 * Compiles a scan `q` (or a condition) for an account: custom signals resolved (on Pro and above,
 * see `compileConsuming`), errors as 400s.
 *
 * A name is a catalog column before it is a custom signal (`query/inline.ts`), so a `q` that
 * compiles without the account's signals names none of them and compiles to the same query with
 * them: the signals are read from the database only when it does not (one query less per scan),
 * and such compilations are cached.
 */
export const compileFor = (
  text: string,
  directory: TickerDirectory,
  account: Pick<Account, "id" | "plan">,
  parameter = "q"
): Effect.Effect<CompiledQuery, QueryRejected | CustomSignalsTierRequired | ServiceUnavailable, SignalResolver> =>
  Effect.suspend(() => {
    const direct = compileWithoutSignals(text, directory)
    if (direct !== undefined) return Effect.succeed(direct)
    return Effect.flatMap(accountSignals(account.id), (signals) =>
      compileConsuming(text, compileContext(directory, signals), account.plan, parameter)
    )
  })
