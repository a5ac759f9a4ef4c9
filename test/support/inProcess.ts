/**
 * The whole service (`runApp`, as `npm start` runs it) inside the test's
 * process: configured from environment variables exactly as `npm start` reads
 * them, on a free port with a data directory of its own, its log lines kept
 * for `logs()` as a child's output would be. Endpoint tests use it; only
 * proofs about the process itself (crash, faults, several instances, the start
 * command) start a child process (server.ts).
 *
 * `market: "sample"` builds the market over a fixed sample of the seed's
 * tickers (sampleTickers.ts) instead of all 13,047, built by the same
 * simulator from the same seed: a start costs about half the CPU (11.7 s
 * against 22.5 s on a new database, 6.2 s on the run's template). Suites that
 * count or page the whole market keep "all".
 *
 * The service reads a Clock the test moves: `setOffset(ms)` places everything
 * it stamps with the Effect Clock from then on (created_at, universe versions,
 * …) that far from now. Sleeps stay real, so the service runs as it would.
 */
import { rmSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { Clock, ConfigProvider, Effect, Fiber, Layer } from "effect"
import { AppLive, appOver, runApp } from "../../src/App.js"
import { openServers } from "../../src/api/server.js"
import { appConfig, describeConfigError } from "../../src/config/AppConfig.js"
import { Tickers } from "../../src/market/tickers/index.js"
import { setLogDestination } from "../../src/observability/logSink.js"
import { type MarketChoice, sampleDirectory } from "./sampleTickers.js"
import { newDataDir, runnerTransport, serviceVariables } from "./server.js"

export interface Service {
  readonly url: string
  /** everything the service logged so far (JSON lines) */
  readonly logs: () => string
  readonly dataDir: string
  /** whether the service still runs (it has neither stopped nor failed) */
  readonly running: () => boolean
  /** the service's Clock reads now + `ms` from here on (negative: the past) */
  readonly setOffset: (ms: number) => void
  readonly stop: () => Promise<void>
}

export interface ServiceOptions {
  /** the seed's tickers ("all", the default) or the fixed sample of sampleTickers.ts */
  readonly market?: MarketChoice
  readonly timeoutMs?: number
}

/** this process's log lines, for the service running in it (one at a time per test file) */
let output = ""
setLogDestination((text) => {
  output += text
})

/** Starts the service in this process and waits until it listens (`waitReady` waits for `/readyz`). */
export const startService = async (
  env: Record<string, string> = {},
  options: ServiceOptions = {}
): Promise<Service> => {
  const dataDir = env.DATA_DIR ?? newDataDir(env)
  const variables = new Map(Object.entries({ ...serviceVariables(dataDir, env), ...(await runnerTransport(env)) }))
  const config = await Effect.runPromise(
    appConfig.pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(variables)),
      Effect.mapError((e) => new Error(`invalid configuration: ${describeConfigError(e)}`))
    )
  )
  let offset = 0
  const real = Clock.make()
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => real.unsafeCurrentTimeMillis() + offset,
    currentTimeMillis: Effect.sync(() => real.unsafeCurrentTimeMillis() + offset),
    unsafeCurrentTimeNanos: () => real.unsafeCurrentTimeNanos() + BigInt(offset) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => real.unsafeCurrentTimeNanos() + BigInt(offset) * 1_000_000n),
    sleep: (duration) => real.sleep(duration)
  }
  const app = options.market === "sample" ? appOver(Layer.sync(Tickers, sampleDirectory)) : AppLive
  const from = output.length
  const before = new Set(openServers)
  const fiber = Effect.runFork(runApp(config, app).pipe(Effect.withClock(clock)))
  const deadline = Date.now() + (options.timeoutMs ?? 120_000)
  let url: string | undefined
  while (url === undefined) {
    const server = [...openServers].find((s) => !before.has(s) && s.listening)
    if (server !== undefined) url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    else if (fiber.unsafePoll() !== null) throw new Error(`the service stopped while starting:\n${output.slice(from)}`)
    else if (Date.now() > deadline) throw new Error(`the service did not listen in time:\n${output.slice(from)}`)
    else await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url,
    logs: () => output.slice(from),
    dataDir,
    running: () => fiber.unsafePoll() === null,
    setOffset: (ms) => {
      offset = ms
    },
    stop: async () => {
      await Effect.runPromise(Fiber.interrupt(fiber))
      if (env.DATA_DIR === undefined) rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

/** The options of a service over the sample market. */
export const SAMPLE: ServiceOptions = { market: "sample" }

/** The options of a service over the whole market. */
export const ALL: ServiceOptions = { market: "all" }
