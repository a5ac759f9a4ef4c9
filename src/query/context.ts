/**
 * What a compilation needs from the rest of the service, passed in by the
 * caller so the query module does not depend on the catalog's contents, the
 * ticker universe or the account store.
 */
import type { ColumnDef } from "../market/catalog.js"
import type { Mode } from "./errors.js"

/** The column whitelist: lookup by (lower-case) name, and every name for "did you mean" suggestions. */
export interface Columns {
  readonly get: (name: string) => ColumnDef | undefined
  readonly names: ReadonlyArray<string>
}

/** The account's own custom signals: `expr` by name (exact, lower case). */
export interface Signals {
  readonly get: (name: string) => string | undefined
  readonly names: ReadonlyArray<string>
}

export interface CompileContext {
  readonly columns: Columns
  /** Canonical symbol of a tracked ticker (case-insensitive input), for `<ticker>.<column>` references. */
  readonly tickers?: ((symbol: string) => string | undefined) | undefined
  readonly signals?: Signals | undefined
  /** "query" (scan q, subscription condition; default) or "expr" (custom-signal expr). */
  readonly mode?: Mode | undefined
  /** expr mode: the name of the signal being created or patched (for cycle detection). */
  readonly self?: string | undefined
}

/** Identifiers usable as column names in generated SQL. */
export const SAFE_IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/

/** Builds a `Columns` lookup from column definitions (names must be lower-case SQL identifiers). */
export const columnsOf = (defs: Iterable<ColumnDef>): Columns => {
  const byName = new Map<string, ColumnDef>()
  for (const d of defs) {
    if (!SAFE_IDENTIFIER.test(d.name)) throw new Error(`column name is not a safe identifier: ${d.name}`)
    byName.set(d.name, d)
  }
  return { get: (name) => byName.get(name), names: [...byName.keys()] }
}

/** Builds a `Signals` lookup from a name → expr map. */
export const signalsOf = (defs: ReadonlyMap<string, string> | Record<string, string>): Signals => {
  const map = defs instanceof Map ? defs : new Map(Object.entries(defs))
  return { get: (name) => map.get(name), names: [...map.keys()] }
}
