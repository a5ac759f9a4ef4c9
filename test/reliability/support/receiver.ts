/**
 * A local webhook receiver for the reliability proofs: records every POST
 * (its `webhook-id`, body, whether its Standard Webhooks signature verified
 * with the webhook's secret, the status answered), answers 200 after a small
 * random delay, and answers 503 to the first POST of a fixed share of event
 * ids so the retry path runs too.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"

export interface Post {
  readonly eventId: string
  readonly webhookId: string | undefined
  readonly body: string
  readonly verified: boolean
  readonly status: number
  readonly at: number
}

export interface ReceiverOptions {
  /** share of event ids whose first POST is answered 503 (0–1) */
  readonly failFirst?: number
  /** most random delay before answering, ms */
  readonly maxDelayMs?: number
  /** POSTs to paths for which this is true are held (not answered) until `release()` */
  readonly hold?: (path: string) => boolean
}

export interface Receiver {
  readonly url: string
  readonly posts: Array<Post>
  /** the signing secret of each webhook (set as webhooks are created) */
  readonly secrets: Map<string, string>
  /** requests not answered yet */
  readonly inFlight: () => number
  /** when the last POST arrived (epoch ms) */
  readonly lastPostAt: () => number
  /** POSTs held (see `hold`) and not answered yet */
  readonly held: () => number
  /** answers every held POST (200) and stops holding */
  readonly release: () => void
  readonly close: () => Promise<void>
}

/** a stable pseudo-random share of event ids */
const hashShare = (id: string) => {
  let h = 2166136261
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619)
  return (h >>> 0) / 2 ** 32
}

export const startReceiver = async (options: ReceiverOptions = {}): Promise<Receiver> => {
  const failFirst = options.failFirst ?? 0
  const maxDelay = options.maxDelayMs ?? 0
  const posts: Array<Post> = []
  const secrets = new Map<string, string>()
  const seen = new Set<string>()
  let inFlight = 0
  let lastPostAt = 0
  let holding = options.hold !== undefined
  const held: Array<() => void> = []
  const server: Server = createServer((req, res) => {
    inFlight++
    lastPostAt = Date.now()
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      const eventId = String(req.headers["webhook-id"] ?? "")
      let webhookId: string | undefined
      let verified = false
      try {
        webhookId = JSON.parse(body)?.data?.webhook_id
        const secret = webhookId === undefined ? undefined : secrets.get(webhookId)
        if (secret !== undefined) {
          new Webhook(secret.slice("whsec_".length)).verify(body, req.headers as Record<string, string>)
          verified = true
        }
      } catch {
        verified = false
      }
      const first = !seen.has(eventId)
      seen.add(eventId)
      const status = first && hashShare(eventId) < failFirst && !options.hold?.(req.url ?? "/") ? 503 : 200
      posts.push({ eventId, webhookId, body, verified, status, at: Date.now() })
      const answer = () => {
        inFlight--
        res.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : "busy")
      }
      if (holding && options.hold?.(req.url ?? "/")) held.push(answer)
      else setTimeout(answer, Math.floor(Math.random() * maxDelay))
    })
  })
  server.keepAliveTimeout = 2_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    secrets,
    inFlight: () => inFlight,
    lastPostAt: () => lastPostAt,
    held: () => held.length,
    release: () => {
      holding = false
      for (const answer of held.splice(0)) answer()
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
