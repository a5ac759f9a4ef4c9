import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceUnavailable, withErrors } from "../errors.js"

export const Health = Schema.Struct({ status: Schema.Literal("ok") })
export const Ready = Schema.Struct({ status: Schema.Literal("ready") })

export class SystemApi extends HttpApiGroup.make("system")
  .add(HttpApiEndpoint.get("healthz", "/healthz").annotate(OpenApi.Summary, "Liveness probe").addSuccess(Health))
  .add(
    HttpApiEndpoint.get("readyz", "/readyz")
      .annotate(OpenApi.Summary, "Readiness probe (503 until the service can answer)")
      .addSuccess(Ready)
      .pipe(withErrors(ServiceUnavailable))
  )
  .add(
    HttpApiEndpoint.get("metrics", "/metrics")
      .annotate(OpenApi.Summary, "Prometheus metrics")
      .addSuccess(
        Schema.String.pipe(HttpApiSchema.withEncoding({ kind: "Text", contentType: "text/plain; version=0.0.4" }))
      )
  )
  .annotate(OpenApi.Description, "Probes and metrics for operators (no authentication).") {}
