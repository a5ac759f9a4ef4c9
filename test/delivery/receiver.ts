/**
 * Local HTTP servers for the delivery tests (node:http on 127.0.0.1, port 0), as scoped
 * Effect resources: every connection is closed with the scope, stalled ones included.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Schedule, type Scope } from "effect"

export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

export interface LocalServer {
  readonly port: number
  /** `http://127.0.0.1:<port><path>` */
  readonly url: (path?: string) => string
  readonly received: Array<Received>
  /** requests whose handler has not answered yet */
  readonly inFlight: () => number
  readonly maxInFlight: () => number
}

/** `handler` answers (or not) once the request body has been read. */
export const localServer = (
  handler: (req: Received, res: http.ServerResponse) => void
): Effect.Effect<LocalServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ server: http.Server; local: LocalServer }>((resume) => {
      const received: Array<Received> = []
      let inFlight = 0
      let maxInFlight = 0
      const server = http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        inFlight++
        maxInFlight = Math.max(maxInFlight, inFlight)
        let done = false
        const finish = () => {
          if (!done) {
            done = true
            inFlight--
          }
        }
        res.on("finish", finish)
        res.on("close", finish)
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          const r: Received = {
            method: req.method ?? "",
            url: req.url ?? "",
            headers: req.headers,
            body: Buffer.concat(chunks).toString("utf8")
          }
          received.push(r)
          handler(r, res)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as AddressInfo).port
        resume(
          Effect.succeed({
            server,
            local: {
              port,
              url: (path = "/hook") => `http://127.0.0.1:${port}${path}`,
              received,
              inFlight: () => inFlight,
              maxInFlight: () => maxInFlight
            }
          })
        )
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ local }) => local))

/** Polls `condition` every 10 ms (real time) until it holds, for at most `ms`. */
export const waitUntil = (condition: () => boolean, ms = 5_000): Effect.Effect<void> =>
  Effect.suspend(() => (condition() ? Effect.void : Effect.fail("not yet" as const))).pipe(
    Effect.retry(Schedule.intersect(Schedule.spaced("10 millis"), Schedule.recurs(Math.ceil(ms / 10)))),
    Effect.orDie
  )
