/**
 * The distinct (predicate, scope) pairs of a runner's webhooks, each
 * evaluated once per tick whatever the number of webhooks and slices that
 * share it — the q language's compiled evaluator into one reused buffer,
 * over the whole snapshot or only the rows of the scope.
 *
 * A pair none of whose columns changed on its rows is not evaluated at all,
 * one with few changed rows is evaluated on those only (`incremental.ts`).
 * Its result is its matches as sorted ticker ids, the same array while they
 * do not change: slices and actors compare it by reference.
 *
 * A cross-sectional pair (PCT_RANK, RANK, ZSCORE) ranks among its scope's rows (the same array
 * for every pair of the scope, so a ranking is computed once a tick for all of them): a change of a
 * column it reads on any row of the scope can change every row, so it is never patched — skipped
 * when no such change, else evaluated in full (on its candidate rows, ranked among the scope) — or,
 * when it has row-local conjuncts beside the ranked ones, split (`rankedSplit.ts`): the rows where the
 * local ones hold patched as any pair's, the ranked ones read at those rows alone.
 */
import { CATALOG } from "../market/catalog.js"
import type { Snapshot } from "../market/snapshot.js"
import { allRows, type CompiledQuery, columnsOf, compileQuery, flat, type Predicate } from "../query/index.js"
import type { Cadence } from "../store/webhooks.js"
import { CADENCES } from "./cadence.js"
import {
  type ColumnChanges,
  columnIdsOf,
  dirtyRows,
  intersectRows,
  patchIds,
  restrictionRows,
  tickerRestriction
} from "./incremental.js"
import { type RankedSplit, rankedSplitOf } from "./rankedSplit.js"
import { type Scope, scopeOf } from "./scopes.js"
import { EMPTY, fitted, sameIds, single } from "./tickerIds.js"

/** compiled predicates kept at least (see `Pairs.predicate`) */
const MIN_COMPILED = 16_384
const COLUMNS = columnsOf(CATALOG)

/** One distinct (predicate, scope) pair. */
export interface Pair {
  readonly key: string
  readonly scopeKey: string
  readonly scope: Scope
  /** a member's `q`: compiled again when the pair is evaluated and its compiled form was evicted */
  readonly q: string
  /** it reads other tickers' rows (`AAPL.price`): never patched */
  readonly crossTicker: boolean
  /** it ranks among its scope (PCT_RANK, RANK, ZSCORE): skipped or evaluated in full, never patched */
  readonly crossSectional: boolean
  /** webhooks per cadence (by index in CADENCES), over every slice */
  readonly cadenceCounts: Array<number>
  /** bit i set when some webhook has cadence CADENCES[i]: a tick tests it against its due bits */
  cadenceBits: number
  /** the ticker ids matching at the last evaluation (the same array while they do not change) */
  result: Int32Array | undefined
  /** the snapshot `result` was computed on, and the rows of the scope then (undefined: every row) */
  evaluatedOn: Snapshot | undefined
  rowsUsed: Int32Array | undefined
  /** the columns the predicate reads (ids, see `incremental.ts`) */
  readonly columnIds: Int32Array
  /** the tickers a `ticker = '…'` conjunct restricts the predicate to (see `incremental.ts`) */
  readonly restriction: ReadonlyArray<string> | undefined
  /** the rows it can match in the last snapshot index and scope: `restriction` ∩ scope */
  candidates: { index: ReadonlyMap<string, number>; scope: Int32Array | undefined; rows: Int32Array } | undefined
  /** a cross-sectional pair's row-local and ranked halves (`rankedSplit.ts`), when it has both */
  readonly split: RankedSplit | undefined
  /** with `split`: the candidate rows where the local half held at `evaluatedOn` */
  localRows: Int32Array | undefined
}

/** adds `delta` webhooks of `cadence` to counts and bits (a pair's or a slice group's) */
export const countCadence = (
  g: { readonly cadenceCounts: Array<number>; cadenceBits: number },
  cadence: Cadence,
  delta: number
) => {
  const i = CADENCES.indexOf(cadence)
  g.cadenceCounts[i]! += delta
  if (g.cadenceCounts[i]! > 0) g.cadenceBits |= 1 << i
  else g.cadenceBits &= ~(1 << i)
}

/** pairs skipped (no column they read changed on their rows), patched, evaluated in full */
export interface PairCounts {
  skipped: number
  patched: number
  full: number
}

/** Each snapshot row's ticker id; `monotonic`: ids ascend with rows. */
type RowIds = { readonly ids: Int32Array; readonly monotonic: boolean }

/** What one evaluation of the due pairs reads, and counts. */
interface Tick {
  readonly snapshot: Snapshot
  readonly rowIds: RowIds
  /** the column changes since the last evaluation's snapshot (undefined: another ticker list, or none) */
  readonly changes: ColumnChanges | undefined
  readonly counts: PairCounts
}

/** the ticker ids of the rows `rows[0..n)`, sorted */
const idsOfRows = (rows: Int32Array, n: number, rowIds: RowIds): Int32Array => {
  if (n <= 1) return n === 0 ? EMPTY : single(rowIds.ids[rows[0]!]!)
  const next = new Int32Array(n)
  for (let i = 0; i < n; i++) next[i] = rowIds.ids[rows[i]!]!
  if (!rowIds.monotonic) next.sort()
  return next
}

/** the same rows (both every row, or equal lists) */
const sameRows = (a: Int32Array | undefined, b: Int32Array | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && sameIds(a, b))

export class Pairs {
  private readonly byKey = new Map<string, Pair>()
  private readonly compiledByText = new Map<string, Predicate | undefined>()
  private compiledCap = MIN_COMPILED
  /** the evaluation buffer, reused every tick */
  private buffer = new Int32Array(0)
  /** the snapshot of the last evaluation: the pairs evaluated on it are patched from it */
  private lastSnapshot: Snapshot | undefined

  constructor(private readonly lookupTicker: (symbol: string) => string | undefined) {}

  /** Compiles a `q` (not cached): to group a webhook by its predicate's key, columns and tickers. */
  compile(q: string): CompiledQuery | undefined {
    const r = compileQuery(q, { columns: COLUMNS, tickers: this.lookupTicker, signals: undefined, mode: "query" })
    return r._tag === "Right" ? r.right : undefined
  }

  get size(): number {
    return this.byKey.size
  }

  /** the snapshot the last tick evaluated (the base of the next tick's column changes) */
  get last(): Snapshot | undefined {
    return this.lastSnapshot
  }

  /** The pair of a webhook (made on first use), counted for its cadence. */
  join(
    compiled: CompiledQuery,
    w: { readonly accountId: string; readonly universeId: string | null; readonly q: string; readonly cadence: Cadence }
  ): Pair {
    const [scopeKey, scope] = scopeOf(w)
    const key = flat(`${compiled.key}\u0000${scopeKey}`)
    let pair = this.byKey.get(key)
    if (pair === undefined) {
      pair = {
        key,
        scopeKey,
        scope,
        q: w.q,
        crossTicker: compiled.tickers.length > 0,
        crossSectional: compiled.crossSectional,
        cadenceCounts: CADENCES.map(() => 0),
        cadenceBits: 0,
        result: undefined,
        evaluatedOn: undefined,
        rowsUsed: undefined,
        columnIds: columnIdsOf(compiled.columns),
        restriction: tickerRestriction(compiled.ir),
        candidates: undefined,
        split: rankedSplitOf(compiled, (q) => this.compile(q)),
        localRows: undefined
      }
      this.byKey.set(key, pair)
    }
    countCadence(pair, w.cadence, 1)
    return pair
  }

  /** A webhook of `cadence` leaves its pair (forgotten with its last webhook). */
  leave(pair: Pair, cadence: Cadence): void {
    countCadence(pair, cadence, -1)
    if (pair.cadenceBits === 0) this.byKey.delete(pair.key)
  }

  /** the pairs with a webhook of a due cadence */
  due(dueBits: number): Array<Pair> {
    // one bit test per pair: with 85,000 pairs a per-pair Map lookup and Set iteration cost ~100 ms a tick
    const out: Array<Pair> = []
    for (const p of this.byKey.values()) if ((p.cadenceBits & dueBits) !== 0) out.push(p)
    return out
  }

  /**
   * Evaluates the due pairs on a snapshot (`result` of each), given the rows of their scopes and
   * each snapshot row's ticker id.
   */
  evaluate(
    snapshot: Snapshot,
    due: ReadonlyArray<Pair>,
    scopes: ReadonlyMap<string, Int32Array | undefined>,
    rowIds: RowIds,
    changes: ColumnChanges | undefined
  ): PairCounts {
    if (this.buffer.length < snapshot.size) this.buffer = new Int32Array(snapshot.size)
    const counts: PairCounts = { skipped: 0, patched: 0, full: 0 }
    const tick: Tick = { snapshot, rowIds, changes, counts }
    for (const p of due) p.result = this.evaluatePair(p, tick, scopes.get(p.scopeKey))
    this.lastSnapshot = snapshot
    // keep about as many compiled predicates as a tick evaluates (a live market may need them all)
    this.compiledCap = Math.max(MIN_COMPILED, Math.ceil(1.25 * (counts.patched + counts.full)))
    this.trim()
    return counts
  }

  private trim() {
    while (this.compiledByText.size > this.compiledCap)
      this.compiledByText.delete(this.compiledByText.keys().next().value!)
  }

  /**
   * The row selection of a `q` (`Predicate`: its plan alone, ~3 KB), through a cache of the most
   * recently used ones. Most pairs are skipped on most ticks, so only about as many as a tick
   * evaluates are kept (at least MIN_COMPILED): with 100,000 webhooks that is ~350 MB less; a pair
   * evicted is compiled again when it next needs evaluating.
   */
  private predicate(q: string): Predicate | undefined {
    const cache = this.compiledByText
    if (cache.has(q)) {
      const hit = cache.get(q)
      cache.delete(q)
      cache.set(q, hit)
      return hit
    }
    const p = this.compile(q)?.predicate
    cache.set(q, p)
    this.trim()
    return p
  }

  /** the rows a pair can match: its ticker restriction within its scope, else the scope (undefined: all) */
  private candidatesOf(p: Pair, snapshot: Snapshot, rows: Int32Array | undefined): Int32Array | undefined {
    if (p.restriction === undefined) return rows
    const c = p.candidates
    if (c !== undefined && c.index === snapshot.index && c.scope === rows) return c.rows
    const own = restrictionRows(snapshot, p.restriction)
    const cand = rows === undefined ? own : intersectRows(own, rows)
    p.candidates = { index: snapshot.index, scope: rows, rows: cand }
    return cand
  }

  /** Evaluates a pair in full on `rows`, ranked among `scope`: its matches as sorted ticker ids. */
  private evaluateFull(
    p: Pair,
    snapshot: Snapshot,
    rowIds: RowIds,
    rows: Int32Array | undefined,
    scope: Int32Array | undefined
  ): Int32Array {
    if (rows !== undefined && rows.length === 0) return EMPTY
    const predicate = this.predicate(p.q)
    if (predicate === undefined) return EMPTY
    return idsOfRows(this.buffer, predicate.evaluateInto(snapshot, this.buffer, rows, scope), rowIds)
  }

  /**
   * Evaluates a pair: its matches as sorted ticker ids, the previous array when they did not
   * change. With the column changes since the snapshot it was last evaluated on (`changes`), only
   * the rows it covers where a column it reads changed are evaluated (none: skipped).
   */
  private evaluatePair(p: Pair, tick: Tick, rows: Int32Array | undefined): Int32Array {
    if (p.split !== undefined) return this.evaluateSplit(p, p.split, tick, rows)
    const { snapshot, rowIds, changes, counts } = tick
    const previous = p.result
    let next: Int32Array | undefined
    if (
      previous !== undefined &&
      changes !== undefined &&
      p.evaluatedOn === this.lastSnapshot &&
      !p.crossTicker &&
      sameRows(p.rowsUsed, rows)
    ) {
      if (p.crossSectional) {
        // any changed row of the scope can move every rank: skipped only when none changed
        if (dirtyRows(changes, p.columnIds, rows, 0)?.length === 0) {
          counts.skipped++
          next = previous
        }
      } else {
        const candidates = this.candidatesOf(p, snapshot, rows)
        const limit = Math.max(16, (candidates?.length ?? snapshot.size) >> 2)
        const dirty = dirtyRows(changes, p.columnIds, candidates, limit)
        if (dirty !== undefined && dirty.length === 0) {
          counts.skipped++
          next = previous
        } else if (dirty !== undefined) {
          counts.patched++
          const predicate = this.predicate(p.q)
          const n = predicate === undefined ? 0 : predicate.evaluateInto(snapshot, this.buffer, dirty)
          next = patchIds(previous, dirty, this.buffer, n, rowIds.ids, rowIds.monotonic)
        }
      }
    }
    if (next === undefined) {
      counts.full++
      // only the rows it can match: a ticker-scoped pair reads one row, not the market (and its
      // candidates are then ready for the next tick's patch)
      next = this.evaluateFull(p, snapshot, rowIds, p.crossTicker ? rows : this.candidatesOf(p, snapshot, rows), rows)
    }
    p.evaluatedOn = snapshot
    p.rowsUsed = rows
    return previous !== undefined && sameIds(previous, next) ? previous : next
  }

  /**
   * Evaluates a split pair (`rankedSplit.ts`): the rows where its local half holds, patched from the
   * last snapshot's on the rows where a column it reads changed (in full past a quarter of its rows,
   * or on another ticker list); then the ranked half at those rows, ranked among the scope — skipped
   * when those rows and every column the ranked half reads on the scope's rows are unchanged.
   */
  private evaluateSplit(p: Pair, split: RankedSplit, tick: Tick, rows: Int32Array | undefined): Int32Array {
    const { snapshot, changes, counts } = tick
    const previous = p.result
    const candidates = this.candidatesOf(p, snapshot, rows)
    const before = p.localRows
    const from =
      before !== undefined && changes !== undefined && p.evaluatedOn === this.lastSnapshot && sameRows(p.rowsUsed, rows)
        ? before
        : undefined
    let local: Int32Array | undefined
    if (from !== undefined) {
      const limit = Math.max(16, (candidates?.length ?? snapshot.size) >> 2)
      const dirty = dirtyRows(changes!, split.localColumnIds, candidates, limit)
      if (dirty !== undefined && dirty.length === 0) local = from
      else if (dirty !== undefined) {
        const predicate = this.predicate(split.localQ)
        const n = predicate === undefined ? 0 : predicate.evaluateInto(snapshot, this.buffer, dirty)
        // rows patched as ids: a row is its own id
        local = patchIds(from, dirty, this.buffer, n, allRows(snapshot.size), true)
      }
    }
    const patched = local !== undefined
    if (local === undefined) {
      local = EMPTY
      if (candidates === undefined || candidates.length > 0) {
        const predicate = this.predicate(split.localQ)
        const n = predicate === undefined ? 0 : predicate.evaluateInto(snapshot, this.buffer, candidates)
        local = fitted(this.buffer.slice(0, n), n)
      }
    }
    p.localRows = local
    p.evaluatedOn = snapshot
    p.rowsUsed = rows
    if (
      previous !== undefined &&
      local === from &&
      (local.length === 0 || dirtyRows(changes!, split.rankedColumnIds, rows, 0)?.length === 0)
    ) {
      counts.skipped++
      return previous
    }
    if (patched) counts.patched++
    else counts.full++
    let next: Int32Array = EMPTY
    if (local.length > 0) {
      const predicate = this.predicate(split.rankedQ)
      const n = predicate === undefined ? 0 : predicate.evaluateInto(snapshot, this.buffer, local, rows)
      next = idsOfRows(this.buffer, n, tick.rowIds)
    }
    return previous !== undefined && sameIds(previous, next) ? previous : next
  }
}
