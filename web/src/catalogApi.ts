/**
 * The Signals and Universes pages' calls to `/v2` (through the session's `/dashboard/v2` proxy, by
 * cookie; a change carries the CSRF token): the signal catalog, custom signals (create, change,
 * delete, and an expression checked without saving), the system and the account's universes.
 */
import { call, type Session } from "./api"

/** A built-in signal as `GET /v2/signals` lists it (a column of the ticker row). */
export interface BuiltinSignal {
  readonly name: string
  readonly kind: "builtin"
  readonly type: "boolean" | "numeric" | "string"
  readonly source: "state" | "ticker"
  /** not sent by the API today; used when it is */
  readonly description?: string
}

/** One of the account's custom signals: a named boolean expression. */
export interface CustomSignal {
  readonly name: string
  readonly kind: "expression"
  readonly description: string | null
  readonly expr: string
  /** epoch seconds */
  readonly created_at: number
  readonly updated_at: number
}

interface CatalogPage {
  readonly as_of: string
  readonly count_builtin: number
  readonly count_custom: number
  readonly next_cursor: string | null
  readonly signals: ReadonlyArray<BuiltinSignal | CustomSignal>
}

export interface Catalog {
  readonly builtin: ReadonlyArray<BuiltinSignal>
  readonly custom: ReadonlyArray<CustomSignal>
}

/**
 * The whole catalog: every built-in (on each page) and every custom signal (the custom slice is what
 * pages, 200 a page at most, on the cursor).
 */
export const loadCatalog = async (): Promise<Catalog> => {
  const custom: Array<CustomSignal> = []
  let builtin: ReadonlyArray<BuiltinSignal> = []
  let cursor: string | null = null
  do {
    const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`
    const page: CatalogPage = await call<CatalogPage>("GET", `/dashboard/v2/signals?limit=200${query}`)
    for (const s of page.signals) if (s.kind === "expression") custom.push(s)
    if (cursor === null) builtin = page.signals.filter((s): s is BuiltinSignal => s.kind === "builtin")
    cursor = page.next_cursor
  } while (cursor !== null)
  return { builtin, custom }
}

export const createSignal = (
  session: Session,
  signal: { readonly name: string; readonly expr: string; readonly description?: string }
) => call<{ readonly signal: CustomSignal }>("POST", "/dashboard/v2/signals", signal, session.csrf_token)

export const updateSignal = (
  session: Session,
  name: string,
  change: { readonly expr?: string; readonly description?: string | null }
) =>
  call<{ readonly signal: CustomSignal }>(
    "PATCH",
    `/dashboard/v2/signals/${encodeURIComponent(name)}`,
    change,
    session.csrf_token
  )

/**
 * Deletes a custom signal. Without `force` the API refuses (409 `signal_referenced`) while another of
 * the account's signals names it; with it, those signals stop compiling.
 */
export const deleteSignal = (session: Session, name: string, force = false) =>
  call<{ readonly ok: true }>(
    "DELETE",
    `/dashboard/v2/signals/${encodeURIComponent(name)}${force ? "?force=true" : ""}`,
    undefined,
    session.csrf_token
  )

/**
 * Checks an expression without saving anything: a one-row screen of it over `top_10` compiles it as
 * a scan's `q` (the account's custom signals inlined), and a refusal carries the problems with their
 * positions (400 `invalid_query` or `compile_failed`, `ApiError.problems`).
 */
export const checkExpression = (session: Session, expr: string) =>
  call<unknown>("POST", "/dashboard/v2/scan", { q: expr, limit: 1, universe: "top_10" }, session.csrf_token)

/** A universe: system (`top_10`, `top_100`: read-only) or the account's own. */
export interface Universe {
  readonly id: string
  readonly name: string
  readonly description: string | null
  /** left out of the `top_100` listing */
  readonly tickers?: ReadonlyArray<string>
  readonly size: number
  readonly system: boolean
  /** epoch seconds, the account's own */
  readonly created_at?: number
  readonly updated_at?: number
  /** epoch seconds, system universes */
  readonly effective_at?: number
  readonly next_rebalance_at?: number
  readonly rebalance_method?: string
}

interface UniversePage {
  readonly count: number
  readonly next_cursor: string | null
  readonly universes: ReadonlyArray<Universe>
}

export const systemUniverses = async (): Promise<ReadonlyArray<Universe>> =>
  (await call<UniversePage>("GET", "/dashboard/v2/universes/system")).universes

/** every universe of the account (100 a page, on the cursor) */
export const ownUniverses = async (): Promise<ReadonlyArray<Universe>> => {
  const all: Array<Universe> = []
  let cursor: string | null = null
  do {
    const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`
    const page: UniversePage = await call<UniversePage>("GET", `/dashboard/v2/universes?limit=100${query}`)
    all.push(...page.universes)
    cursor = page.next_cursor
  } while (cursor !== null)
  return all
}

export const createUniverse = (session: Session, name: string, tickers: ReadonlyArray<string>) =>
  call<Universe>("POST", "/dashboard/v2/universes", { name, tickers }, session.csrf_token)

/** a rename, or tickers added or removed (`add` is deduplicated by the API) */
export const updateUniverse = (
  session: Session,
  id: string,
  change: { readonly name?: string; readonly add?: ReadonlyArray<string>; readonly remove?: ReadonlyArray<string> }
) => call<Universe>("PATCH", `/dashboard/v2/universes/${encodeURIComponent(id)}`, change, session.csrf_token)

export const deleteUniverse = (session: Session, id: string) =>
  call<{ readonly ok: true }>(
    "DELETE",
    `/dashboard/v2/universes/${encodeURIComponent(id)}`,
    undefined,
    session.csrf_token
  )

/** symbols typed with commas, spaces or new lines between them, upper-cased, each once */
export const parseTickers = (text: string): ReadonlyArray<string> => [
  ...new Set(
    text
      .split(/[\s,;]+/)
      .map((t) => t.trim().toUpperCase())
      .filter((t) => t !== "")
  )
]
