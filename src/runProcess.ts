/**
 * The service as a process (`npm start`: main.ts): the configuration read from the environment
 * (exit 2 naming what is wrong), SIGTERM and SIGINT stopping it gracefully within 10 s, and its
 * log lines written as JSON. Test proofs that need a process over a smaller market run the same
 * over another ticker directory (test/support/sampleService.mjs).
 */
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, type Layer } from "effect"
import { AppLive, runApp } from "./App.js"
import { openServers } from "./api/server.js"
import { type AppConfig, appConfig, describeConfigError } from "./config/AppConfig.js"
import type { Fatal } from "./Fatal.js"
import { applyHeapPolicy } from "./heapPolicy.js"
import { jsonLinesLogger } from "./observability/logSink.js"

const SHUTDOWN_GRACE_MS = 8_000

export const runProcess = (app: Layer.Layer<never, unknown, AppConfig | Fatal> = AppLive): void => {
  // before the market is built: the heap is still small
  applyHeapPolicy()
  const main = Effect.gen(function* () {
    const config = yield* appConfig.pipe(
      Effect.catchAll((error) =>
        Effect.sync(() => {
          process.stderr.write(`vigil: invalid configuration\n${describeConfigError(error)}\n`)
          process.exit(2)
        })
      )
    )
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.once(signal, () => {
        // connections still open after the grace period are cut; the process is gone within 10 s
        setTimeout(() => {
          for (const server of openServers) server.closeAllConnections()
        }, SHUTDOWN_GRACE_MS).unref()
        setTimeout(() => process.exit(0), 10_000).unref()
      })
    }
    yield* runApp(config, app).pipe(
      Effect.tapErrorCause((cause) =>
        Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError("vigil stopped", cause)
      )
    )
  }).pipe(Effect.provide(jsonLinesLogger), Effect.asVoid)
  NodeRuntime.runMain(main, { disablePrettyLogger: true })
}
