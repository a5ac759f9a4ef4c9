/**
 * Universes as the API sees them: the system universes (`top_10`,
 * `top_100`, membership as of a day), validation of caller-given ticker
 * lists through the ticker directory, rendering of documents, and resolving
 * the `universe` parameter of every endpoint that takes one (`lookupUniverse`).
 */
import { Effect } from "effect"
import type { MarketReader } from "../../market/engine/MarketData.js"
import { DAY_MS } from "../../market/indicators/days.js"
import type { Snapshot } from "../../market/snapshot.js"
import type { TickerDirectory } from "../../market/tickers/index.js"
import { isWellFormedSymbol } from "../../market/tickers/index.js"
import { firstOfMonth, nextFirstOfMonth, REBALANCE_METHOD } from "../../market/universes.js"
import type { UniverseRecord } from "../../store/universes.js"
import { Universes } from "../../store/universes.js"
import { BadRequest, orUnavailable, type ServiceUnavailable, UniverseNotFound, UnknownTickers } from "../errors.js"
import { MAX_UNIVERSE_SIZE, type UniverseDoc } from "./Api.js"

const DAY_S = 86_400

export const SYSTEM_UNIVERSES = { top_10: 10, top_100: 100 } as const
export type SystemId = keyof typeof SYSTEM_UNIVERSES
export const isSystemId = (id: string): id is SystemId => id === "top_10" || id === "top_100"

export const SLUG = /^[a-z0-9_]{1,64}$/

/** The UTC epoch day of an instant in milliseconds. */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS)

/** A system universe's membership in effect on `day`: tickers most traded first, and its effective day. */
export const systemMembership = (
  md: MarketReader,
  id: SystemId,
  day: number
): { readonly tickers: ReadonlyArray<string>; readonly effectiveDay: number } => {
  const m = md.membershipOn(day)
  return m === undefined
    ? { tickers: [], effectiveDay: firstOfMonth(day) }
    : { tickers: m.ranked.slice(0, SYSTEM_UNIVERSES[id]), effectiveDay: m.effectiveDay }
}

export const systemDoc = (md: MarketReader, id: SystemId, day: number, withTickers: boolean): UniverseDoc => {
  const m = systemMembership(md, id, day)
  return {
    id,
    name: id === "top_10" ? "Top 10" : "Top 100",
    description: `The ${SYSTEM_UNIVERSES[id]} most actively traded tickers by 30-day trailing dollar volume, rebalanced monthly on the 1st.`,
    ...(withTickers ? { tickers: m.tickers } : {}),
    size: m.tickers.length,
    system: true,
    effective_at: m.effectiveDay * DAY_S,
    next_rebalance_at: nextFirstOfMonth(m.effectiveDay) * DAY_S,
    rebalance_method: REBALANCE_METHOD
  }
}

export const ownDoc = (u: UniverseRecord): UniverseDoc => ({
  id: u.id,
  name: u.name,
  description: u.description,
  tickers: u.tickers,
  size: u.tickers.length,
  system: false,
  created_at: u.createdAt,
  updated_at: u.updatedAt
})

/**
 * Canonical symbols of a caller-given list, in the given order. 400
 * `bad_request` for malformed symbols (or, unless `dedupe`, duplicates after
 * canonicalisation); 400 `unknown_tickers` with `disallowed` for well-formed
 * symbols the service does not track.
 */
export const canonicalTickers = (
  directory: TickerDirectory,
  raw: ReadonlyArray<string>,
  parameter: string,
  dedupe = false
): Effect.Effect<Array<string>, BadRequest | UnknownTickers> => {
  const malformed: Array<string> = []
  const unknown: Array<string> = []
  const duplicates: Array<string> = []
  const out: Array<string> = []
  const seen = new Set<string>()
  for (const symbol of raw) {
    if (symbol.length > 32 || !isWellFormedSymbol(symbol)) {
      malformed.push(symbol)
      continue
    }
    const meta = directory.lookup(symbol)
    if (meta === undefined) {
      unknown.push(symbol)
      continue
    }
    if (seen.has(meta.ticker)) {
      if (!dedupe) duplicates.push(symbol)
      continue
    }
    seen.add(meta.ticker)
    out.push(meta.ticker)
  }
  if (malformed.length > 0) {
    return Effect.fail(
      new BadRequest({
        message: `${parameter}: malformed ticker symbol${malformed.length > 1 ? "s" : ""} ${malformed
          .slice(0, 20)
          .map((s) => JSON.stringify(s))
          .join(", ")}`,
        details: { malformed: malformed.slice(0, 100) }
      })
    )
  }
  if (unknown.length > 0) {
    return Effect.fail(
      new UnknownTickers({
        message: `${parameter}: ${unknown.length} symbol${unknown.length > 1 ? "s are" : " is"} not tracked: ${unknown
          .slice(0, 20)
          .join(", ")}`,
        details: { disallowed: unknown }
      })
    )
  }
  if (duplicates.length > 0) {
    return Effect.fail(
      new BadRequest({
        message: `${parameter}: duplicate ticker${duplicates.length > 1 ? "s" : ""} ${duplicates.slice(0, 20).join(", ")}`,
        details: { duplicates }
      })
    )
  }
  return Effect.succeed(out)
}

/** 400 unless a universe's list has 1..MAX_UNIVERSE_SIZE tickers. */
export const checkSize = (tickers: ReadonlyArray<unknown>, parameter: string): Effect.Effect<void, BadRequest> =>
  tickers.length === 0
    ? Effect.fail(new BadRequest({ message: `${parameter}: a universe needs at least one ticker` }))
    : tickers.length > MAX_UNIVERSE_SIZE
      ? Effect.fail(
          new BadRequest({
            message: `${parameter}: a universe holds at most ${MAX_UNIVERSE_SIZE} tickers (got ${tickers.length})`,
            details: { max_size: MAX_UNIVERSE_SIZE }
          })
        )
      : Effect.void

/**
 * The edit of a PATCH's `add`/`remove` (canonical, deduplicated lists): the current list, then the
 * added tickers not in it (in their order), without the removed ones; 400 unless the result has
 * 1..MAX_UNIVERSE_SIZE tickers. Applied by the store to the list it holds locked.
 */
export const editTickers =
  (add: ReadonlyArray<string>, remove: ReadonlyArray<string>) =>
  (current: ReadonlyArray<string>): Effect.Effect<Array<string>, BadRequest | UnknownTickers> => {
    const present = new Set(current)
    const removed = new Set(remove)
    const tickers = [...current, ...add.filter((t) => !present.has(t))].filter((t) => !removed.has(t))
    return Effect.as(checkSize(tickers, "the resulting universe"), tickers)
  }

export const universeNotFound = (id: string) =>
  new UniverseNotFound({
    message: `universe ${JSON.stringify(id)} is neither a system universe (top_10, top_100) nor one of this account's`
  })

/**
 * A `universe` parameter resolved: a system universe; one of the account's own with its current
 * list (live reads); or one of the account's own with the versions of its list over the days read
 * (as-of reads), oldest first, each from its effective day on.
 */
export type ResolvedUniverse =
  | { readonly _tag: "System"; readonly id: SystemId }
  | { readonly _tag: "Own"; readonly id: string; readonly tickers: ReadonlyArray<string> }
  | {
      readonly _tag: "OwnHistory"
      readonly id: string
      readonly versions: ReadonlyArray<{ readonly effectiveDay: number; readonly tickers: ReadonlyArray<string> }>
    }

/** Epoch days `from`..`to` (UTC) an as-of read covers. */
export interface AsOfDays {
  readonly from: number
  readonly to: number
}

/**
 * The one resolver of a `universe` parameter, for every endpoint that takes one (scans, signal
 * matches and stats, subscriptions, webhooks, rules): `top_10`/`top_100`, else one of the account's
 * own universes by slug; 404 `universe_not_found` otherwise. With `asOf`, an own universe comes with
 * the versions of its list in effect on those days (one query; see `membersOn`), else its current list.
 */
export const lookupUniverse = (
  accountId: string,
  id: string,
  asOf?: AsOfDays
): Effect.Effect<ResolvedUniverse, UniverseNotFound | ServiceUnavailable, Universes> => {
  if (isSystemId(id)) return Effect.succeed({ _tag: "System", id })
  if (!SLUG.test(id)) return Effect.fail(universeNotFound(id))
  const found = Effect.flatMap(Universes, (store) =>
    asOf === undefined
      ? Effect.map(
          store.get(accountId, id),
          (u): ResolvedUniverse | undefined => u && { _tag: "Own", id, tickers: u.tickers }
        )
      : Effect.map(
          store.membership(accountId, id, asOf.from, asOf.to),
          (versions): ResolvedUniverse | undefined =>
            versions && {
              _tag: "OwnHistory",
              id,
              versions: versions.map((v) => ({ effectiveDay: Math.floor(v.effectiveAt / DAY_S), tickers: v.tickers }))
            }
        )
  )
  return orUnavailable(found).pipe(
    Effect.flatMap((u) => (u === undefined ? Effect.fail(universeNotFound(id)) : Effect.succeed(u)))
  )
}

/**
 * The members of a resolved universe on `day`. A system universe: its membership in effect that day.
 * An own universe read live: its current list. An own universe read as of a day: the list in effect
 * at the end of that day (the as-of snapshot's moment), i.e. the latest version whose effective day
 * is on or before it, like the system universes' rebalances; before the universe existed, the list
 * it was created with. The array is the same object for the same own version.
 */
export const membersOn = (md: MarketReader, u: ResolvedUniverse, day: number): ReadonlyArray<string> => {
  switch (u._tag) {
    case "System":
      return systemMembership(md, u.id, day).tickers
    case "Own":
      return u.tickers
    case "OwnHistory": {
      let found = u.versions[0]
      for (const v of u.versions) {
        if (v.effectiveDay <= day) found = v
        else break
      }
      return found?.tickers ?? []
    }
  }
}

/**
 * Per day, the market slots of a resolved universe's members that day (`membersOn`), memoized per
 * membership; undefined without a universe. The scope of the readers of many days (dry-runs,
 * backtests), the same members an as-of scan of each day scopes to.
 */
export const scopeSlots = (
  md: MarketReader,
  u: ResolvedUniverse | undefined
): ((day: number) => ReadonlySet<number> | undefined) => {
  if (u === undefined) return () => undefined
  const memo = new Map<unknown, ReadonlySet<number>>()
  return (day: number): ReadonlySet<number> => {
    const system = u._tag === "System" ? systemMembership(md, u.id, day) : undefined
    const key = system?.effectiveDay ?? membersOn(md, u, day)
    let set = memo.get(key)
    if (set === undefined) {
      const members = system?.tickers ?? (key as ReadonlyArray<string>)
      set = new Set(members.flatMap((t) => md.index.get(t) ?? []))
      memo.set(key, set)
    }
    return set
  }
}

/**
 * The tickers of a `universe` parameter on `day` (see `lookupUniverse`, `membersOn`): as of that day
 * when `asOf`, else live (an own universe's current list).
 */
export const resolveUniverse = (
  md: MarketReader,
  accountId: string,
  id: string,
  day: number,
  asOf: boolean
): Effect.Effect<ReadonlyArray<string>, UniverseNotFound | ServiceUnavailable, Universes> =>
  Effect.map(lookupUniverse(accountId, id, asOf ? { from: day, to: day } : undefined), (u) => membersOn(md, u, day))

/** The rows (ascending) of `tickers` in a snapshot; tickers without a row are left out. */
export const rowsOfTickers = (snapshot: Snapshot, tickers: ReadonlyArray<string>): Int32Array => {
  const rows: Array<number> = []
  for (const t of tickers) {
    const r = snapshot.index.get(t)
    if (r !== undefined) rows.push(r)
  }
  return Int32Array.from(rows).sort()
}
