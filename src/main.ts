import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect } from "effect"
import { runApp } from "./App.js"
import { openServers } from "./api/server.js"
import { appConfig, describeConfigError } from "./config/AppConfig.js"
import { applyHeapPolicy } from "./heapPolicy.js"
import { jsonLinesLogger } from "./observability/logSink.js"

const SHUTDOWN_GRACE_MS = 8_000

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
  yield* runApp(config).pipe(
    Effect.tapErrorCause((cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError("vigil stopped", cause)
    )
  )
}).pipe(Effect.provide(jsonLinesLogger), Effect.asVoid)

NodeRuntime.runMain(main, { disablePrettyLogger: true })
