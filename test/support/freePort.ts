import { createServer } from "node:net"

/** A TCP port free on 127.0.0.1 right now (for a runner's cluster transport in a test). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })
