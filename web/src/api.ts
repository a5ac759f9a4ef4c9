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

/** One call to the service by the session cookie (a change carries `csrf`); a failure is an `ApiError`. */
export const call = async <A>(method: string, path: string, body?: unknown, csrf?: string): Promise<A> => {
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
  /** extra columns, comma-separated */
  readonly fields?: string
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
