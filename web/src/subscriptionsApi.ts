/**
 * The subscriptions' calls (`/v2/webhooks…` through the session's `/dashboard/v2`): the records,
 * create and update with every field, dry-runs, the delivery log and its retries, the event feed,
 * explain, snooze, secret rotation.
 */
import { type Cell, call, type Session } from "./api"

export type Channel = "webhook" | "chat" | "in_app" | "mobile_push"
export type Cadence = "realtime" | "hourly" | "exchange_open"
export type FireOn = "enter" | "exit" | "both"

export interface Webhook {
  readonly id: string
  readonly name: string
  readonly q: string
  readonly universe_id: string | null
  readonly cadence: Cadence
  readonly target_url: string | null
  readonly channel: Channel
  readonly delivery: string
  readonly channel_config_present: boolean
  readonly device_id: string | null
  readonly fields: ReadonlyArray<string>
  readonly status: "active" | "disabled"
  readonly disabled_reason: string | null
  readonly subscription_origin: {
    readonly type: "ticker" | "signal" | "query"
    readonly ref: string | null
    readonly condition: string | null
  }
  /** epoch seconds */
  readonly created_at: number
  readonly updated_at: number
  readonly last_match_set: ReadonlyArray<string>
  readonly last_evaluated_at: number | null
  readonly next_eval_at: number | null
  readonly last_fired: number | null
  readonly fire_on: FireOn
  readonly pending_for: string
  readonly clear_q: string | null
  readonly cooldown: string
  readonly repeat_interval: string | null
  readonly snoozed_until: number | null
  /** only in the answer that created it (webhook channel) */
  readonly signing_secret?: string
}

/** The rule and its delivery, as the form sends them (`POST /v2/webhooks`, the dry-run). */
export interface Rule {
  readonly q: string
  readonly universe?: string
  readonly cadence: Cadence
  readonly fire_on: FireOn
  readonly pending_for: string
  readonly clear_q: string | null
  readonly cooldown: string
  readonly repeat_interval: string | null
}

export interface Delivery {
  readonly channel: Channel
  readonly name: string
  readonly target_url?: string
  readonly chat_url?: string
  readonly device_id?: string
  readonly fields: ReadonlyArray<string>
}

/** What PATCH /v2/webhooks/{id} can change (the query, universe and channel are fixed at creation). */
export interface WebhookPatch {
  readonly name?: string
  readonly target_url?: string | null
  readonly chat_url?: string | null
  readonly cadence?: Cadence
  readonly fields?: ReadonlyArray<string>
  readonly fire_on?: FireOn
  readonly pending_for?: string
  readonly clear_q?: string | null
  readonly cooldown?: string
  readonly repeat_interval?: string | null
}

const path = (id: string, rest = "") => `/dashboard/v2/webhooks/${encodeURIComponent(id)}${rest}`

export const listWebhooks = () =>
  call<{ readonly webhooks: ReadonlyArray<Webhook> }>("GET", "/dashboard/v2/webhooks?limit=100")

export const getWebhook = (id: string) => call<Webhook>("GET", path(id))

export const createWebhook = (session: Session, rule: Rule, delivery: Delivery) =>
  call<Webhook>("POST", "/dashboard/v2/webhooks", { ...rule, ...delivery }, session.csrf_token)

export const updateWebhook = (session: Session, id: string, patch: WebhookPatch) =>
  call<Webhook>("PATCH", path(id), patch, session.csrf_token)

export const webhookAction = (session: Session, id: string, action: "enable" | "disable") =>
  call<Webhook>("POST", path(id, `/${action}`), {}, session.csrf_token)

export const testWebhook = (session: Session, id: string) =>
  call<{ readonly delivery: DeliveryRecord }>("POST", path(id, "/test"), {}, session.csrf_token)

export const deleteWebhook = (session: Session, id: string) =>
  call<unknown>("DELETE", path(id), undefined, session.csrf_token)

export const snoozeWebhook = (session: Session, id: string, until: Date) =>
  call<Webhook>("POST", path(id, "/snooze"), { until: until.toISOString() }, session.csrf_token)

export const unsnoozeWebhook = (session: Session, id: string) =>
  call<Webhook>("DELETE", path(id, "/snooze"), undefined, session.csrf_token)

/** a new signing secret, shown only in this answer; the previous one signs too until `previous_secret_expires_at` */
export const rotateSecret = (session: Session, id: string) =>
  call<{ readonly webhook: Webhook; readonly signing_secret: string; readonly previous_secret_expires_at: number }>(
    "POST",
    path(id, "/rotate-secret"),
    {},
    session.csrf_token
  )

export interface DeliveryRecord {
  readonly id: string
  readonly webhook_id: string
  readonly event: string
  readonly event_id: string
  readonly target_url: string
  readonly test: boolean
  readonly attempt: number
  readonly status: "pending" | "delivered" | "permanent_failure"
  readonly next_attempt_at: number | null
  readonly last_status_code: number | null
  readonly last_error: string | null
  readonly created_at: number
  readonly delivered_at: number | null
}

export const listDeliveries = (id: string, cursor?: string) =>
  call<{
    readonly count: number
    readonly next_cursor: string | null
    readonly deliveries: ReadonlyArray<DeliveryRecord>
  }>("GET", path(id, `/deliveries?limit=25${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`))

export const retryDelivery = (session: Session, id: string, deliveryId: string) =>
  call<DeliveryRecord>("POST", path(id, `/deliveries/${encodeURIComponent(deliveryId)}/retry`), {}, session.csrf_token)

export interface WebhookEvent {
  readonly sequence: number
  readonly type: "webhook.fired" | "webhook.cleared"
  readonly created_at: number
  readonly data_as_of: string
  readonly suppressed: boolean
  readonly body: {
    readonly data?: {
      readonly match_count?: number
      readonly matches?: ReadonlyArray<Readonly<Record<string, Cell>>>
      readonly cleared?: ReadonlyArray<Readonly<Record<string, Cell>>>
    }
  }
}

export const listEvents = (id: string, after: number) =>
  call<{
    readonly oldest_sequence: number | null
    readonly next_cursor: string | null
    readonly events: ReadonlyArray<WebhookEvent>
  }>("GET", path(id, `/events?after=${after}&limit=25`))

export interface ExplainNode {
  readonly expr: string
  readonly op: string
  readonly result: boolean | null
  readonly args?: ReadonlyArray<ExplainNode>
  readonly operands?: ReadonlyArray<{ readonly expr: string; readonly value: Cell }>
}

export interface Explained {
  readonly ticker: string
  readonly evaluated_at: string | null
  readonly data_as_of: string
  readonly state: "idle" | "pending" | "inside" | "cooling"
  readonly reason: string
  readonly tree: ExplainNode
}

export const explainWebhook = (id: string, ticker: string) =>
  call<Explained>("GET", path(id, `/explain?ticker=${encodeURIComponent(ticker)}`))

export interface ReturnStats {
  readonly n: number
  readonly mean: number | null
  readonly median: number | null
  readonly hit_rate: number | null
}

export interface DryRun {
  readonly from: string
  readonly to: string
  readonly resolution: "1d" | "1m"
  readonly evaluations: number
  readonly event_count: number
  readonly truncated: boolean
  readonly events: ReadonlyArray<{
    readonly at: string
    readonly sequence: number
    readonly type: "webhook.fired" | "webhook.cleared"
    readonly tickers: ReadonlyArray<string>
    readonly repeated?: ReadonlyArray<string>
  }>
  readonly per_ticker: ReadonlyArray<{
    readonly ticker: string
    readonly fires: number
    readonly clears: number
    readonly first_at: string
    readonly last_at: string
  }>
  readonly forward_returns: Readonly<Record<"1d" | "5d" | "20d", ReturnStats>>
}

export interface DryRunWindow {
  readonly from: string
  readonly to?: string
  readonly resolution?: "1d" | "1m"
}

/** What a rule would have sent over the window (nothing stored or sent). */
export const dryRun = (session: Session, rule: Partial<Rule> & { readonly q: string }, window: DryRunWindow) =>
  call<DryRun>("POST", "/dashboard/v2/webhooks/dry-run", { ...rule, ...window }, session.csrf_token)
