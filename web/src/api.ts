/**
 * The dashboard's calls to the service: its own session endpoints (`/dashboard/api/…`), by cookie
 * (same origin; no key is ever kept in the page, localStorage or a URL). A change sends the
 * session's CSRF token. Errors arrive in the API's envelope `{error: {code, message, …}}`.
 */

export interface SessionUser {
  readonly id: string
  readonly email: string
  readonly account_id: string
  readonly plan: string
}

export interface Session {
  readonly user: SessionUser
  readonly csrf_token: string
  readonly expires_at: string
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** seconds, from Retry-After */
    readonly retryAfter: number | undefined,
    /** a query's problems (`invalid_query`, `compile_failed`), by position */
    readonly problems: ReadonlyArray<QueryProblem> = []
  ) {
    super(message)
  }
}

const call = async <A>(method: string, path: string, body?: unknown, csrf?: string): Promise<A> => {
  const headers: Record<string, string> = { accept: "application/json" }
  if (body !== undefined) headers["content-type"] = "application/json"
  if (csrf !== undefined) headers["x-csrf-token"] = csrf
  const init: RequestInit = { method, credentials: "same-origin", headers }
  if (body !== undefined) init.body = JSON.stringify(body)
  let res: Response
  try {
    res = await fetch(path, init)
  } catch {
    throw new ApiError(0, "network", "The service cannot be reached. Check your connection and try again.", undefined)
  }
  const text = await res.text()
  let parsed: any
  try {
    parsed = text === "" ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  if (!res.ok) {
    const retry = Number(res.headers.get("retry-after"))
    throw new ApiError(
      res.status,
      parsed?.error?.code ?? "error",
      parsed?.error?.message ?? `The service answered ${res.status}.`,
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
      Array.isArray(parsed?.error?.errors) ? parsed.error.errors : []
    )
  }
  return parsed as A
}

/** the signed-in session, or undefined when nobody is signed in */
export const currentSession = async (): Promise<Session | undefined> => {
  try {
    return await call<Session>("GET", "/dashboard/api/session")
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return undefined
    throw e
  }
}

export const signIn = (email: string, password: string) =>
  call<Session>("POST", "/dashboard/api/session", { email, password })

export const signOut = (session: Session) =>
  call<{ ok: true }>("DELETE", "/dashboard/api/session", undefined, session.csrf_token)

export interface KeyInfo {
  readonly key_id: string
  readonly prefix: string
  readonly mode: "test" | "live"
  readonly created_at: string
  readonly last_used_at: string | null
  readonly revoked_at: string | null
}

export interface CreatedKey {
  readonly key_id: string
  readonly api_key: string
  readonly prefix: string
  readonly mode: "test" | "live"
  readonly created_at: string
}

export const listKeys = () => call<{ keys: ReadonlyArray<KeyInfo> }>("GET", "/dashboard/api/keys")

export const createKey = (session: Session, mode: "test" | "live") =>
  call<CreatedKey>("POST", "/dashboard/api/keys", { mode }, session.csrf_token)

export const revokeKey = (session: Session, keyId: string) =>
  call<{ ok: true }>("DELETE", `/dashboard/api/keys/${encodeURIComponent(keyId)}`, undefined, session.csrf_token)

/** One problem of a `q` (`invalid_query`, `compile_failed`): where it is and what to try. */
export interface QueryProblem {
  readonly code: string
  readonly message: string
  /** character offset into the query */
  readonly pos: number
  readonly suggestion?: string
}

export type Cell = string | number | boolean | null

export interface ScanAnswer {
  readonly as_of: string
  readonly query: { readonly order: string; readonly dir: "asc" | "desc"; readonly fields: ReadonlyArray<string> }
  readonly count: number
  readonly total: number
  readonly next_cursor: string | null
  readonly results: ReadonlyArray<Readonly<Record<string, Cell>>>
}

export interface ScanRequest {
  readonly q: string
  readonly universe?: string
  readonly asof?: string
  readonly order?: string
  readonly dir?: "asc" | "desc"
  readonly cursor?: string
  readonly limit?: number
}

/** A screen, through the session's `/v2` (`/dashboard/v2/scan`). */
export const scan = (session: Session, request: ScanRequest) =>
  call<ScanAnswer>("POST", "/dashboard/v2/scan", request, session.csrf_token)

export interface UniverseInfo {
  readonly id: string
  readonly name: string
  readonly size: number
}

/** the system universes and the account's own (its first 100) */
export const listUniverses = async (): Promise<ReadonlyArray<UniverseInfo>> => {
  const [system, own] = await Promise.all([
    call<{ readonly universes: ReadonlyArray<UniverseInfo> }>("GET", "/dashboard/v2/universes/system"),
    call<{ readonly universes: ReadonlyArray<UniverseInfo> }>("GET", "/dashboard/v2/universes?limit=100")
  ])
  return [...system.universes, ...own.universes]
}

export interface InboxItem {
  readonly id: string
  readonly webhook_id: string
  readonly title: string
  readonly body: string
  readonly event: unknown
  readonly read: boolean
  readonly read_at: number | null
  /** epoch seconds */
  readonly created_at: number
}

export const listNotifications = () =>
  call<{ readonly unread_count: number; readonly notifications: ReadonlyArray<InboxItem> }>(
    "GET",
    "/dashboard/v2/notifications?limit=50"
  )

export const markRead = (session: Session, ids?: ReadonlyArray<string>) =>
  call<{ readonly marked: number }>(
    "POST",
    "/dashboard/v2/notifications/read",
    ids === undefined ? {} : { ids },
    session.csrf_token
  )

/** notifications as they arrive (server-sent events, by the session cookie) */
export const INBOX_EVENTS = "/dashboard/api/inbox/events"

export interface ChartBars {
  readonly ticker: string
  readonly name: string
  readonly interval: "1d" | "1w"
  readonly from: string | null
  readonly to: string | null
  readonly limited: boolean
  readonly t: ReadonlyArray<number>
  readonly o: ReadonlyArray<number>
  readonly h: ReadonlyArray<number>
  readonly l: ReadonlyArray<number>
  readonly c: ReadonlyArray<number>
  readonly v: ReadonlyArray<number>
}

export const chartBars = (ticker: string, interval: "1d" | "1w") =>
  call<ChartBars>("GET", `/dashboard/api/tickers/${encodeURIComponent(ticker)}/bars?interval=${interval}`)

export interface Webhook {
  readonly id: string
  readonly name: string
  readonly q: string
  readonly universe_id: string | null
  readonly cadence: string
  readonly channel: "webhook" | "chat" | "in_app" | "mobile_push"
  readonly status: "active" | "disabled"
  readonly disabled_reason: string | null
  readonly last_match_set: ReadonlyArray<string>
  /** epoch seconds */
  readonly last_fired: number | null
  readonly snoozed_until: number | null
}

export const listWebhooks = () =>
  call<{ readonly webhooks: ReadonlyArray<Webhook> }>("GET", "/dashboard/v2/webhooks?limit=100")

export interface DryRun {
  readonly from: string
  readonly to: string
  readonly evaluations: number
  readonly event_count: number
  readonly per_ticker: ReadonlyArray<{ readonly ticker: string; readonly fires: number }>
  readonly forward_returns: Readonly<
    Record<"1d" | "5d" | "20d", { readonly n: number; readonly mean: number | null; readonly hit_rate: number | null }>
  >
}

/** What an in-app subscription of `q` would have sent over the window (nothing stored or sent). */
export const dryRun = (session: Session, q: string, universe: string | undefined, from: string) =>
  call<DryRun>(
    "POST",
    "/dashboard/v2/webhooks/dry-run",
    { q, from, ...(universe === undefined ? {} : { universe }) },
    session.csrf_token
  )

/** An in-app subscription of `q` (the dashboard's inbox is where it delivers). */
export const createWebhook = (session: Session, q: string, name: string, universe: string | undefined) =>
  call<Webhook>(
    "POST",
    "/dashboard/v2/webhooks",
    { q, name, channel: "in_app", ...(universe === undefined ? {} : { universe }) },
    session.csrf_token
  )

export const webhookAction = (session: Session, id: string, action: "enable" | "disable" | "test") =>
  call<unknown>("POST", `/dashboard/v2/webhooks/${encodeURIComponent(id)}/${action}`, {}, session.csrf_token)

export const deleteWebhook = (session: Session, id: string) =>
  call<unknown>("DELETE", `/dashboard/v2/webhooks/${encodeURIComponent(id)}`, undefined, session.csrf_token)

export const snoozeWebhook = (session: Session, id: string, until: Date) =>
  call<unknown>(
    "POST",
    `/dashboard/v2/webhooks/${encodeURIComponent(id)}/snooze`,
    { until: until.toISOString() },
    session.csrf_token
  )
