/**
 * The whole service (`AppLive`, as `npm start` composes it) inside the test's
 * process, on a free port with an embedded store of its own, on a Clock the
 * test moves: `setOffset(ms)` places everything the service stamps with the
 * Effect Clock from then on (created_at, universe versions, …) that far from
 * now. Sleeps stay real, so the service runs as it would; only the time it
 * reads moves. For tests that need events placed on earlier days.
 */
import { mkdtempSync, rmSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Clock, Deferred, Duration, Effect, Fiber, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import { AppLive } from "../../src/App.js"
import { openServers } from "../../src/api/server.js"
import { AppConfig, type AppConfigShape } from "../../src/config/AppConfig.js"
import { Fatal } from "../../src/Fatal.js"
import { ADMIN_TOKEN } from "./server.js"

export interface InProcessServer {
  readonly url: string
  /** the service's Clock reads now + `ms` from here on (negative: the past) */
  readonly setOffset: (ms: number) => void
  readonly stop: () => Promise<void>
}

export const startInProcess = async (
  overrides: Partial<AppConfigShape> = {},
  timeoutMs = 120_000
): Promise<InProcessServer> => {
  const dataDir = mkdtempSync(join(tmpdir(), "vigil-inprocess-"))
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
  const config = AppConfig.make({
    dataDir,
    adminToken: Option.some(Redacted.make(ADMIN_TOKEN)),
    signalFlagHistory: "lazy",
    refreshInterval: Duration.hours(1),
    ...overrides
  })
  const before = new Set(openServers)
  const fiber = Effect.runFork(
    Effect.gen(function* () {
      const fatal = yield* Deferred.make<never, Error>()
      yield* Layer.launch(
        AppLive.pipe(Layer.provide(Layer.succeed(AppConfig, config)), Layer.provide(Layer.succeed(Fatal, fatal)))
      ).pipe(Effect.raceFirst(Deferred.await(fatal)))
    }).pipe(Effect.withClock(clock), Logger.withMinimumLogLevel(LogLevel.Error))
  )
  const deadline = Date.now() + timeoutMs
  let url: string | undefined
  let ready = false
  while (!ready && Date.now() < deadline) {
    if (url === undefined) {
      const server = [...openServers].find((s) => !before.has(s) && s.listening)
      if (server !== undefined) url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    }
    ready = url !== undefined && (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200
    if (fiber.unsafePoll() !== null) throw new Error("the service stopped while starting")
    if (!ready) await new Promise((r) => setTimeout(r, 100))
  }
  if (url === undefined || !ready) throw new Error("the service did not get ready in time")
  return {
    url,
    setOffset: (ms) => {
      offset = ms
    },
    stop: async () => {
      await Effect.runPromise(Fiber.interrupt(fiber))
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
