import { HttpApi, HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { prometheusText } from "../../observability/prometheus.js"
import { Readiness } from "../../observability/Readiness.js"
import { VigilApi } from "../Api.js"
import { ServiceUnavailable } from "../errors.js"
import { SystemApi } from "./Api.js"

/** The API of a `VIGIL_ROLE=runner` process: the probes and metrics, nothing under /v2 or /admin. */
export class RunnerApi extends HttpApi.make("vigil-runner").add(SystemApi) {}

const healthz = () => Effect.succeed({ status: "ok" as const })
const readyz = (readiness: Readiness) => () =>
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
const metrics = () => prometheusText

export const SystemHttpLive = HttpApiBuilder.group(VigilApi, "system", (handlers) =>
  Effect.map(Readiness, (readiness) =>
    handlers.handle("healthz", healthz).handle("readyz", readyz(readiness)).handle("metrics", metrics)
  )
)

export const RunnerSystemHttpLive = HttpApiBuilder.group(RunnerApi, "system", (handlers) =>
  Effect.map(Readiness, (readiness) =>
    handlers.handle("healthz", healthz).handle("readyz", readyz(readiness)).handle("metrics", metrics)
  )
)
