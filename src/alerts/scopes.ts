/**
 * The universe a webhook watches — the whole market, a top list, or one of
 * its account's own universes — and the snapshot rows each covers on a tick.
 *
 * Own universes are read from the store only when they changed: their
 * digests are asked again after the universes' change counter (bumped in the
 * changing transaction) moved, and the lists only for digests not seen.
 */
import { Effect, Option } from "effect"
import { DAY_MS } from "../market/indicators/days.js"
import type { Market } from "../market/Market.js"
import type { Snapshot } from "../market/snapshot.js"
import type { EvaluatorState } from "../store/evaluatorState.js"
import { EMPTY, sortedDistinct } from "./tickerIds.js"

export type Scope =
  | { readonly _tag: "All" }
  | { readonly _tag: "Top"; readonly size: 10 | 100 }
  | { readonly _tag: "Own"; readonly accountId: string; readonly universeId: string }

/** a webhook's scope and its key (shared by every webhook watching the same rows) */
export const scopeOf = (w: {
  readonly accountId: string
  readonly universeId: string | null
}): readonly [string, Scope] =>
  w.universeId === null
    ? ["", { _tag: "All" }]
    : w.universeId === "top_10" || w.universeId === "top_100"
      ? [w.universeId, { _tag: "Top", size: w.universeId === "top_10" ? 10 : 100 }]
      : [`${w.accountId}/${w.universeId}`, { _tag: "Own", accountId: w.accountId, universeId: w.universeId }]

/** ascending rows of `tickers` in a snapshot (those it has) */
export const rowsOf = (index: ReadonlyMap<string, number>, tickers: ReadonlyArray<string>): Int32Array => {
  const rows: Array<number> = []
  for (const t of tickers) {
    const r = index.get(t)
    if (r !== undefined) rows.push(r)
  }
  return sortedDistinct(Int32Array.from(rows))
}

/** The rows of the scopes in use, kept between ticks (one per runner). */
export class ScopeRows {
  /** digests of own universes (null: none by that id) as of `version` of the universes' change counter */
  private readonly digests = { version: -1, known: new Map<string, string | null>() }
  /** own universes: the digest of the list last read, and its rows in the snapshot index they were made for */
  private readonly own = new Map<
    string,
    { digest: string; tickers: ReadonlyArray<string>; index: ReadonlyMap<string, number>; rows: Int32Array }
  >()
  private readonly top = new Map<
    10 | 100,
    { ranked: ReadonlyArray<string>; index: ReadonlyMap<string, number>; rows: Int32Array }
  >()

  constructor(
    private readonly store: EvaluatorState,
    private readonly market: Market
  ) {}

  /**
   * The rows each scope covers in this snapshot (by scope key): undefined for the whole market, an
   * empty array for a universe that does not exist.
   */
  of(
    snapshot: Snapshot,
    scopes: Iterable<{ readonly scopeKey: string; readonly scope: Scope }>
  ): Effect.Effect<Map<string, Int32Array | undefined>, unknown> {
    return Effect.gen(this, function* () {
      const out = new Map<string, Int32Array | undefined>()
      const own = new Map<string, readonly [string, string]>()
      let top = false
      for (const s of scopes) {
        if (s.scope._tag === "Own") own.set(s.scopeKey, [s.scope.accountId, s.scope.universeId])
        else if (s.scope._tag === "Top") top = true
      }
      if (own.size > 0) yield* this.ownRows(snapshot, own, out)
      if (top) {
        const md = Option.getOrUndefined(yield* Effect.option(this.market.data))
        const ranked = md?.membershipOn(Math.floor(snapshot.asOf / DAY_MS))?.ranked ?? []
        for (const size of [10, 100] as const) {
          let cached = this.top.get(size)
          if (cached === undefined || cached.ranked !== ranked || cached.index !== snapshot.index) {
            cached = { ranked, index: snapshot.index, rows: rowsOf(snapshot.index, ranked.slice(0, size)) }
            this.top.set(size, cached)
          }
          out.set(`top_${size}`, cached.rows)
        }
      }
      return out
    })
  }

  private ownRows(
    snapshot: Snapshot,
    own: Map<string, readonly [string, string]>,
    out: Map<string, Int32Array | undefined>
  ) {
    return Effect.gen(this, function* () {
      const keys = [...own.values()]
      const digests = this.digests
      const version = yield* this.store.universesVersion
      if (version !== digests.version) {
        digests.known.clear()
        digests.version = version
      }
      const unknown = keys.filter(([a, u]) => !digests.known.has(`${a}/${u}`))
      if (unknown.length > 0) {
        const found = new Map<string, string>()
        for (const d of yield* this.store.universeDigests(unknown)) found.set(`${d.account_id}/${d.id}`, d.digest)
        for (const [a, u] of unknown) digests.known.set(`${a}/${u}`, found.get(`${a}/${u}`) ?? null)
      }
      const stale = keys.filter(([a, u]) => {
        const key = `${a}/${u}`
        const digest = digests.known.get(key)
        return digest != null && this.own.get(key)?.digest !== digest
      })
      for (const u of yield* this.store.universeLists(stale)) {
        this.own.set(`${u.account_id}/${u.id}`, {
          digest: u.digest,
          tickers: u.tickers,
          index: snapshot.index,
          rows: rowsOf(snapshot.index, u.tickers)
        })
      }
      for (const key of own.keys()) {
        const u = this.own.get(key)
        if (u === undefined || digests.known.get(key) == null) {
          // deleted (or never existed): matches nothing until it exists again
          this.own.delete(key)
          out.set(key, EMPTY)
          continue
        }
        if (u.index !== snapshot.index) {
          u.index = snapshot.index
          u.rows = rowsOf(snapshot.index, u.tickers)
        }
        out.set(key, u.rows)
      }
    })
  }
}
