/**
 * A webhook receiver for tests that run the service as a process: node:http on
 * 127.0.0.1, records every request (path, headers, raw body) and answers 200,
 * or the status set for a path with `respond`.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  /** the raw body (`JSON.parse` it for a delivery's event) */
  readonly body: string
}

export const startReceiver = async () => {
  const received: Array<Received> = []
  const statusFor = new Map<string, number>()
  const server: Server = createServer((req, res) => {
    let body = ""
    req.on("data", (d) => (body += d))
    req.on("end", () => {
      const path = req.url ?? "/"
      received.push({ path, headers: req.headers, body })
      res.writeHead(statusFor.get(path) ?? 200, { "content-type": "text/plain" }).end("ok")
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const port = (server.address() as AddressInfo).port
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    /** the requests to one path, in arrival order */
    at: (path: string) => received.filter((r) => r.path === path),
    /** answer this status to the path from now on */
    respond: (path: string, status: number) => statusFor.set(path, status),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      })
  }
}

export type LocalReceiver = Awaited<ReturnType<typeof startReceiver>>
