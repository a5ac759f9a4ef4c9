/**
 * The `webhook.fired` event as delivered (the operator contract's delivery
 * format): what src/alerts writes into a delivery's payload and the workers
 * read back to send it on any channel. Alerts build it (alerts/payload.ts);
 * delivery only reads it, so the arrow goes one way: alerts → delivery.
 */

export type RowValue = string | number | boolean | null

export interface FiredEvent {
  readonly type: "webhook.fired"
  readonly timestamp: string
  readonly data: {
    readonly webhook_id: string
    readonly name: string
    readonly q: string
    readonly as_of: string
    readonly test: boolean
    readonly match_count: number
    readonly truncated: boolean
    readonly matches: ReadonlyArray<Record<string, RowValue>>
  }
}
