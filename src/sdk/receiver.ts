/**
 * A webhook receiver's side of Vigil's deliveries: each delivery's Standard Webhooks signature
 * verified (`webhook-id`, `webhook-timestamp`, `webhook-signature` under the subscription's
 * `whsec_…` secret; during a rotation either secret), then the events of each webhook handed over
 * in `data.sequence` order, once: a duplicate (a retried delivery) is dropped, and a gap (a
 * delivery that has not arrived, or never will) is filled from the event feed
 * (`GET /v2/webhooks/{id}/events`) before the event that revealed it.
 */
import { Webhook } from "standardwebhooks"

/** A delivery whose signature does not verify under any of the secrets (or is missing, or too old). */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError"
}

/** a delivery's body (`webhook.fired`, `webhook.cleared`; a test ping carries `data.test: true`) */
export interface VigilEvent {
  readonly type: string
  readonly timestamp: string
  readonly data: {
    readonly webhook_id: string
    readonly sequence?: number
    readonly test?: boolean
    readonly [field: string]: unknown
  }
}

export interface ReceiverOptions {
  /** the subscription's signing secrets (`whsec_…`): the current one, and the previous one while a rotation lasts */
  readonly secrets: ReadonlyArray<string>
  /** the events of a webhook after sequence `after`, in order (`feedReader` reads the API's feed) */
  readonly readFeed?: (webhookId: string, after: number) => Promise<ReadonlyArray<VigilEvent>>
  /** the last sequence handled per webhook, when the receiver restarts (default: none yet) */
  readonly handled?: Map<string, number>
}

export interface Received {
  /** the events to act on, in sequence order (the gap's, then this delivery's) */
  readonly events: ReadonlyArray<VigilEvent>
  /** this delivery was handled before (a retry): nothing to do */
  readonly duplicate: boolean
}

/** A receiver: `receive(headers, rawBody)` for each delivery (throws `WebhookVerificationError` when the signature fails). */
export const makeReceiver = (options: ReceiverOptions) => {
  const verifiers = options.secrets.map((secret) => new Webhook(secret))
  const handled = options.handled ?? new Map<string, number>()
  // one delivery of a webhook at a time, so the order holds when deliveries race
  const queues = new Map<string, Promise<unknown>>()

  const verify = (headers: Readonly<Record<string, string>>, body: string): VigilEvent => {
    let reason = "no signing secret given"
    for (const verifier of verifiers) {
      try {
        return verifier.verify(body, headers as Record<string, string>) as VigilEvent
      } catch (e) {
        // (the library's own error class does not survive `instanceof`: its ES5 build loses the prototype)
        reason = e instanceof Error ? e.message : String(e)
      }
    }
    throw new WebhookVerificationError(`the delivery's signature does not verify: ${reason}`)
  }

  const order = async (event: VigilEvent): Promise<Received> => {
    const id = event.data.webhook_id
    const sequence = event.data.sequence
    if (event.data.test === true || typeof sequence !== "number") return { events: [event], duplicate: false }
    const last = handled.get(id)
    if (last !== undefined && sequence <= last) return { events: [], duplicate: true }
    const gap =
      last !== undefined && sequence > last + 1 && options.readFeed !== undefined
        ? (await options.readFeed(id, last)).filter(
            (e) => typeof e.data.sequence === "number" && e.data.sequence > last && e.data.sequence < sequence
          )
        : []
    handled.set(id, sequence)
    return { events: [...gap, event], duplicate: false }
  }

  return {
    receive: async (headers: Readonly<Record<string, string>>, rawBody: string): Promise<Received> => {
      const event = verify(lowerCased(headers), rawBody)
      const id = event.data.webhook_id
      const next = (queues.get(id) ?? Promise.resolve()).then(() => order(event))
      queues.set(
        id,
        next.catch(() => undefined)
      )
      return next
    },
    /** the last sequence handled per webhook (keep it to restart without a gap) */
    handled: handled as ReadonlyMap<string, number>
  }
}

const lowerCased = (headers: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))

/** `readFeed` over the API: `GET /v2/webhooks/{id}/events?after=…`, every page */
export const feedReader =
  (baseUrl: string, apiKey: string) =>
  async (webhookId: string, after: number): Promise<ReadonlyArray<VigilEvent>> => {
    const out: Array<VigilEvent> = []
    let cursor: string | null = String(after)
    while (cursor !== null) {
      const res = await fetch(
        `${baseUrl.replace(/\/+$/, "")}/v2/webhooks/${encodeURIComponent(webhookId)}/events?after=${cursor}&limit=100`,
        { headers: { authorization: `Bearer ${apiKey}` } }
      )
      if (!res.ok) throw new Error(`the event feed answered ${res.status}: ${await res.text()}`)
      const page = (await res.json()) as { next_cursor: string | null; events: ReadonlyArray<{ body: VigilEvent }> }
      for (const e of page.events) out.push(e.body)
      cursor = page.events.length === 0 ? null : page.next_cursor
    }
    return out
  }
