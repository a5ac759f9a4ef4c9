import { readFileSync } from "node:fs"
import { createServer } from "node:net"

/**
 * The lowest port the kernel hands out for a bind to port 0 (Linux's ephemeral range; 32768 when
 * it cannot be read).
 */
const ephemeralLow = (): number => {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0])
    return Number.isInteger(low) && low > 11_000 ? low : 32_768
  } catch {
    return 32_768
  }
}

const listensOn = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

/**
 * A TCP port free on 127.0.0.1 right now (for a runner's cluster transport in a test), drawn below
 * the kernel's ephemeral range: a port the kernel chose for a bind to port 0 and released could be
 * handed out again to the next such bind — the service's own HTTP listener (`PORT=0`) took the
 * runner's port that way, and the runner could not join the cluster.
 */
export const freePort = async (): Promise<number> => {
  const low = 10_000
  const high = ephemeralLow() - 1
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1))
    if (await listensOn(port)) return port
  }
  throw new Error(`no free port between ${low} and ${high} after 100 tries`)
}
