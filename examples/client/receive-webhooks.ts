/**
 * A webhook receiver: verifies each delivery's signature, drops a retried one, fills a gap from
 * the event feed, and hands over the events of each subscription in sequence order.
 *
 * VIGIL_URL=https://vigil.example.com VIGIL_API_KEY=vigil_live_… SIGNING_SECRET=whsec_… PORT=3000 \
 *   npx tsx examples/client/receive-webhooks.ts
 */
import { createServer, type Server } from "node:http"
import { feedReader, makeReceiver, type VigilEvent, WebhookVerificationError } from "vigil/client"

export const startReceiver = (options: {
  readonly baseUrl: string
  readonly apiKey: string
  readonly secret: string
  readonly port: number
  readonly onEvent: (event: VigilEvent) => void
}): Promise<Server> => {
  const receiver = makeReceiver({ secrets: [options.secret], readFeed: feedReader(options.baseUrl, options.apiKey) })
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => (body += chunk))
    req.on("end", async () => {
      try {
        const { events } = await receiver.receive(req.headers as Record<string, string>, body)
        for (const event of events) options.onEvent(event)
        res.writeHead(204).end()
      } catch (e) {
        // a bad signature is refused for good; anything else is worth a retry by Vigil
        res.writeHead(e instanceof WebhookVerificationError ? 401 : 500).end()
      }
    })
  })
  return new Promise((resolve) => server.listen(options.port, "127.0.0.1", () => resolve(server)))
}

if (process.argv[1]?.endsWith("receive-webhooks.ts")) {
  const { VIGIL_URL = "http://127.0.0.1:8080", VIGIL_API_KEY = "", SIGNING_SECRET = "", PORT = "3000" } = process.env
  await startReceiver({
    baseUrl: VIGIL_URL,
    apiKey: VIGIL_API_KEY,
    secret: SIGNING_SECRET,
    port: Number(PORT),
    onEvent: (event) =>
      console.log(`#${event.data.sequence} ${event.type}: ${(event.data.matches as Array<{ ticker: string }> | undefined)?.map((m) => m.ticker).join(", ")}`)
  })
  console.log(`receiving on http://127.0.0.1:${PORT}`)
}
