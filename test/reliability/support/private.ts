/**
 * Private PostgreSQL and Redis servers for the dependency-fault proofs, which
 * stop them: never the shared ones.
 *
 * - PostgreSQL: a throwaway cluster (`initdb` + `pg_ctl` from
 *   /usr/lib/postgresql/<v>/bin, run as the `postgres` user through
 *   `runuser` when we are root) on a free port in a temp directory; stopped
 *   with `pg_ctl stop -m fast` (every connection is closed) and started again
 *   on the same port and data. Where no PostgreSQL binaries exist (a CI image
 *   with PostgreSQL only as a service container), a TCP proxy in front of
 *   DATABASE_URL stands in: `stop` closes its port and resets every
 *   connection through it, `start` listens again.
 * - Redis: `redis-server --port N --save "" --appendonly no` as a child
 *   process; `stop` kills it (connections refused), `freeze`/`thaw` SIGSTOP
 *   and SIGCONT it (connections accepted, nothing answered).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { createConnection, createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "../../support/freePort.js"

const waitPort = async (port: number, up: boolean, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const c = createConnection({ port, host: "127.0.0.1" })
      c.once("connect", () => {
        c.destroy()
        resolve(true)
      })
      c.once("error", () => resolve(false))
    })
    if (open === up) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`port ${port} did not ${up ? "open" : "close"} in time`)
}

export interface PrivatePostgres {
  readonly kind: "cluster" | "proxy"
  /** why the proxy stands in, when it does */
  readonly why?: string
  readonly url: string
  readonly stop: () => Promise<void>
  readonly start: () => Promise<void>
  readonly close: () => Promise<void>
}

const postgresBin = (): string | undefined => {
  const root = "/usr/lib/postgresql"
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a))
  return versions.length === 0 ? undefined : join(root, versions[0]!, "bin")
}

const asPostgres = (bin: string, args: ReadonlyArray<string>) => {
  const root = process.getuid?.() === 0
  execFileSync(root ? "runuser" : bin, root ? ["-u", "postgres", "--", bin, ...args] : [...args], {
    stdio: "pipe",
    timeout: 60_000
  })
}

const cluster = async (): Promise<PrivatePostgres> => {
  const bin = postgresBin()
  if (bin === undefined) throw new Error("no PostgreSQL binaries under /usr/lib/postgresql")
  const dir = mkdtempSync(join(tmpdir(), "vigil-pg-"))
  chmodSync(dir, 0o777)
  const data = join(dir, "data")
  const port = await freePort()
  if (process.getuid?.() === 0) execFileSync("chown", ["postgres", dir])
  asPostgres(join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`
  const start = async () => {
    asPostgres(join(bin, "pg_ctl"), ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"])
    await waitPort(port, true)
  }
  const stop = async () => {
    asPostgres(join(bin, "pg_ctl"), ["-D", data, "-m", "fast", "-w", "stop"])
    await waitPort(port, false)
  }
  await start()
  return {
    kind: "cluster",
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    close: async () => {
      await stop().catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** A TCP proxy to `upstream` (host:port) that can be cut and restored on the same port. */
const proxy = async (upstreamUrl: string, why: string): Promise<PrivatePostgres> => {
  const upstream = new URL(upstreamUrl)
  const port = await freePort()
  const sockets = new Set<Socket>()
  let server: Server | undefined
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const backend = createConnection({ host: upstream.hostname, port: Number(upstream.port || 5432) })
        for (const x of [client, backend]) {
          sockets.add(x)
          x.on("close", () => sockets.delete(x))
          x.on("error", () => {
            client.destroy()
            backend.destroy()
          })
        }
        client.pipe(backend).pipe(client)
      })
      s.once("error", reject)
      s.listen(port, "127.0.0.1", () => resolve())
      server = s
    })
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const x of sockets) x.resetAndDestroy()
      sockets.clear()
      if (server === undefined) return resolve()
      server.close(() => resolve())
      server = undefined
    })
  await start()
  const url = new URL(upstreamUrl)
  url.host = `127.0.0.1:${port}`
  return { kind: "proxy", why, url: url.toString(), start, stop, close: stop }
}

/** A private cluster when possible; else a proxy in front of `fallbackUrl` (say why). */
export const privatePostgres = async (fallbackUrl: string | undefined): Promise<PrivatePostgres> => {
  try {
    return await cluster()
  } catch (e) {
    if (fallbackUrl === undefined || fallbackUrl === "") throw e
    return proxy(fallbackUrl, `no private cluster: ${String((e as Error).message ?? e).split("\n")[0]}`)
  }
}

export interface PrivateRedis {
  readonly url: string
  readonly stop: () => Promise<void>
  readonly start: () => Promise<void>
  readonly freeze: () => void
  readonly thaw: () => void
  readonly close: () => Promise<void>
}

export const privateRedis = async (): Promise<PrivateRedis> => {
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async () => {
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: "ignore"
    })
    await waitPort(port, true)
  }
  const stop = async () => {
    const c = child
    child = undefined
    if (c === undefined || c.exitCode !== null) return
    const exited = new Promise((r) => c.once("exit", r))
    c.kill("SIGCONT")
    c.kill("SIGKILL")
    await exited
    await waitPort(port, false)
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    freeze: () => child?.kill("SIGSTOP"),
    thaw: () => child?.kill("SIGCONT"),
    close: stop
  }
}
