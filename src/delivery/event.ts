/**
 * The `webhook.fired` and `webhook.cleared` events as delivered (the operator contract's delivery
 * format): what src/alerts writes into a delivery's payload and the workers
 * read back to send it on any channel. Alerts build it (alerts/payload.ts);
 * delivery only reads it, so the arrow goes one way: alerts → delivery.
 */

export type RowValue = string | number | boolean | null

/** The two events of a subscription: tickers entered (or repeated), tickers left (`fire_on`). */
export type AlertEventType = "webhook.fired" | "webhook.cleared"

export interface AlertEvent {
  readonly type: AlertEventType
  readonly timestamp: string
  readonly data: {
    readonly webhook_id: string
    readonly name: string
    readonly q: string
    readonly as_of: string
    /** the market data time evaluated (not on test pings) */
    readonly data_as_of?: string
    /** per webhook, gap-free from 1 across both types (not on test pings) */
    readonly sequence?: number
    readonly test: boolean
    readonly match_count: number
    readonly truncated: boolean
    readonly matches: ReadonlyArray<Record<string, RowValue>>
  }
}
