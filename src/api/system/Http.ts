import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { prometheusText } from "../../observability/prometheus.js"
import { Readiness } from "../../observability/Readiness.js"
import { VigilApi } from "../Api.js"
import { ServiceUnavailable } from "../errors.js"

export const SystemHttpLive = HttpApiBuilder.group(VigilApi, "system", (handlers) =>
  Effect.gen(function* () {
    const readiness = yield* Readiness
    return handlers
      .handle("healthz", () => Effect.succeed({ status: "ok" as const }))
      .handle("readyz", () =>
        Effect.gen(function* () {
          const pending = yield* readiness.pending
          if (pending.size > 0) {
            return yield* new ServiceUnavailable({
              message: `not ready: waiting for ${[...pending].join(", ")}`,
              details: { retry_after: 1 }
            })
          }
          return { status: "ready" as const }
        })
      )
      .handle("metrics", () => prometheusText)
  })
)
