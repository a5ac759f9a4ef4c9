/**
 * Handlers of the news group: the authenticated scan (the caller's plan gates
 * the archive) and the sandbox mirror (no key, no archive, 50 rows, per-IP
 * rate limit applied by `SandboxRateLimit` before the body is read).
 */
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { VigilApi } from "../Api.js"
import { Cursors } from "../cursor.js"
import { orUnavailable } from "../errors.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { SandboxRateLimitLive } from "./SandboxRateLimit.js"
import { runNewsScan } from "./scan.js"

export const NewsHttpLive = HttpApiBuilder.group(VigilApi, "news", (handlers) =>
  Effect.gen(function* () {
    const cursors = yield* Cursors
    const codec = orUnavailable(cursors.codec)
    return handlers
      .handle("scan", ({ payload }) =>
        Effect.gen(function* () {
          const key = yield* CurrentKey
          return yield* runNewsScan(
            payload,
            { kind: "account", accountId: key.account.id, plan: key.account.plan },
            yield* codec
          )
        })
      )
      .handle("sandboxScan", ({ payload }) =>
        Effect.gen(function* () {
          return yield* runNewsScan(payload, { kind: "sandbox" }, yield* codec)
        })
      )
  })
).pipe(Layer.provide(SandboxRateLimitLive))
